"""Split assignment: questions go to train / validation / test by the month they resolve in.

Three rules keep the test split clean: every train and validation month comes strictly before every
test month (checked on the config, and again on the data by ``guard_train_before_test``); a
source-disjoint test split (test keeps only the test outlets, the other splits drop them); and
cross-question leakage, where one question's text gives away the answer of another question of the
same split, which is dropped or flagged depending on the config.

Test outlets (OpenForesight tests on outlets it never trained on): ``test_sources`` when listed;
otherwise, with ``source_disjoint_test`` (the default), derived from the data by ``derive_test_sources``:
every outlet of the test months with no train/validation question, and, until they are at least
``test_source_share`` of the test months' outlets, the outlets that cost train and validation the fewest
questions (ties by name). A source-disjoint test on a corpus whose outlets publish every month therefore
takes questions away from train and validation; the funnel counts them (``test_source_in_train``).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from operator import itemgetter

import pyarrow as pa

from almanac.core.months import month_of, month_start, parse_month
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step, filter_step
from almanac.core.text import fold
from almanac.foresight.schema import QUESTION_SCHEMA

SPLITS = ("train", "validation", "test")
LEAKAGE_MODES = ("drop", "flag")
LEAK_FIELDS = ("question_title", "background", "resolution_criteria")
_LEAK_DETAIL_IDS = 5  # leaking question ids quoted in a reject's detail


@dataclass(frozen=True)
class SplitConfig:
    train_months: tuple[str, ...] = ()
    validation_months: tuple[str, ...] = ()
    test_months: tuple[str, ...] = ()
    # Source-disjoint test: when set, test keeps only these news_source values and train/validation drop them.
    test_sources: tuple[str, ...] = ()
    # Without a list: derive the test outlets from the data (derive_test_sources); false = no disjointness.
    source_disjoint_test: bool = True
    test_source_share: float = 0.5  # of the test months' outlets, at least, reserved for test
    cross_question_leakage: str = "drop"  # "drop" the revealed question, or "flag" it and keep it

    def __post_init__(self) -> None:
        owner: dict[str, str] = {}
        for split, months in self.months_by_split().items():
            for month in months:
                parse_month(month)
                if month in owner:
                    raise ValueError(f"split: month {month} is listed in both {owner[month]} and {split}")
                owner[month] = split
        if self.test_months:
            first_test = min(self.test_months)
            late = sorted(m for m in (*self.train_months, *self.validation_months) if m >= first_test)
            if late:
                raise ValueError(
                    f"split: train/validation months {late} are not strictly before the first test month "
                    f"{first_test}; a model trained on them could see the test answers"
                )
        if not 0.0 <= self.test_source_share <= 1.0:
            raise ValueError(f"split: test_source_share must be in [0, 1], got {self.test_source_share}")
        if self.cross_question_leakage not in LEAKAGE_MODES:
            raise ValueError(
                f"split: cross_question_leakage must be one of {LEAKAGE_MODES}, "
                f"got {self.cross_question_leakage!r}"
            )

    def months_by_split(self) -> dict[str, tuple[str, ...]]:
        return {"train": self.train_months, "validation": self.validation_months, "test": self.test_months}

    def test_start(self) -> date | None:
        """First day of the earliest test month (None without test months)."""
        return month_start(min(self.test_months)).date() if self.test_months else None


def derive_test_sources(
    months: Sequence[str | None], sources: Sequence[str], split_of_month: Mapping[str, str], share: float
) -> tuple[str, ...]:
    """The test outlets, from each question's resolution month and outlet (see the module docstring)."""
    candidates: set[str] = set()
    elsewhere: Counter[str] = Counter()
    for month, source in zip(months, sources, strict=True):
        split = split_of_month.get(month or "")
        if split == "test":
            candidates.add(source)
        elif split is not None:
            elsewhere[source] += 1
    ranked = sorted(candidates, key=lambda source: (elsewhere[source], source))
    natural = sum(1 for source in ranked if elsewhere[source] == 0)
    wanted = max(natural, math.ceil(share * len(ranked) - 1e-9))
    return tuple(sorted(ranked[:wanted]))


