"""FutureSim's resolution-date repair loop over the released OpenForesight questions.

Each pass asks the answer role the question with retrieval capped at the question's current resolution
date, and for the earliest day its answer could be inferred. Only an answer the judge role finds equal
to the gold answer moves the date, and only earlier. A question whose date moved is asked again (capped
at the new date) in the next pass, up to ``passes``; one whose date did not move is settled. A question
whose repaired date falls before the start of its split's window is dropped
(``repaired_before_split_start``, FutureSim's "before January 1, 2026"), one whose repaired date is on
or before its start date likewise (``answer_known_at_start``: the answer was known when it opened).

This extends, and does not replace, ``foresight.dates.date_repair``: that one-shot check reads the
source article alone, per month, before the splits exist, and only rejects. This loop reads the whole
dated corpus and moves dates, on a copy of the released splits; the OpenForesight splits are the same
bytes whatever its params say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.futuresim.asking import Attempt, Roles, ask_capped
from almanac.futuresim.evidence import Retriever
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig

STAGE = "futuresim_repair"
Row = Mapping[str, Any]


@dataclass(frozen=True)
class RepairConfig:
    passes: int = 2  # FutureSim repeats the loop; 0 copies the released dates unchanged (no call)
    k: int = 5  # passages per search (FutureSim's search tool returns 5 chunks)
    max_chunk_chars: int = 2000  # each passage cut to this many characters in the prompt
    role: str = "editor"  # answers with retrieval and names the earliest inferable day
    judge_role: str = "validator"  # compares the answer with the gold answer

    def __post_init__(self) -> None:
        if self.passes < 0 or self.k < 1 or self.max_chunk_chars < 1:
            raise ValueError("futuresim.repair: passes must be >= 0, k and max_chunk_chars >= 1")


@dataclass
class _State:
    current: date
    moves: int = 0
    model: str | None = None
    outcome: Drop | None = None
    settled: bool = False


def repair_dates(
    rows: Sequence[Row],
    split_starts: Mapping[str, date],
    retriever: Retriever,
    config: RepairConfig,
    llm: LLMConfig,
    cache: LLMCache,
    evidence: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], StageLedger]:
    """Rows with a repaired ``resolution_date`` (the OpenForesight one is ``resolution_date_original``)."""
    ledger = StageLedger(STAGE)
    states = {str(row["question_id"]): _State(row["resolution_date"]) for row in rows}
    roles = Roles(config.role, config.judge_role)
    moved_by_pass: dict[str, int] = {}
    for number in range(1, config.passes + 1):
        asked = [row for row in rows if not states[str(row["question_id"])].settled]
        if not asked:
            break
        caps = [states[str(row["question_id"])].current for row in asked]
        attempts = ask_capped(
            asked, caps, f"repair_{number}", retriever, config.k, config.max_chunk_chars,
            roles, llm, cache, ledger, evidence,
        )  # fmt: skip
        moved = 0
        for row, attempt in zip(asked, attempts, strict=True):
            state = states[str(row["question_id"])]
            moved += _apply(state, row, attempt, split_starts[str(row["split"])])
        moved_by_pass[str(number)] = moved
        ledger.extra["passes_run"] = number
    ledger.extra.setdefault("passes_run", 0)
    ledger.extra["dates_moved_by_pass"] = moved_by_pass
    ledger.extra["still_moving_after_last_pass"] = sum(1 for state in states.values() if not state.settled)

    def decide(row: Row) -> dict[str, Any] | Drop:
        state = states[str(row["question_id"])]
        if state.outcome is not None:
            return state.outcome
        return {
            **row,
            "resolution_date": state.current,
            "resolution_date_original": row["resolution_date"],
            "repair_moves": state.moves,
            "repair_model": state.model,
            "answerability_model": None,
        }

    kept = apply_step(rows, Step(decide, _question_id, _source), ledger)
    ledger.extra["dates_moved"] = sum(1 for row in kept if row["repair_moves"])
    return kept, ledger


def _apply(state: _State, row: Row, attempt: Attempt | Drop, split_start: date) -> int:
    """Fold one pass's attempt into the question's state; 1 when it moved the date."""
    if isinstance(attempt, Drop):
        state.outcome, state.settled = attempt, True
        return 0
    state.model = attempt.model
    earliest = attempt.answer.earliest_date
    if not attempt.correct or earliest is None or earliest >= state.current:
        state.settled = True  # a wrong answer, or no earlier day: the date stands
        return 0
    state.current, state.moves = earliest, state.moves + 1
    if earliest < split_start:
        state.outcome = Drop(
            "repaired_before_split_start",
            f"answer inferable on {earliest} (pass {state.moves}), before the {row['split']} split starts "
            f"({split_start}); resolution date was {row['resolution_date']}",
        )
    elif earliest <= row["question_start_date"]:
        state.outcome = Drop(
            "answer_known_at_start",
            f"answer inferable on {earliest}, on or before the question opens ({row['question_start_date']})",
        )
    state.settled = state.outcome is not None
    return 1


def _question_id(row: Row) -> str:
    return str(row["question_id"])


def _source(row: Row) -> str:
    return f"article:{row['article_id']}"
