"""Invariants of released FutureX-style tier questions (``data/futurex/tiers/level<N>.parquet``).

Rows are the tier files' records plus ``_file_level``. The checker also reads what the rows cite: the
released OpenForesight questions (Level 1 and 3 sources, Level 1 distractors), the cleaned GDELT quads
(Level 2 answers) and the answer-type filter's numeric rejects with that stage's input rows (Level 4).

The forecaster sees ``question``, ``background``, ``options`` and ``information_cutoff``. Options hold
the answer by design (Levels 1 and 2), so the answer scan reads the question and background; what the
options may not do is reveal anything unknown at the cut-off, so a Level-1 distractor must be a name that
was public by then (the answer of a generated OpenForesight candidate whose article was), nor single out
the gold by elimination (no option shares its words with another released question's answer). Rows come
only from material no released train/validation split holds: OpenForesight test questions, numeric
rejects of test months whose article no train/validation question used.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Final

from almanac.check.choices import futurex_tasks
from almanac.check.common import unique_ids
from almanac.check.dates import as_day
from almanac.check.report import StyleReport
from almanac.check.shortcuts import audit
from almanac.check.text import find_answer, fold, is_organisation, is_person, question_template

Row = Mapping[str, Any]
Checked = Iterator[tuple[str, str | None]]

PROMPT_FIELDS: Final = ("question", "background")
TIERS: Final = {1: "basic", 2: "wide_search", 3: "deep_search", 4: "super_agent"}


@dataclass(frozen=True)
class Sources:
    """What the rows cite, read from disk by the runner."""

    questions: Mapping[str, Row]  # released OpenForesight question_id -> row
    day_pairs: Mapping[str, Set[str]]  # content id of (date, subject, object) -> relations recorded
    numeric: Mapping[str, Row]  # question_id of a numeric answer_type reject -> its input row
    candidates: Mapping[str, Row] = field(default_factory=dict)  # foresight_qgen question_id -> row
    test_months: frozenset[str] = frozenset()  # foresight.split.test_months
    series: Mapping[str, Row] = field(default_factory=dict)  # series question_id -> released numeric row


def check_futurex(
    rows: Sequence[Row],
    sources: Sources,
    max_per_source_day: int,
    scope: str = "all",
    max_per_template: int = 0,
) -> StyleReport:
    report = StyleReport("futurex", scope, rows=len(rows))
    report.check("ids_unique", "question_id unique across the tiers", unique_ids(rows, "question_id"))
    report.check("level_matches_file", "a row's level and tier name are those of its file", _level(rows))
    shape = "L1: 2-3 options, one answer among them; L2: >= 2 answers, all options, a distractor; L3/L4: no "
    report.check("tier_shape", shape + "options; L4: a value, a unit and sigma > 0", _shape(rows))
    report.check("cutoff_before_resolution", "information cut-off < resolution date", _cutoff(rows))
    report.check("answer_not_in_prompt", "no answer or alias in the question or background", _no_leak(rows))
    report.check(
        "distractors_public_by_cutoff",
        "each Level-1 distractor answers an unreleased generated candidate public by the cut-off",
        _distractors(rows, sources),
    )
    report.check(
        "level1_not_by_elimination",
        "no Level-1 option (gold included) shares its words with another released question's answer",
        _elimination(rows, sources.questions),
    )
    report.check(
        "candidates_not_in_training",
        "rows come from OpenForesight test questions or test-month numeric rejects, no training article",
        _test_only(rows, sources),
    )
    report.check(
        "sources_traceable",
        "each row's answer and dates are those of the row it cites",
        _traced(rows, sources),
    )
    report.check(
        "open_answers_not_options",
        "no Level-3 or Level-4 answer is shown as an option of another question",
        _open_in_options(rows),
    )
    report.check("one_tier_per_source", "a source question or day-pair is released once", _once(rows))
    report.check(
        "source_day_cap",
        "at most futurex.filter.max_per_source_day per (source, day)",
        _cap(rows, max_per_source_day),
    )
    report.check(
        "template_cap",
        "at most futurex.filter.max_per_template per (source, day, question template)",
        _template_cap(rows, max_per_template),
    )
    # Level 1 only: Level 2 has several right options, Levels 3-4 none (almanac.check.choices).
    shortcuts = audit(futurex_tasks(rows))
    report.check(
        "shortcut_baselines", "no no-knowledge baseline above chance + 10% (Level 1)", shortcuts.failures()
    )
    report.notes.extend(shortcuts.lines())
    report.extra["shortcut_baselines"] = [score.row() for score in shortcuts.scores]
    return report


def _level(rows: Sequence[Row]) -> Checked:
    for row in rows:
        level = row.get("level")
        bad = level != row["_file_level"] or row.get("tier") != TIERS.get(int(level or 0))
        yield (
            row["question_id"],
            f"level {level} ({row.get('tier')}) in level{row['_file_level']}" if bad else None,
        )


def _shape(rows: Sequence[Row]) -> Checked:
    for row in rows:
        yield row["question_id"], _shape_problem(row)


def _shape_problem(row: Row) -> str | None:
    options, answers = list(row.get("options") or ()), list(row.get("answers") or ())
    level = row.get("level")
    if not answers:
        return "no answer"
    if len(set(options)) != len(options):
        return "an option repeats"
    if level == 1:
        if not 2 <= len(options) <= 3 or len(answers) != 1 or answers[0] not in options:
            return f"{len(options)} options, answers {answers}"
    elif level == 2:
        if len(answers) < 2 or not set(answers) <= set(options) or len(options) <= len(answers):
            return f"{len(answers)} answers in {len(options)} options"
    elif options:
        return f"open-ended level {level} has options"
    if level == 4:
        value, sigma = row.get("value"), row.get("sigma")
        if value is None or not row.get("unit") or sigma is None or not sigma > 0:
            return f"value {value}, unit {row.get('unit')!r}, sigma {sigma}"
    return None


def _cutoff(rows: Sequence[Row]) -> Checked:
    for row in rows:
        cutoff, resolution = as_day(row.get("information_cutoff")), as_day(row.get("resolution_date"))
        bad = cutoff is None or resolution is None or cutoff >= resolution
        yield row["question_id"], f"cut-off {cutoff}, resolution {resolution}" if bad else None


def _no_leak(rows: Sequence[Row]) -> Checked:
    for row in rows:
        found = None
        person = is_person(row.get("answer_class"), row.get("answer_type"))
        organisation = is_organisation(row.get("answer_class"), row.get("answer_type"))
        for answer in [*(row.get("answers") or ()), *(row.get("aliases") or ())]:
            for name in PROMPT_FIELDS:
                text = row.get(name) if isinstance(row.get(name), str) else ""
                how = find_answer(str(answer), str(text), person, organisation)
                if how is not None:
                    found = f"{name}: {answer!r} ({how})"
                    break
            if found:
                break
        yield row["question_id"], found


def _distractors(rows: Sequence[Row], sources: Sources) -> Checked:
    for row in rows:
        if row.get("level") != 1:
            continue
        yield row["question_id"], _distractor_problem(row, sources)


def _distractor_problem(row: Row, sources: Sources) -> str | None:
    cutoff = as_day(row.get("information_cutoff"))
    cited_sources = list(row.get("distractor_sources") or ())
    answer = fold(str((row.get("answers") or [""])[0]))
    shown = sorted(fold(str(option)) for option in row.get("options") or () if fold(str(option)) != answer)
    if shown != sorted(fold(str(source["answer"])) for source in cited_sources):
        return "the options other than the answer are not the cited distractors"
    for source in cited_sources:
        question_id = str(source["question_id"])
        cited = sources.candidates.get(question_id)
        if cited is None or fold(str(cited["answer"])) != fold(str(source["answer"])):
            return f"distractor {source['answer']!r} is not the answer of generated candidate {question_id}"
        if question_id in sources.questions:
            return f"distractor {source['answer']!r} is the answer of released question {question_id}"
        public = as_day(cited.get("article_publish_date"))
        if cutoff is None or public is None or public > cutoff:
            return f"distractor {source['answer']!r} public {public}, after the cut-off {cutoff}"
    return None


def _words(answer: object) -> frozenset[str]:
    return frozenset(fold(str(answer)).split())


def _elimination(rows: Sequence[Row], questions: Mapping[str, Row]) -> Checked:
    released = [(question_id, _words(row["answer"])) for question_id, row in sorted(questions.items())]
    for row in rows:
        if row.get("level") != 1:
            continue
        found = None
        for option in row.get("options") or ():
            words = _words(option)
            for question_id, answer in released:
                if (
                    question_id != row.get("source_id")
                    and words
                    and answer
                    and (words <= answer or answer <= words)
                ):
                    found = f"option {option!r} ~ the answer of released question {question_id}"
                    break
            if found:
                break
        yield row["question_id"], found


def _test_only(rows: Sequence[Row], sources: Sources) -> Checked:
    training_urls = {str(q.get("url")) for q in sources.questions.values() if q.get("split") != "test"}
    for row in rows:
        origin, source_id = row.get("origin"), str(row.get("source_id"))
        why = None
        if origin == "openforesight":
            split = (sources.questions.get(source_id) or {}).get("split")
            why = None if split == "test" else f"source question released in {split}"
        elif origin == "series":
            split = (sources.series.get(source_id) or {}).get("split")
            why = None if split == "test" else f"source series question released in {split}"
        elif origin == "numeric":
            cited = sources.numeric.get(source_id) or {}
            resolved = as_day(row.get("resolution_date"))
            month = f"{resolved:%Y-%m}" if resolved else None
            if month not in sources.test_months:
                why = f"resolves {resolved}, not in a test month"
            elif str(cited.get("url")) in training_urls:
                why = "its article is a train/validation question's"
        yield row["question_id"], why


def _traced(rows: Sequence[Row], sources: Sources) -> Checked:
    for row in rows:
        yield row["question_id"], _trace_problem(row, sources)


def _trace_problem(row: Row, sources: Sources) -> str | None:
    origin, source_id = row.get("origin"), str(row.get("source_id"))
    answers = list(row.get("answers") or ())
    cutoff, resolution = as_day(row.get("information_cutoff")), as_day(row.get("resolution_date"))
    if origin == "openforesight":
        cited = sources.questions.get(source_id)
        if cited is None:
            return f"no released OpenForesight question {source_id}"
        if answers != [cited["answer"]]:
            return f"answers {answers}, the question says {cited['answer']!r}"
        if cutoff != as_day(cited["question_start_date"]) or resolution != as_day(cited["resolution_date"]):
            return f"dates {cutoff}..{resolution} differ from the question's"
        return None
    if origin == "mirai":
        recorded = sources.day_pairs.get(source_id)
        codes = {str(answer).split()[0] for answer in answers}
        if recorded is None:
            return f"no cleaned GDELT day-pair {source_id}"
        return None if codes == set(recorded) else f"answers {sorted(codes)}, recorded {sorted(recorded)}"
    if origin == "numeric":
        cited = sources.numeric.get(source_id)
        if cited is None:
            return f"{source_id} is not a numeric validate or answer-type reject"
        published = as_day(cited.get("article_publish_date"))
        if answers != [cited["answer"]] or resolution != published:
            return f"answer {answers} / resolution {resolution} differ from {cited['answer']!r} / {published}"
        return None
    if origin == "series":
        return _series_trace(row, sources.series.get(source_id), answers, cutoff, resolution)
    return f"unknown origin {origin!r}"


def _series_trace(
    row: Row, cited: Row | None, answers: list[Any], cutoff: Any, resolution: Any
) -> str | None:
    """A Level-4 row from a series question: its answer, dates and (series_*) sigma are the question's."""
    if cited is None:
        return f"no released numeric series question {row.get('source_id')}"
    if answers != [cited["answer"]] or float(row.get("value") or 0) != float(cited["resolution_value"]):
        return f"answer {answers} / value {row.get('value')} differ from {cited['answer']!r}"
    if cutoff != as_day(cited["forecast_date"]) or resolution != as_day(cited["resolution_date"]):
        return f"dates {cutoff}..{resolution} differ from the question's"
    if str(row.get("sigma_source") or "").startswith("series_") and row.get("sigma") != cited.get("sigma"):
        return f"sigma {row.get('sigma')} is not the series question's {cited.get('sigma')}"
    return None