def cross_question_leaks(questions: Sequence[Mapping[str, str]]) -> dict[str, list[str]]:
    """Map each question B to the sorted ids of the other questions whose text contains B's answer.

    "Contains" means ``contains_phrase``: a whole-word match after case and diacritics folding. Rather
    than testing every pair, the folded word n-grams of all texts are looked up in the set of folded
    answers (starting only at words that begin some answer), so the cost grows with the total text
    length, not with the square of the number of questions.
    """
    answers = {row["question_id"]: fold(row["answer"]) for row in questions}
    needles = {answer for answer in answers.values() if answer}
    lengths_by_first_word: dict[str, set[int]] = defaultdict(set)
    for needle in needles:
        words = needle.split(" ")
        lengths_by_first_word[words[0]].add(len(words))

    holders: dict[str, set[str]] = defaultdict(set)  # folded answer -> ids of questions containing it
    for row in questions:
        for name in LEAK_FIELDS:
            # Each field on its own: a phrase must not match across the end of one field and the next.
            words = fold(row[name]).split()
            for start, word in enumerate(words):
                for length in lengths_by_first_word.get(word, ()):
                    phrase = word if length == 1 else " ".join(words[start : start + length])
                    if phrase in needles:
                        holders[phrase].add(row["question_id"])

    leaks: dict[str, list[str]] = {}
    for question_id, answer in answers.items():
        others = sorted(holders.get(answer, set()) - {question_id})
        if others:
            leaks[question_id] = others
    return leaks


def guard_train_before_test(
    table: pa.Table, test_start: date | None, ledger: StageLedger, *, chained: bool = False
) -> pa.Table:
    """Drop train/validation rows resolving on or after ``test_start``, with a reject row each.

    Validated month lists make this impossible; the guard checks the data itself so that a bug in the
    month logic (or a hand-edited file) cannot put test-period answers into training. ``chained``: the
    rows are the output of an earlier step of the same stage (see almanac.core.step).
    """
    if test_start is None or table.num_rows == 0:
        return table
    ids = table.column("question_id").to_pylist()
    splits = table.column("split").to_pylist()
    resolution = table.column("resolution_date").to_pylist()

    def check(index: int) -> Drop | None:
        split, resolved = splits[index], resolution[index]
        if split != "test" and resolved is not None and resolved >= test_start:
            return Drop(
                "train_resolves_after_test_start",
                f"{split} question resolves {resolved.isoformat()}, on or after the test start "
                f"{test_start.isoformat()}",
            )
        return None

    guard = filter_step(check, ids.__getitem__, ids.__getitem__)
    kept = apply_step(range(table.num_rows), guard, ledger, chained=chained)
    return table.take(pa.array(kept, type=pa.int64()))


