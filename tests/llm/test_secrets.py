"""The API key reaches the server but never any file, log line, reject row, metric or exception."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable
from pathlib import Path

import pytest

from almanac.core.io import write_json, write_parquet
from almanac.core.rejects import StageLedger
from almanac.foresight.llm_tasks import QGEN  # registers the task run below: alone, nothing else would
from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from almanac.llm.registry import TaskItem
from almanac.llm.secrets import redact
from almanac.llm.tasks import run_task
from almanac.llm.transport import LLMFatalError
from tests.llm.conftest import PROMPTS_DIR, remote_role, requests_for
from tests.support.llm_server import LLMTestServer, Reply

KEY_ENV = "ALMANAC_TEST_LLM_KEY"


def test_key_is_used_but_never_written(
    serve: Callable[..., LLMTestServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-test-" + secrets.token_hex(16)
    monkeypatch.setenv(KEY_ENV, key)
    log_file = tmp_path / "run.log"
    handler = logging.FileHandler(log_file)
    logging.getLogger().addHandler(handler)
    monkeypatch.setattr(logging.getLogger(), "level", logging.DEBUG)

    def script(body: dict[str, object], seen: int) -> Reply:
        text = str(body["messages"][-1]["content"])  # type: ignore[index]
        if "item 0;" in text or "item 1;" in text:
            return Reply(status=500, error_message=f"upstream failed for key {key}")  # echoed in full
        if "Headline" in text:
            return Reply(text="no tags at all")  # malformed twice: rejected with raw text kept
        return Reply(text="fine")

    server = serve(script)
    role = remote_role(server, api_key_env=KEY_ENV, max_retries=1, max_failed_share=0.5)
    ledger = StageLedger("qgen")
    try:
        with LLMCache(tmp_path / "cache" / "llm.sqlite") as cache:
            results = run_requests(role, requests_for("secret", 4), cache, ledger)
            items = [
                TaskItem(
                    "art-1",
                    {
                        "article_title": "Headline",
                        "article_text": "Body.",
                        "publish_date": "2025-07-01",
                        "source": "example.com",
                        "n_questions": "1",
                    },
                )
            ]
            task_results = run_task(role, QGEN.name, items, cache, ledger, PROMPTS_DIR)
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()

    assert all(auth == f"Bearer {key}" for auth in server.auth_headers)  # the key really was sent
    for failed in [r for r in results if not r.ok]:
        failed.reject_into(ledger, source="test")
    for failed_task in [r for r in task_results if not r.ok]:
        failed_task.reject_into(ledger, source="test")
    assert len(ledger.rejects) == 3
    ledger.items_in, ledger.items_out = 5, 2
    write_parquet(ledger.rejects_table(), tmp_path / "out" / "rejects.parquet")
    write_json(
        ledger.metrics() | {"details": [r.detail for r in ledger.rejects]}, tmp_path / "out" / "m.json"
    )
    assert "upstream failed" in (tmp_path / "out" / "m.json").read_text()  # the detail itself is kept

    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert log_file in files and any(path.suffix == ".sqlite" for path in files)
    needles = [key.encode(), key[8:].encode(), key[-12:].encode()]
    for path in files:
        data = path.read_bytes()
        assert not any(needle in data for needle in needles), f"key material in {path}"


def test_fatal_error_message_is_scrubbed(
    serve: Callable[..., LLMTestServer], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "sk-proj-" + secrets.token_hex(12)
    monkeypatch.setenv(KEY_ENV, key)
    server = serve(lambda body, seen: Reply(status=401, error_message=f"Incorrect API key provided: {key}"))
    with pytest.raises(LLMFatalError) as caught, LLMCache(tmp_path / "c.sqlite") as cache:
        run_requests(remote_role(server, api_key_env=KEY_ENV), requests_for("x", 1), cache)
    assert key not in str(caught.value) and key[8:] not in str(caught.value)
    assert "Incorrect API key" in str(caught.value)


def test_redact_patterns() -> None:
    assert redact("key sk-abc123def456 used") == "key [redacted] used"
    assert redact("Authorization: Bearer xyz.987") == "Authorization: [redacted]"
    assert redact('{"api_key": "hunter22"}') == '{"api_key": "[redacted]"}'
    assert redact("my secret is plainsecretvalue", ["plainsecretvalue"]) == "my secret is [redacted]"
