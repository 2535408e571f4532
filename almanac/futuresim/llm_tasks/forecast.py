"""The ``futuresim_forecast`` task: up to five outcomes with probabilities for an open question.

Used by the replay environment's single-retrieval baseline agent. The role sees the question and the
passages one search returned on the simulated day, never the answer.

Offline baseline: the candidates of the ``futuresim_answer`` offline baseline (named entities of the
passages that the question does not name, scored by the question's words around them); the best five,
each with its share of all candidates' scores, so the probabilities sum to at most 1 and the rest is
"none of these". No candidate: no forecast (an empty outcome list).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from almanac.futuresim.evidence import Chunk
from almanac.futuresim.llm_tasks.capped_answer import evidence_text, ranked_candidates
from almanac.llm.parsing import ParseError
from almanac.llm.registry import Task, TaskItem, register

MAX_OUTCOMES = 5
_OUTCOME = re.compile(r"<outcome\s+p\s*=\s*\"?([0-9.]+)%?\"?\s*>(.*?)</outcome>", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class Outcomes:
    outcomes: tuple[tuple[str, float], ...]  # empty: the role gives no forecast


def forecast_item(
    item_id: str, question: Mapping[str, object], today: date, chunks: Sequence[Chunk], max_chunk_chars: int
) -> TaskItem:
    variables = {
        "question_title": str(question.get("question_title") or ""),
        "background": str(question.get("background") or ""),
        "resolution_criteria": str(question.get("resolution_criteria") or ""),
        "answer_type": str(question.get("answer_type") or ""),
        "resolution_date": str(question.get("resolution_date") or ""),
        "today": today.isoformat(),
        "evidence": evidence_text(chunks, max_chunk_chars),
    }
    return TaskItem(item_id, variables)


def parse_forecast(text: str, variables: Mapping[str, str]) -> Outcomes:
    del variables
    found: list[tuple[str, float]] = []
    seen: set[str] = set()
    for raw_p, raw_name in _OUTCOME.findall(text):
        name = " ".join(raw_name.split())
        probability = float(raw_p)
        if probability > 1:
            probability /= 100
        if not name or name.casefold() in seen or not 0 <= probability <= 1:
            raise ParseError(f"<outcome p=...> needs a name and p in [0, 1], distinct names; got {name!r}")
        seen.add(name.casefold())
        found.append((name, probability))
    if len(found) > MAX_OUTCOMES:
        raise ParseError(f"at most {MAX_OUTCOMES} <outcome> tags, got {len(found)}")
    total = sum(p for _, p in found)
    if total > 1.0 + 1e-6:
        raise ParseError(f"outcome probabilities sum to {total:.3f} > 1")
    return Outcomes(tuple(found))


def forecast(variables: Mapping[str, str], model: str) -> str:
    ranked = ranked_candidates(variables, model)
    total = sum(score for _, score, _ in ranked)
    lines = [f'<outcome p="{score / total:.4f}">{name}</outcome>' for name, score, _ in ranked[:MAX_OUTCOMES]]
    return "\n".join(lines) or "(no outcome: the passages name no candidate)"


FORECAST = register(Task("futuresim_forecast", item=forecast_item, parse=parse_forecast, offline=forecast))
