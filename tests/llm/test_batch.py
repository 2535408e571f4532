"""Batch mode against the loopback Batch API: submit, poll, map back, resume, and the generic JSONL."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from almanac.core.rejects import StageLedger
from almanac.llm.batch import BatchPending, import_batch_output, read_batch_output, write_batch_input
from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from almanac.llm.config import RoleConfig
from tests.llm.conftest import message, remote_role, requests_for
from tests.support.llm_server import LLMTestServer, Reply


def answer_or_fail(body: dict[str, object], seen: int) -> Reply:
    text = str(body["messages"][-1]["content"])  # type: ignore[index]
    if text == message("batch", 2):
        return Reply(status=500, error_message="model crashed")
    return Reply(text=f"batched answer to {text}", prompt_tokens=20, completion_tokens=3)


def test_batch_roundtrip_maps_answers_by_custom_id(
    serve: Callable[..., LLMTestServer], tmp_path: Path
) -> None:
    server = serve(answer_or_fail)
    role = remote_role(server, batch=True, batch_poll_s=0.01, name="validator", max_failed_share=0.5)
    ledger = StageLedger("validate")
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        results = run_requests(role, requests_for("batch", 5), cache, ledger)
    assert server.chat_requests == 0 and server.batch_creates == 1 and server.file_uploads == 1
    assert [r.ok for r in results] == [True, True, False, True, True]
    assert (
        results[3].text == f"batched answer to {message('batch', 3)}"
    )  # order follows the input, not the file
    assert results[2].error == "llm_batch_error" and "model crashed" in results[2].detail
    assert ledger.extra["llm"]["validator.prompt_tokens"] == 80
    assert not list((tmp_path / "llm_batches").glob("*.json"))  # finished: the state file is gone
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        again = run_requests(role, requests_for("batch", 5)[:2], cache)
    assert all(r.cached for r in again) and server.batch_creates == 1


def test_interrupted_batch_is_reattached_not_resubmitted(
    serve: Callable[..., LLMTestServer], tmp_path: Path
) -> None:
    server = serve(answer_or_fail)
    server.batch_hold = True
    role = remote_role(server, batch=True, batch_poll_s=0.01, batch_max_wait_s=0.1)
    with LLMCache(tmp_path / "llm.sqlite") as cache, pytest.raises(BatchPending, match="rerun"):
        run_requests(role, requests_for("held", 3), cache)
    state_files = list((tmp_path / "llm_batches").glob("*.json"))
    assert len(state_files) == 1 and json.loads(state_files[0].read_text())["batch_id"] == "batch_1"

    server.batch_hold = False
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        results = run_requests(role, requests_for("held", 3), cache)
    assert all(r.ok for r in results)
    assert (server.batch_creates, server.file_uploads) == (1, 1)  # re-attached to batch_1


def test_batch_file_format_is_generic(tmp_path: Path) -> None:
    """The same JSONL goes to vLLM's offline runner; its output file fills the cache the same way."""
    role = RoleConfig(
        backend="openai",
        model="served",
        base_url="http://127.0.0.1:9/v1",
        temperature=0.2,
        max_tokens=50,
        name="generator",
    )
    requests = requests_for("vllm", 3)
    misses = {request.key(role): request for request in requests}
    assert write_batch_input(role, misses, tmp_path / "in.jsonl") == 3
    lines = [json.loads(line) for line in (tmp_path / "in.jsonl").read_text().splitlines()]
    assert {line["custom_id"] for line in lines} == set(misses)
    assert all(line["method"] == "POST" and line["url"] == "/v1/chat/completions" for line in lines)
    assert lines[0]["body"]["max_tokens"] == 50 and lines[0]["body"]["temperature"] == 0.2

    output = (
        "".join(
            json.dumps(
                {
                    "id": f"r{i}",
                    "custom_id": line["custom_id"],
                    "error": None,
                    "response": {
                        "status_code": 200,
                        "body": {
                            "choices": [{"message": {"content": f"vllm says {i}"}}],
                            "usage": {"prompt_tokens": 9, "completion_tokens": 2},
                        },
                    },
                }
            )
            + "\n"
            for i, line in enumerate(lines)
        )
        + "not json\n"
    )
    assert len(read_batch_output(output)) == 3  # the garbage line is skipped
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        import_batch_output(role, misses, output, cache)
        results = run_requests(role, requests, cache)
    assert all(r.cached for r in results)
    assert {r.text for r in results} == {"vllm says 0", "vllm says 1", "vllm says 2"}
