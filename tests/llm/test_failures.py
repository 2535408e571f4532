"""Failures that must stop a run with their real cause, and content failures the cache keeps.

Transport, auth and quota failures beyond ``max_failed_share`` of a run's calls raise LLMFatalError
naming what happened (connection refused is not "timed out"); content failures (an answer unreadable
after every retry, an empty answer, a 4xx for this request) are cached with their reason and never
sent again, while transport failures are asked again on the next run.
"""

from __future__ import annotations

import os
import re
import socket
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import openai
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.rejects import StageLedger
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from almanac.llm.tasks import MALFORMED, run_task
from almanac.llm.transport import LLMFatalError, transport_cause
from tests.llm.conftest import PROMPTS_DIR, message, remote_role, requests_for, with_fields
from tests.llm.test_tasks import article_items
from tests.support.llm_server import LLMTestServer, Reply

Serve = Callable[..., LLMTestServer]


def closed_port_url() -> str:
    """A loopback URL nothing listens on (the port was free a moment ago): connections are refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def test_refused_connection_stops_the_run_fast_and_says_so(cache: LLMCache) -> None:
    url = closed_port_url()
    started = time.monotonic()
    role = remote_role(url, max_concurrency=30, max_retries=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("down", 30), cache)
    assert time.monotonic() - started < 5  # refused in milliseconds, not a 120 s timeout
    pattern = r"llm role 'generator': \d+ of 30 calls failed( \(stopped early, \d+ not finished\))?: "
    assert re.fullmatch(pattern + re.escape(f"connection refused ({url})"), str(caught.value))
    with pytest.raises(LLMFatalError) as caught:  # a share that stops only at the last call: exact count
        run_requests(with_fields(role, max_failed_share=0.99), requests_for("down", 30), cache)
    assert str(caught.value) == f"llm role 'generator': 30 of 30 calls failed: connection refused ({url})"
    assert len(cache) == 0 and cache.failure_count() == 0  # nothing kept: the next run asks again


@pytest.mark.parametrize(
    ("reply", "cause"),
    [
        (Reply(delay_s=1.0), "timed out after 0.3 s"),
        (Reply(drop=True), "connection dropped by the server"),
        (Reply(status=503), "HTTP 503 server error"),
        (Reply(status=429, headers={"Retry-After": "0"}), "HTTP 429 rate limited"),
    ],
    ids=["timeout", "dropped", "5xx", "429-rate"],
)
def test_each_transport_failure_is_named_for_what_it_is(
    serve: Serve, cache: LLMCache, reply: Reply, cause: str
) -> None:
    server = serve(lambda body, seen: reply)
    role = remote_role(server, timeout_s=0.3, max_retries=1, max_concurrency=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("t", 2), cache)
    assert str(caught.value) == (
        f"llm role 'generator': 1 of 2 calls failed (stopped early, 1 not finished): {cause} ({server.url})"
    )
    assert server.chat_requests == 2  # the first call and its one retry; the second call never went


def test_dns_and_tls_causes_are_read_under_the_sdk_error() -> None:
    # The SDK's aiohttp transport wraps both in "Request timed out" (APITimeoutError); build that chain
    # by hand, as a DNS lookup would need the network.
    def wrapped(inner: BaseException) -> openai.APITimeoutError:
        error = openai.APITimeoutError(request=None)  # type: ignore[arg-type]
        error.__cause__ = inner
        return error

    dns = wrapped(socket.gaierror(-2, "Name or service not known"))
    assert transport_cause(dns, 120.0) == "DNS lookup failed (Name or service not known)"
    tls = ssl.SSLCertVerificationError(1, "certificate verify failed")
    tls.reason = "CERTIFICATE_VERIFY_FAILED"
    assert transport_cause(wrapped(tls), 120.0) == "TLS error (CERTIFICATE_VERIFY_FAILED)"
    assert transport_cause(wrapped(ConnectionRefusedError(111, "refused")), 120.0) == "connection refused"
    assert transport_cause(wrapped(TimeoutError()), 120.0) == "timed out after 120 s"


def test_failures_within_the_share_become_reject_rows_beyond_it_stop(serve: Serve, cache: LLMCache) -> None:
    def script(failing: set[int]) -> Callable[[dict[str, Any], int], Reply]:
        def answer(body: dict[str, Any], seen: int) -> Reply:
            text = body["messages"][-1]["content"]
            return Reply(status=500) if any(message("share", i) == text for i in failing) else Reply()

        return answer

    server = serve(script({3, 40}))
    role = remote_role(server, max_retries=0, max_concurrency=1, max_failed_share=0.02)
    results = run_requests(role, requests_for("share", 100), cache)  # 2 of 100 <= 2%: kept going
    assert [r.item_id for r in results if not r.ok] == ["share-3", "share-40"]
    server.script = script({3, 40, 100})
    with pytest.raises(
        LLMFatalError, match=r"1 of 3 calls failed \(stopped early, 2 not finished\): HTTP 500"
    ):
        # The rerun sends only the two failures plus one new request; the first failure is over 2% of 3.
        run_requests(role, requests_for("share", 101), cache)


def test_a_dead_endpoint_is_given_up_on_early(serve: Serve, cache: LLMCache) -> None:
    server = serve(lambda body, seen: Reply(status=503))
    role = remote_role(server, max_retries=0, max_concurrency=2)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("dead", 200), cache)
    # 2% of 200 = 4 may fail; the 5th stops the run, with at most one more call in flight.
    assert 5 <= server.chat_requests <= 6
    assert "of 200 calls failed (stopped early, " in str(caught.value)
    assert str(caught.value).endswith(f"not finished): HTTP 503 server error ({server.url})")


def test_wrong_key_is_one_clear_line(serve: Serve, cache: LLMCache, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ALMANAC_TEST_LLM_KEY", "sk-wrong-0123456789")
    server = serve(lambda body, seen: Reply(status=401, error_message="Incorrect API key provided"))
    role = remote_role(server, api_key_env="ALMANAC_TEST_LLM_KEY", max_concurrency=1)
    with pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests_for("key", 10), cache)
    text = str(caught.value)
    assert "\n" not in text and "0123456789" not in text
    assert text.startswith(
        f"llm role 'generator' (test-model at {server.url}): HTTP 401 unauthorized; "
        "check the key in $ALMANAC_TEST_LLM_KEY ["
    )
    assert server.chat_requests == 1  # the first refusal stops the run


def test_spent_quota_stops_at_once(serve: Serve, cache: LLMCache) -> None:
    server = serve(
        lambda body, seen: Reply(
            status=429, error_message="You exceeded your current quota (insufficient_quota)"
        )
    )
    with pytest.raises(LLMFatalError, match="HTTP 429 quota exceeded"):
        run_requests(remote_role(server, max_concurrency=1), requests_for("quota", 5), cache)
    assert server.chat_requests == 1  # not retried: waiting does not refill a quota


def test_content_failures_are_cached_transport_failures_are_asked_again(serve: Serve, tmp_path: Path) -> None:
    def script(body: dict[str, Any], seen: int) -> Reply:
        text = body["messages"][-1]["content"]
        if text == message("mix", 1):
            return Reply(raw_body=b"{not json")  # malformed every time: the server's fault, not cached
        if text == message("mix", 2):
            return Reply(status=500)
        if text == message("mix", 3):
            return Reply(text="")  # empty answer
        if text == message("mix", 4):
            return Reply(status=400, error_message="context too long")
        return Reply(text="fine")

    server = serve(script)
    role = remote_role(server, max_retries=2, max_failed_share=1.0)
    counts = lambda: [server.count(message("mix", i)) for i in range(5)]  # noqa: E731
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        first = run_requests(role, requests_for("mix", 5), cache)
        assert (len(cache), cache.failure_count()) == (1, 2)
    assert counts() == [1, 3, 3, 1, 1]
    assert [r.error for r in first] == [
        "",
        "llm_non_json_body",
        "llm_retries_exhausted",
        "llm_empty_response",
        "llm_http_400",
    ]
    ledger = StageLedger("qgen")
    with LLMCache(tmp_path / "llm.sqlite") as cache:  # a new run opens the cache afresh
        second = run_requests(role, requests_for("mix", 5), cache, ledger)
    assert counts() == [1, 6, 6, 1, 1]  # the server and transport failures were sent again
    assert [(r.error, r.cached) for r in second] == [
        ("", True),
        ("llm_non_json_body", False),
        ("llm_retries_exhausted", False),
        ("llm_empty_response", True),
        ("llm_http_400", True),
    ]
    assert "reply is not JSON" in second[1].detail and "context too long" in second[4].detail
    run = ledger.run_counts
    assert (run["llm.generator.cache_hits"], run["llm.generator.cached_failures"]) == (1, 2)
    assert (run["llm.generator.cache_misses"], run["llm.generator.calls"]) == (2, 2)
    assert ledger.extra["llm"]["generator.refused"] == 4  # two cached failures and two asked again
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        assert cache.forget_failures("echo") == 2
        run_requests(with_fields(role, max_retries=0), requests_for("mix", 5), cache)
    assert counts() == [1, 7, 7, 2, 2]  # forgotten: asked again


def test_batch_keeps_content_failures_and_resubmits_transport_ones(serve: Serve, tmp_path: Path) -> None:
    def script(body: dict[str, Any], seen: int) -> Reply:
        text = body["messages"][-1]["content"]
        if text == message("bat", 1):
            return Reply(status=400, error_message="context too long")
        if text == message("bat", 2):
            return Reply(status=500, error_message="model crashed")
        return Reply(text="fine")

    server = serve(script)
    role = remote_role(server, batch=True, batch_poll_s=0.01, max_failed_share=1.0)
    for _ in range(2):
        with LLMCache(tmp_path / "llm.sqlite") as cache:
            results = run_requests(role, requests_for("bat", 3), cache)
        assert [r.ok for r in results] == [True, False, False]
    assert [server.count(message("bat", i)) for i in range(3)] == [1, 1, 2]
    assert server.batch_creates == 2  # the second batch held only the 500


ROOT = Path(__file__).resolve().parents[2]
MONTH = "2025-05"


def write_one_article(path: Path) -> None:
    row: dict[str, Any] = {
        "id": "a1",
        "url": "https://news.example/a1",
        "source_domain": "news.example",
        "title": "Brennford wins",
        "text": "Brennford was chosen on Tuesday to host the 2027 Northern Games.",
        "publish_date": datetime(2025, 5, 20, tzinfo=UTC),
        "publish_month": MONTH,
    }
    defaults = {pa.string(): "x", pa.int32(): 0, pa.int64(): 0, pa.bool_(): False}
    for field in ARTICLE_SCHEMA:  # the rest of the schema, whatever it holds by now
        row.setdefault(field.name, None if field.nullable else defaults.get(field.type, "x"))
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([row], schema=ARTICLE_SCHEMA), path)


@pytest.mark.slow  # starts the stage as a process: ~5-10 s of imports each
@pytest.mark.parametrize("failure", ["refused", "bad-key"])
def test_stage_exits_non_zero_with_one_line_and_keeps_its_previous_outputs(
    serve: Serve, tmp_path: Path, failure: str
) -> None:
    if failure == "refused":
        url, key_env = closed_port_url(), ""
    else:
        url = serve(lambda body, seen: Reply(status=401, error_message="Incorrect API key provided")).url
        key_env = "ALMANAC_TEST_LLM_KEY"
    generator = {"backend": "openai", "model": "m", "base_url": url, "max_retries": 0, "api_key_env": key_env}
    params = {
        "llm": {
            "cache_path": str(tmp_path / "cache" / "llm.sqlite"),
            "prompts_dir": str(ROOT / "prompts"),
            "roles": {"generator": generator},
        }
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    write_one_article(tmp_path / "data" / "articles" / f"{MONTH}.parquet")
    previous = {
        tmp_path / "data" / "foresight" / "qgen" / f"{MONTH}.parquet": b"previous questions",
        tmp_path / "data" / "foresight" / "qgen" / f"{MONTH}.rejects.parquet": b"previous rejects",
        tmp_path / "reports" / "metrics" / "foresight_qgen" / f"{MONTH}.json": b"{}",
    }
    for path, content in previous.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ALMANAC_TEST_LLM_KEY": "sk-wrong-0123456789"}
    done = subprocess.run(
        [sys.executable, "-m", "stages.foresight_month", "--month", MONTH],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "0123456789" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    if failure == "refused":
        assert (
            last
            == f"foresight_qgen@{MONTH}: llm role 'generator': 1 of 1 calls failed: connection refused ({url})"
        )
    else:
        assert last.startswith(
            f"foresight_qgen@{MONTH}: llm role 'generator' (m at {url}): HTTP 401 unauthorized; "
            "check the key in $ALMANAC_TEST_LLM_KEY [HTTP 401: "
        )
    assert {path: path.read_bytes() for path in previous} == previous  # nothing written


def test_answer_malformed_after_the_repair_round_is_not_asked_again(serve: Serve, tmp_path: Path) -> None:
    # Guard for the README's claim (this already held before): both answers are cached like any other.
    server = serve(lambda body, seen: Reply(text="no tags at all"))
    for _ in range(2):
        with LLMCache(tmp_path / "llm.sqlite") as cache:
            [result] = run_task(remote_role(server), "qgen", article_items("bad"), cache, None, PROMPTS_DIR)
        assert result.error == MALFORMED
    assert server.chat_requests == 2  # one answer and one repair, in the first run only
