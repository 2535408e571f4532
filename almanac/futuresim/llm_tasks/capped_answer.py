"""The ``futuresim_answer`` task: answer a question from passages published up to a cap day.

The role names its answer, a confidence and the earliest day the answer could be inferred. The reply
never sees the gold answer; a judge (``futuresim_answer_match``) compares it afterwards.

Offline baseline: every named entity of the passages that the question itself does not name is a
candidate; a candidate scores, per sentence naming it, the number of the question's content words in
that sentence. The best candidate is the answer (ties: the one reported first, then by name),
its confidence its share of all candidates' scores, and its earliest day the publish day of the first
passage naming it. No candidate with a positive score: ``unknown``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from almanac.core.nlp import parse
from almanac.core.text import contains_phrase, fold
from almanac.futuresim.evidence import Chunk, query_terms
from almanac.llm.parsing import ParseError, collapse, iso_date_or_unknown, one_tag
from almanac.llm.registry import Task, TaskItem, register

# spaCy labels of things a short-answer question asks for (names, places, organisations, ...).
ANSWER_LABELS = frozenset(
    {"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "WORK_OF_ART", "PRODUCT", "LAW"}
)
_EVIDENCE_LINE = re.compile(r"^\[(\d{4}-\d{2}-\d{2})\] (.*)$")
NO_EVIDENCE = "(no passage published by then matches the question)"


@dataclass(frozen=True)
class CappedAnswer:
    answer: str  # "unknown" when the passages do not settle the question
    confidence: float
    earliest_date: date | None


def evidence_text(chunks: Sequence[Chunk], max_chars: int) -> str:
    """One line per passage, ``[YYYY-MM-DD] text``, each cut to ``max_chars``."""
    lines = [
        f"[{chunk.publish_date.isoformat()}] {' '.join(chunk.text.split())[:max_chars]}" for chunk in chunks
    ]
    return "\n".join(lines) or NO_EVIDENCE


def capped_answer_item(
    item_id: str,
    question: Mapping[str, object],
    cap: date,
    chunks: Sequence[Chunk],
    max_chunk_chars: int,
) -> TaskItem:
    variables = {
        "question_title": str(question["question_title"]),
        "background": str(question["background"]),
        "answer_type": str(question["answer_type"]),
        "cap_date": cap.isoformat(),
        "evidence": evidence_text(chunks, max_chunk_chars),
    }
    return TaskItem(item_id, variables)


def parse_capped_answer(text: str, variables: Mapping[str, str]) -> CappedAnswer:
    answer = collapse(one_tag(text, "answer"))
    raw_confidence = one_tag(text, "confidence").strip().rstrip("%")
    try:
        confidence = float(raw_confidence)
    except ValueError:
        raise ParseError(f"<confidence> must be a number from 0 to 1, got {raw_confidence[:40]!r}") from None
    if confidence > 1 and one_tag(text, "confidence").strip().endswith("%"):
        confidence /= 100
    if not 0 <= confidence <= 1:
        raise ParseError(f"<confidence> must be between 0 and 1, got {confidence}")
    day = iso_date_or_unknown(one_tag(text, "date"), "<date>")
    earliest = None if day == "unknown" else date.fromisoformat(day)
    if answer.lower() == "unknown" or not answer:
        return CappedAnswer("unknown", 0.0, None)
    if earliest is not None and earliest > date.fromisoformat(variables["cap_date"]):
        earliest = None  # a day after the cap cannot come from the passages: it moves nothing
    return CappedAnswer(answer, confidence, earliest)


def read_evidence(evidence: str) -> list[tuple[date, str]]:
    """The ``(publish day, text)`` passages of an ``evidence`` variable."""
    passages = []
    for line in evidence.splitlines():
        found = _EVIDENCE_LINE.match(line)
        if found:
            passages.append((date.fromisoformat(found.group(1)), found.group(2)))
    return passages


def ranked_candidates(variables: Mapping[str, str], model: str) -> list[tuple[str, int, date]]:
    """The offline baseline's candidates (name, score, first day seen), best first; scores > 0 only."""
    question = f"{variables['question_title']} {variables['background']}"
    terms = set(query_terms(question))
    scores: dict[str, int] = {}
    names: dict[str, str] = {}
    first_seen: dict[str, date] = {}
    for day, text in read_evidence(variables["evidence"]):
        for sentence in parse(text, model).sents:
            overlap = len(terms & set(query_terms(sentence.text)))
            for ent in sentence.ents:
                key = fold(ent.text)
                if ent.label_ not in ANSWER_LABELS or not key or contains_phrase(question, ent.text):
                    continue
                names.setdefault(key, ent.text)
                scores[key] = scores.get(key, 0) + overlap
                first_seen[key] = min(first_seen.get(key, day), day)
    ranked = sorted((key for key in scores if scores[key] > 0), key=lambda k: (-scores[k], first_seen[k], k))
    return [(names[key], scores[key], first_seen[key]) for key in ranked]


def capped_answer(variables: Mapping[str, str], model: str) -> str:
    ranked = ranked_candidates(variables, model)
    if not ranked:
        return "<answer>unknown</answer>\n<confidence>0</confidence>\n<date>unknown</date>"
    name, score, first_seen = ranked[0]
    confidence = score / sum(candidate[1] for candidate in ranked)
    return (
        f"<answer>{name}</answer>\n<confidence>{confidence:.2f}</confidence>\n"
        f"<date>{first_seen.isoformat()}</date>"
    )


CAPPED_ANSWER = register(
    Task("futuresim_answer", item=capped_answer_item, parse=parse_capped_answer, offline=capped_answer)
)
