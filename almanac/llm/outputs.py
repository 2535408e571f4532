"""Output schemas of the question-pipeline tasks and their strict parsers.

Each parser takes the model's text and the request's template variables (some checks need them, e.g.
the number of candidates) and returns a frozen record or raises :class:`ParseError`. The offline
baseline writes the same text format, so both paths pass through exactly these parsers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from almanac.llm.parsing import (
    ParseError,
    choice,
    collapse,
    find_tags,
    iso_date_or_unknown,
    one_tag,
    optional_tag,
)

QUESTION_FIELDS = (
    "question_title",
    "background",
    "resolution_criteria",
    "answer",
    "answer_type",
    "question_start_date",
    "resolution_date",
)
VALIDATION_CRITERIA = (
    "forward_looking",
    "resolved_by_article",
    "short_answer",
    "non_numeric",
    "single_answer",
)
_ANSWER_TYPE = re.compile(r"^(string|numeric)\s*\(\s*([^()]+?)\s*\)$", re.IGNORECASE)


@dataclass(frozen=True)
class GeneratedQuestion:
    question_title: str
    background: str
    resolution_criteria: str
    answer: str
    answer_type: str  # "string (name)", "numeric (integer)", ...
    # As written (whitespace collapsed): "2025-07-14", "July 2025", "unknown", ... The question stages
    # read them as a day, month or year and reject the one candidate they cannot read.
    question_start_date: str
    resolution_date: str


@dataclass(frozen=True)
class UnusableCandidate:
    """One candidate block of a reply that fails a format check; the reply's other blocks still count.

    ``question`` holds what the block has (missing fields empty), so the stage can file a reject
    naming the candidate; ``reason`` is ``candidate_malformed``.
    """

    question: GeneratedQuestion
    reason: str
    detail: str


@dataclass(frozen=True)
class ValidationVerdict:
    valid: bool
    failed_criteria: tuple[str, ...]  # subset of VALIDATION_CRITERIA, empty iff valid
    reasons: str


@dataclass(frozen=True)
class BestChoice:
    index: int | None  # position in the candidate list, None = no candidate is good enough
    reasons: str


@dataclass(frozen=True)
class LeakageEdit:
    leak_found: bool
    background: str
    resolution_criteria: str


@dataclass(frozen=True)
class DateRepair:
    earliest_date: str  # YYYY-MM-DD or "unknown"
    evidence: str


def _multiline(text: str) -> str:
    """Whitespace inside each line collapsed, blank lines dropped (criteria are often bullet lists)."""
    return "\n".join(collapse(line) for line in text.splitlines() if line.strip())


def parse_answer_type(value: str) -> str:
    """The parser's format check ("kind (detail)", lower-cased); classification happens in a later stage."""
    match = _ANSWER_TYPE.match(collapse(value))
    if not match:
        raise ParseError(
            f"answer_type must look like 'string (name)' or 'numeric (integer)', got {value[:40]!r}"
        )
    return f"{match.group(1).lower()} ({match.group(2).lower()})"


def _parse_candidate(block: str, number: int) -> GeneratedQuestion | UnusableCandidate:
    values = {name: optional_tag(block, name) if _single(block, name) else "" for name in QUESTION_FIELDS}
    try:
        for name in QUESTION_FIELDS:
            one_tag(block, name)  # present exactly once and not empty
        values["answer_type"] = parse_answer_type(values["answer_type"])
    except ParseError as error:
        partial = {name: collapse(value) for name, value in values.items()}
        return UnusableCandidate(
            GeneratedQuestion(**partial), "candidate_malformed", f"question {number}: {error}"
        )
    values = {
        name: _multiline(value) if name == "resolution_criteria" else collapse(value)
        for name, value in values.items()
    }
    return GeneratedQuestion(**values)


def _single(block: str, name: str) -> bool:
    return len(set(find_tags(block, name))) <= 1


def parse_questions(text: str, variables: Mapping[str, str]) -> list[GeneratedQuestion | UnusableCandidate]:
    """Each ``<question>`` block parsed on its own: a malformed block never costs its siblings.

    Dates are kept as written; the question stages read them (a month-only deadline is fine there,
    "unknown" rejects that one candidate). The whole reply is an error (and gets a repair round)
    only when it has no block at all or every block is malformed.
    """
    blocks = find_tags(text, "question")
    if not blocks and find_tags(text, "no_question"):
        return []  # the article supports no question: an explicit, valid answer
    if not blocks:
        raise ParseError("no <question>...</question> block (or <no_question>reason</no_question>) found")
    limit = int(variables.get("n_questions", "0") or 0) or len(blocks)
    candidates = [_parse_candidate(block, number) for number, block in enumerate(blocks[:limit], start=1)]
    if all(isinstance(candidate, UnusableCandidate) for candidate in candidates):
        problems = "; ".join(c.detail for c in candidates if isinstance(c, UnusableCandidate))
        raise ParseError(problems)
    return candidates


def parse_validation(text: str, variables: Mapping[str, str]) -> ValidationVerdict:
    del variables
    verdict = choice(one_tag(text, "verdict"), ("valid", "invalid"), "<verdict>")
    raw_failed = one_tag(text, "failed_criteria")
    failed: tuple[str, ...] = ()
    if raw_failed.strip().lower() != "none":
        names = [part for part in re.split(r"[\s,;]+", raw_failed.strip().lower()) if part]
        failed = tuple(choice(name, VALIDATION_CRITERIA, "<failed_criteria> entry") for name in names)
    if (verdict == "valid") != (not failed):
        raise ParseError(
            "<verdict> and <failed_criteria> disagree: 'valid' needs 'none', 'invalid' needs criteria"
        )
    return ValidationVerdict(
        verdict == "valid", tuple(sorted(set(failed))), collapse(optional_tag(text, "reasons"))
    )


def parse_best(text: str, variables: Mapping[str, str]) -> BestChoice:
    count = int(variables["n_candidates"])
    raw = one_tag(text, "best").strip().strip(".").lower()
    reasons = collapse(optional_tag(text, "reasons"))
    if raw == "none":
        return BestChoice(None, reasons)
    if not raw.isdigit() or int(raw) >= count:
        raise ParseError(
            f"<best> must be a candidate number from 0 to {count - 1} or 'none', got {raw[:20]!r}"
        )
    return BestChoice(int(raw), reasons)


def parse_leakage(text: str, variables: Mapping[str, str]) -> LeakageEdit:
    block = one_tag(text, "edited")
    leak = choice(one_tag(block, "leak_found"), ("yes", "no"), "<leak_found>") == "yes"
    if not leak:
        # Nothing was found, so nothing may change: keep the originals byte for byte.
        return LeakageEdit(False, variables["background"], variables["resolution_criteria"])
    return LeakageEdit(
        True, collapse(one_tag(block, "background")), _multiline(one_tag(block, "resolution_criteria"))
    )


def parse_date_repair(text: str, variables: Mapping[str, str]) -> DateRepair:
    del variables
    earliest = iso_date_or_unknown(one_tag(text, "earliest_date"), "<earliest_date>")
    return DateRepair(earliest, collapse(optional_tag(text, "evidence")))
