"""run_requests against the loopback server: retries, failures, cache reuse, concurrency, pacing."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from almanac.core.rejects import StageLedger
from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from almanac.llm.transport import LLMFatalError
from tests.llm.conftest import message, remote_role, requests_for, with_fields
from tests.support.llm_server import LLMTestServer, Reply
from tests.support.terminal import fake_terminal

Serve = Callable[..., LLMTestServer]


def fail_first(times: int, failure: Reply) -> Callable[[dict[str, Any], int], Reply]:
    def script(body: dict[str, Any], seen: int) -> Reply:
        if seen <= times:
            return failure
        return Reply(text="answer to " + body["messages"][-1]["content"])

    return script


@pytest.mark.parametrize(
    "failure",
    [
        Reply(status=429, headers={"Retry-After": "0"}),
        Reply(status=500),
        Reply(status=503),
        Reply(drop=True),
        Reply(status=200, raw_body=b"{not json"),
    ],
    ids=["429", "500", "503", "connection-drop", "malformed-body"],
)
def test_transient_failures_are_retried_until_success(serve: Serve, cache: LLMCache, failure: Reply) -> None:
    server = serve(fail_first(2, failure))
    ledger = StageLedger("qgen")
    results = run_requests(remote_role(server), requests_for("retry", 3), cache, ledger)
    assert [r.ok for r in results] == [True, True, True]
    assert results[1].text == "answer to retry item 1;"
    assert [server.count(message("retry", i)) for i in range(3)] == [3, 3, 3]
    assert all(r.attempts == 3 for r in results)
    assert ledger.run_counts["llm.generator.retries"] == 6
    assert ledger.run_counts["llm.generator.http_attempts"] == 9
    assert "generator.retries" not in ledger.extra["llm"]  # this run's work, not the data: untracked


def test_timeout_is_retried(serve: Serve, cache: LLMCache) -> None:
    server = serve(fail_first(1, Reply(delay_s=1.5)))
    results = run_requests(remote_role(server, timeout_s=0.4), requests_for("slow", 2), cache)
    assert all(r.ok for r in results)
    assert server.count(message("slow", 0)) == 2


def test_retry_after_is_honoured(serve: Serve, cache: LLMCache) -> None:
    arrivals: list[float] = []

    def script(body: dict[str, Any], seen: int) -> Reply:
        arrivals.append(time.monotonic())
        return Reply(status=429, headers={"Retry-After": "0.6"}) if seen == 1 else Reply(text="fine")

    server = serve(script)
    results = run_requests(remote_role(server, max_concurrency=1), requests_for("wait", 1), cache)
    assert results[0].ok
    # The backoff alone (base 0.01 s, cap 0.05 s) would retry at once; the header sets the floor.
    assert arrivals[1] - arrivals[0] >= 0.55


def test_retry_budget_exhaustion_becomes_a_reject_row(serve: Serve, cache: LLMCache) -> None:
    server = serve(
        lambda body, seen: Reply(status=500) if "item 1;" in body["messages"][-1]["content"] else Reply()
    )
    ledger = StageLedger("validate")
    ledger.items_in = 3
    role = remote_role(server, max_retries=2, max_failed_share=0.5)  # 1 of 3 may fail on transport
    results = run_requests(role, requests_for("budget", 3), cache, ledger)
    assert [r.ok for r in results] == [True, False, True]
    failed = results[1]
    assert failed.error == "llm_retries_exhausted" and failed.text == "" and "HTTP 500" in failed.detail
    assert server.count(message("budget", 1)) == 3  # first attempt + max_retries
    for result in results:
        if result.ok:
            ledger.items_out += 1
        else:
            result.reject_into(ledger, source="article-1")
    ledger.check_balance()
    rows = ledger.rejects_table().to_pylist()
    assert [(row["id"], row["reason"]) for row in rows] == [("budget-1", "llm_retries_exhausted")]
    assert ledger.extra["llm"]["generator.refused"] == 1
    assert ledger.run_counts["llm.generator.failed_calls"] == 1
    assert len(cache) == 2  # the failure is not cached, so a later run asks again
    # The rerun sends only that one call; it fails again, which a share of 1.0 tolerates.
    run_requests(with_fields(role, max_retries=0, max_failed_share=1.0), requests_for("budget", 3), cache)
    assert server.count(message("budget", 1)) == 4 and server.count(message("budget", 0)) == 1


def test_client_errors_are_not_retried(serve: Serve, cache: LLMCache) -> None:
    server = serve(lambda body, seen: Reply(status=400, error_message="context too long"))
    # A share of 1: one refusal of one request would otherwise stop the run (test_failure_kinds.py).
    results = run_requests(remote_role(server, max_failed_share=1.0), requests_for("bad", 1), cache)
    assert results[0].error == "llm_http_400" and server.chat_requests == 1


def test_bad_credentials_stop_the_stage(serve: Serve, cache: LLMCache) -> None:
    server = serve(lambda body, seen: Reply(status=401, error_message="invalid key"))
    with pytest.raises(LLMFatalError, match="401"):
        run_requests(remote_role(server), requests_for("auth", 5), cache)


def test_rerun_makes_zero_requests(serve: Serve, tmp_path: Path) -> None:
    server = serve(lambda body, seen: Reply(text="A:" + body["messages"][-1]["content"], prompt_tokens=100))
    role = remote_role(server, price_per_1m_input=2.0, price_per_1m_output=8.0)
    first_ledger = StageLedger("qgen")
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        first = run_requests(role, requests_for("again", 10), cache, first_ledger)
    assert server.chat_requests == 10
    assert first_ledger.extra["llm"]["generator.cost_usd"] == pytest.approx((1000 * 2.0 + 70 * 8.0) / 1e6)
    second_ledger = StageLedger("qgen")
    with LLMCache(tmp_path / "llm.sqlite") as cache:  # a new process would open it afresh
        second = run_requests(role, requests_for("again", 10), cache, second_ledger)
    assert server.chat_requests == 10
    assert [r.text for r in second] == [r.text for r in first] and all(r.cached for r in second)
    run = second_ledger.run_counts
    assert (run["llm.generator.cache_hits"], run["llm.generator.cache_misses"]) == (10, 0)
    assert run["llm.generator.spent_cost_usd"] == 0.0  # nothing was paid for this time
    # The tracked metrics describe the answers, not the run: the same bytes cold or warm.
    assert second_ledger.extra["llm"] == first_ledger.extra["llm"]
    # A change of sampling parameters is a different question: it must miss.
    run_requests(
        with_fields(role, temperature=0.7), requests_for("again", 2), LLMCache(tmp_path / "llm.sqlite")
    )
    assert server.chat_requests == 12


def test_progress_counts_cached_answers_and_time_stays_out_of_the_metrics(
    serve: Serve, cache: LLMCache, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = fake_terminal(monkeypatch)
    server = serve()
    ledger = StageLedger("qgen")
    run_requests(remote_role(server), requests_for("bar", 2), cache, ledger)
    assert "llm generator:   0%|" in terminal.getvalue() and "0/2" in terminal.getvalue()  # none cached yet
    terminal.truncate(0)
    terminal.seek(0)
    # Two of three answers are in the cache: the bar starts at 2 of 3 before the one call is made.
    run_requests(remote_role(server), requests_for("bar", 3), cache, ledger)
    assert "llm generator:  67%|" in terminal.getvalue() and "2/3" in terminal.getvalue()
    assert server.chat_requests == 3
    assert "generator.seconds" not in ledger.extra["llm"] and set(ledger.timings) == {"llm.generator"}


def test_identical_requests_share_one_call(serve: Serve, cache: LLMCache) -> None:
    server = serve()
    duplicated = requests_for("same", 1) * 5
    results = run_requests(remote_role(server), duplicated, cache)
    assert len(results) == 5 and server.chat_requests == 1


def test_concurrency_is_bounded_and_used(serve: Serve, cache: LLMCache) -> None:
    server = serve(latency_s=0.05)
    run_requests(remote_role(server, max_concurrency=4), requests_for("conc", 24), cache)
    assert server.max_in_flight == 4


def test_requests_per_minute_pacing(serve: Serve, cache: LLMCache) -> None:
    server = serve()
    started = time.monotonic()
    run_requests(remote_role(server, requests_per_minute=300), requests_for("rpm", 15), cache)
    # 5 per second with a one-second burst of 5: the other 10 need at least 2 s.
    assert time.monotonic() - started >= 1.9


def test_extra_params_reach_the_server(serve: Serve, cache: LLMCache) -> None:
    server = serve()
    role = remote_role(server, temperature=0.3, max_tokens=77, extra={"top_p": 0.9, "seed": 7})
    run_requests(role, requests_for("extra", 1), cache)
    body = server.chat_bodies[0]
    assert (body["model"], body["temperature"], body["max_tokens"], body["top_p"], body["seed"]) == (
        "test-model",
        0.3,
        77,
        0.9,
        7,
    )
