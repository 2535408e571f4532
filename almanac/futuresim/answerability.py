"""FutureSim's two-sided answerability filter over the date-repaired question set.

- **Stale / too easy**: asked with retrieval capped ``stale_lead_days`` before the (repaired)
  resolution date, the answer role gives the gold answer (as the judge role finds) with confidence at
  least ``stale_min_confidence``: the answer was public well before the question resolves
  (``answerable_too_early``; FutureSim: "answer confidently using search capped around June 2025").
- **Label noise**: asked with retrieval up to ``noise_lag_days`` after the resolution date, the role
  still does not give the gold answer: the label is likely wrong (``likely_label_noise``; FutureSim:
  "still fail ... even with full web search as of April 2026").

Stale questions are dropped first; only the rest are asked the second time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import partial
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.futuresim.asking import Attempt, Roles, ask_capped
from almanac.futuresim.evidence import Retriever
from almanac.futuresim.repair import Row
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig

STAGE = "futuresim_answerability"
# A round's judgement of one attempt at its cap: a Drop, or None to keep the question.
Verdict = Callable[["Attempt | Drop", Any], "Drop | None"]


@dataclass(frozen=True)
class AnswerabilityConfig:
    stale_check: bool = True
    stale_lead_days: int = 90  # retrieval cap this many days before the resolution date
    stale_min_confidence: float = 0.7  # a correct answer at least this sure is "answered confidently"
    noise_check: bool = True
    noise_lag_days: int = 30  # retrieval cap this many days after the resolution date
    k: int = 5
    max_chunk_chars: int = 2000
    role: str = "editor"
    judge_role: str = "validator"

    def __post_init__(self) -> None:
        if self.stale_lead_days < 1 or self.noise_lag_days < 0 or self.k < 1 or self.max_chunk_chars < 1:
            raise ValueError(
                "futuresim.answerability: stale_lead_days and k must be >= 1, noise_lag_days >= 0, "
                "max_chunk_chars >= 1"
            )
        if not 0 <= self.stale_min_confidence <= 1:
            raise ValueError("futuresim.answerability: stale_min_confidence must be between 0 and 1")


def filter_answerable(
    rows: Sequence[Row],
    retriever: Retriever,
    config: AnswerabilityConfig,
    llm: LLMConfig,
    cache: LLMCache,
    evidence: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], StageLedger]:
    ledger = StageLedger(STAGE)
    roles = Roles(config.role, config.judge_role)
    outcomes: dict[str, Drop] = {}
    models: dict[str, str] = {}

    def ask_round(asked: Sequence[Row], offset: timedelta, label: str, judge: Verdict) -> None:
        """Ask ``asked`` with retrieval capped at resolution date + ``offset``; record each verdict."""
        caps = [row["resolution_date"] + offset for row in asked]
        attempts = ask_capped(
            asked,
            caps,
            label,
            retriever,
            config.k,
            config.max_chunk_chars,
            roles,
            llm,
            cache,
            ledger,
            evidence,
        )
        for row, cap, attempt in zip(asked, caps, attempts, strict=True):
            _record(row, attempt, judge(attempt, cap), outcomes, models)

    if config.stale_check:
        stale = partial(_stale, min_confidence=config.stale_min_confidence)
        ask_round(rows, -timedelta(days=config.stale_lead_days), "stale", stale)
    if config.noise_check:
        unsettled = [row for row in rows if str(row["question_id"]) not in outcomes]
        ask_round(unsettled, timedelta(days=config.noise_lag_days), "noise", _noise)

    def decide(row: Row) -> dict[str, Any] | Drop:
        question_id = str(row["question_id"])
        if question_id in outcomes:
            return outcomes[question_id]
        return {**row, "answerability_model": models.get(question_id)}

    kept = apply_step(rows, Step(decide, lambda row: str(row["question_id"]), _source), ledger)
    return kept, ledger


def _stale(attempt: Attempt | Drop, cap: Any, min_confidence: float) -> Drop | None:
    if isinstance(attempt, Drop):
        return attempt
    if attempt.correct and attempt.answer.confidence >= min_confidence:
        return Drop(
            "answerable_too_early",
            f"answered {attempt.answer.answer!r} (confidence {attempt.answer.confidence:.2f}) "
            f"with news up to {cap}",
        )
    return None


def _noise(attempt: Attempt | Drop, cap: Any) -> Drop | None:
    if isinstance(attempt, Drop):
        return attempt
    if not attempt.correct:
        return Drop(
            "likely_label_noise",
            f"answered {attempt.answer.answer!r}, not the gold answer, with news up to {cap}",
        )
    return None


def _record(
    row: Row, attempt: Attempt | Drop, verdict: Drop | None, outcomes: dict[str, Drop], models: dict[str, str]
) -> None:
    question_id = str(row["question_id"])
    if isinstance(attempt, Attempt):
        models[question_id] = attempt.model
    if verdict is not None:
        outcomes[question_id] = verdict


def _source(row: Row) -> str:
    return f"article:{row['article_id']}"
