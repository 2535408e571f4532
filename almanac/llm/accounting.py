"""Token, cost and cache accounting per role, kept in the stage ledger's extra metrics.

Counters live in one flat mapping ``ledger.extra["llm"]`` with ``<role>.<counter>`` labels so that
worker ledgers merge by simple addition (see StageLedger.merge). Cost is an estimate from the
per-million-token prices in params. The tracked counters describe the answers (the same on every run of
the same inputs); what this run spent and found cached goes to the ledger's run counts and its seconds to
the timings (``llm.<role>``), both in the untracked run record, never in the tracked metrics.
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
    """Tracked metrics: what the answers the stage used are (requests, answers refused, and the tokens
    and estimated cost of producing the good answers, whether this run asked for them or found them in
    the cache): the same on every run of the same inputs. This run's own work (cache hits and misses,
    calls, HTTP attempts, retries, tokens and cost spent now) goes to the untracked run record."""
    name = role.name or role.model
    outcomes = list(outcomes)
    answered = [result for result in results if result.ok]
    prompt_tokens = sum(result.prompt_tokens for result in answered)
    completion_tokens = sum(result.completion_tokens for result in answered)
    tracked: dict[str, float] = {
        "requests": len(results),
        "refused": len(results) - len(answered),  # no usable answer: transport or content failure
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "cost_usd": cost_usd(role, prompt_tokens, completion_tokens),
    }
    spent_prompt = sum(outcome.prompt_tokens for outcome in outcomes)
    spent_completion = sum(outcome.completion_tokens for outcome in outcomes)
    this_run: dict[str, float] = {
        "cache_hits": sum(1 for result in results if result.cached and result.ok),
        "cache_misses": sum(1 for result in results if not result.cached),
        "cached_failures": sum(1 for result in results if result.cached and not result.ok),
        "calls": len(outcomes),
        "http_attempts": sum(outcome.attempts for outcome in outcomes) if role.backend == "openai" else 0,
        "retries": sum(max(0, outcome.attempts - 1) for outcome in outcomes) if not role.batch else 0,
        "failed_calls": sum(1 for outcome in outcomes if outcome.error),
        # Waits a server's Retry-After imposed, and how many asked for more than max_retry_after_s.
        "retry_after_s": sum(outcome.retry_after_s for outcome in outcomes),
        "retry_after_capped": sum(outcome.retry_after_capped for outcome in outcomes),
        "spent_prompt_tokens": spent_prompt,
        "spent_completion_tokens": spent_completion,
        "spent_cost_usd": cost_usd(role, spent_prompt, spent_completion),
    }
    for counter, amount in tracked.items():
        add_metric(ledger, f"{name}.{counter}", amount)
    for counter, amount in this_run.items():
        ledger.add_run_count(f"{METRICS_KEY}.{name}.{counter}", amount)
    ledger.add_time(f"{METRICS_KEY}.{name}", seconds)