def _open_in_options(rows: Sequence[Row]) -> Checked:
    open_answers: dict[str, str] = {}
    for row in rows:
        if row.get("level") in (3, 4):
            for answer in row.get("answers") or ():
                open_answers.setdefault(fold(str(answer)), str(row["question_id"]))
    for row in rows:
        shown = [
            open_answers[fold(str(option))]
            for option in row.get("options") or ()
            if fold(str(option)) in open_answers
        ]
        others = [item for item in shown if item != row["question_id"]]
        yield row["question_id"], f"an option is the answer of open question {others[0]}" if others else None


def _once(rows: Sequence[Row]) -> Checked:
    counts = Counter((row.get("origin"), row.get("source_id")) for row in rows)
    for row in rows:
        count = counts[(row.get("origin"), row.get("source_id"))]
        yield (
            row["question_id"],
            f"source {row.get('source_id')} released {count} times" if count > 1 else None,
        )


def _cap(rows: Sequence[Row], cap: int) -> Checked:
    counts: Counter[tuple[Any, date | None]] = Counter(
        (row.get("news_source"), as_day(row.get("source_day"))) for row in rows
    )
    for row in rows:
        count = counts[(row.get("news_source"), as_day(row.get("source_day")))]
        over = cap > 0 and count > cap
        yield row["question_id"], f"{count} rows from {row.get('news_source')} that day" if over else None


def _template_cap(rows: Sequence[Row], cap: int) -> Checked:
    def key(row: Row) -> tuple[Any, date | None, str]:
        return (
            row.get("news_source"),
            as_day(row.get("source_day")),
            question_template(str(row.get("question"))),
        )

    counts = Counter(key(row) for row in rows)
    for row in rows:
        count = counts[key(row)]
        over = cap > 0 and count > cap
        yield row["question_id"], f"{count} rows of template {key(row)[2]!r} that day" if over else None