def assign_splits(questions: pa.Table, config: SplitConfig, ledger: StageLedger) -> pa.Table:
    """Set ``split`` (and ``cross_question_leak``) on dated questions; every dropped row is a reject.

    Three steps on the stage's ledger, each taking the previous one's rows: the split by resolution
    month (and test sources), the train-before-test guard, cross-question leakage.
    """
    questions = questions.select(QUESTION_SCHEMA.names).cast(QUESTION_SCHEMA)
    split_of_month = {m: split for split, months in config.months_by_split().items() for m in months}
    ids = questions.column("question_id").to_pylist()
    resolution = questions.column("resolution_date").to_pylist()
    sources = questions.column("news_source").to_pylist()
    test_sources = set(config.test_sources)
    disjoint = bool(test_sources) or config.source_disjoint_test
    if not test_sources and config.source_disjoint_test:
        months = [month_of(day) if day is not None else None for day in resolution]
        test_sources = set(derive_test_sources(months, sources, split_of_month, config.test_source_share))
    for source in sorted(test_sources):  # the test outlets, each with its released test questions
        ledger.count("test_sources", source, 0)

    def assign(index: int) -> tuple[int, str] | Drop:
        split, reason, detail = _split_for(
            resolution[index], sources[index], split_of_month, test_sources if disjoint else None
        )
        return Drop(reason, detail) if split is None else (index, split)

    step = Step(assign, ids.__getitem__, ids.__getitem__)
    assigned = apply_step(range(questions.num_rows), step, ledger)
    table = questions.take(pa.array([index for index, _ in assigned], type=pa.int64()))
    splits = pa.array([split for _, split in assigned], type=pa.string())
    table = table.set_column(table.schema.get_field_index("split"), "split", splits)
    table = guard_train_before_test(table, config.test_start(), ledger, chained=True)
    table = _apply_cross_question_leakage(table, config.cross_question_leakage, ledger)

    table = table.sort_by(
        [("split", "ascending"), ("resolution_date", "ascending"), ("question_id", "ascending")]
    )
    for split in SPLITS:
        ledger.count("questions_by_split", split, 0)
    for split, source in zip(
        table.column("split").to_pylist(), table.column("news_source").to_pylist(), strict=True
    ):
        ledger.count("questions_by_split", split)
        if split == "test" and disjoint:
            ledger.count("test_sources", source)
    return table


def _split_for(
    resolved: date | None, source: str, split_of_month: Mapping[str, str], test_sources: set[str] | None
) -> tuple[str | None, str, str]:
    """(split, "", "") for a kept row, or (None, reason, detail) for a rejected one. ``test_sources``:
    None when the test split is not source-disjoint; an empty set keeps no test question."""
    if resolved is None:
        return None, "resolution_date_missing", "no resolution date; the dates stage should have rejected it"
    month = month_of(resolved)
    split = split_of_month.get(month)
    if split is None:
        return None, "resolution_month_not_in_splits", f"resolves in {month}, which no split lists"
    if test_sources is not None and split == "test" and source not in test_sources:
        return None, "source_not_in_test_sources", f"test question from {source}, not a test source"
    if test_sources is not None and split != "test" and source in test_sources:
        return None, "test_source_in_train", f"{split} question from test source {source}"
    return split, "", ""


def _apply_cross_question_leakage(table: pa.Table, mode: str, ledger: StageLedger) -> pa.Table:
    rows = table.select(["question_id", "split", "answer", *LEAK_FIELDS]).to_pylist()
    by_split: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        by_split[row["split"]].append(row)
    leaks: dict[str, list[str]] = {}
    for split_rows in by_split.values():
        leaks.update(cross_question_leaks(split_rows))
    ledger.extra["cross_question_leaks"] = ledger.extra.get("cross_question_leaks", 0) + len(leaks)

    leaked = [row["question_id"] in leaks for row in rows]
    if mode == "drop":
        # Every question revealed by another one of its split goes, even if the revealing question is
        # itself dropped: removing questions only removes leaks, so what remains is leak-free.
        def check(row: dict[str, str]) -> Drop | None:
            revealing = leaks.get(row["question_id"])
            if not revealing:
                return None
            shown = ", ".join(revealing[:_LEAK_DETAIL_IDS])
            more = (
                f" and {len(revealing) - _LEAK_DETAIL_IDS} more" if len(revealing) > _LEAK_DETAIL_IDS else ""
            )
            return Drop(
                "cross_question_leak",
                f"answer {row['answer']!r} appears in {len(revealing)} other {row['split']} "
                f"question(s): {shown}{more}",
                related_id=revealing[0],
            )

        get_id = itemgetter("question_id")
        apply_step(rows, filter_step(check, get_id, get_id), ledger, chained=True)
        table = table.filter(pa.array([not flag for flag in leaked], type=pa.bool_()))
        leaked = [False] * table.num_rows
    index = table.schema.get_field_index("cross_question_leak")
    return table.set_column(index, "cross_question_leak", pa.array(leaked, type=pa.bool_()))
