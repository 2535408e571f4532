"""Token, cost and cache accounting per role, kept in the stage ledger's extra metrics.

Counters live in one flat mapping ``ledger.extra["llm"]`` with ``<role>.<counter>`` labels so that
worker ledgers merge by simple addition (see StageLedger.merge). Cost is an estimate from the
per-million-token prices in params; cache hits cost nothing in this run and are counted apart. The
seconds spent go to the ledger's timings (``llm.<role>``), not to the tracked metrics.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from almanac.core.rejects import StageLedger
from almanac.llm.config import RoleConfig
from almanac.llm.request import LLMResult
from almanac.llm.transport import CallOutcome

METRICS_KEY = "llm"


def cost_usd(role: RoleConfig, prompt_tokens: int, completion_tokens: int) -> float:
    return (prompt_tokens * role.price_per_1m_input + completion_tokens * role.price_per_1m_output) / 1e6


def add_metric(ledger: StageLedger, label: str, amount: float) -> None:
    bucket = ledger.extra.setdefault(METRICS_KEY, {})
    bucket[label] = bucket.get(label, 0) + amount


def record_usage(
    ledger: StageLedger,
    role: RoleConfig,
    results: Sequence[LLMResult],
    outcomes: Iterable[CallOutcome],
    seconds: float,
) -> None:
    name = role.name or role.model
    outcomes = list(outcomes)
    prompt_tokens = sum(outcome.prompt_tokens for outcome in outcomes)
    completion_tokens = sum(outcome.completion_tokens for outcome in outcomes)
    attempts = sum(outcome.attempts for outcome in outcomes)
    counters: dict[str, float] = {
        "requests": len(results),
        "cache_hits": sum(1 for result in results if result.cached and result.ok),
        "cache_misses": sum(1 for result in results if not result.cached),
        "calls": len(outcomes),
        "http_attempts": attempts if role.backend == "openai" else 0,
        "retries": sum(max(0, outcome.attempts - 1) for outcome in outcomes) if not role.batch else 0,
        "failed": sum(1 for outcome in outcomes if outcome.error),
        # content failures a previous run stored: returned as rejects again, at no cost
        "cached_failures": sum(1 for result in results if result.cached and not result.ok),
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": round(cost_usd(role, prompt_tokens, completion_tokens), 6),
    }
    if not counters["cached_failures"]:
        del counters["cached_failures"]  # metrics of runs without any stay as they were
    for counter, amount in counters.items():
        add_metric(ledger, f"{name}.{counter}", amount)
    ledger.add_time(f"{METRICS_KEY}.{name}", seconds)
