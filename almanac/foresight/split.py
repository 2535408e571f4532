"""Split assignment: questions go to train / validation / test by the month they resolve in.

Three rules keep the test split clean: every train and validation month comes strictly before every
test month (checked on the config, and again on the data by ``guard_train_before_test``); an optional
source-disjoint test split (test keeps only the listed outlets, the other splits drop them); and
cross-question leakage, where one question's text gives away the answer of another question of the
same split, which is dropped or flagged depending on the config.
"""

from __future__ import annotations

from collections import defaultdict
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
    test_sources = set(config.test_sources)
    ids = questions.column("question_id").to_pylist()
    resolution = questions.column("resolution_date").to_pylist()
    sources = questions.column("news_source").to_pylist()

    def assign(index: int) -> tuple[int, str] | Drop:
        split, reason, detail = _split_for(resolution[index], sources[index], split_of_month, test_sources)
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
    for split in table.column("split").to_pylist():
        ledger.count("questions_by_split", split)
    return table


def _split_for(
    resolved: date | None, source: str, split_of_month: Mapping[str, str], test_sources: set[str]
) -> tuple[str | None, str, str]:
    """(split, "", "") for a kept row, or (None, reason, detail) for a rejected one."""
    if resolved is None:
        return None, "resolution_date_missing", "no resolution date; the dates stage should have rejected it"
    month = month_of(resolved)
    split = split_of_month.get(month)
    if split is None:
        return None, "resolution_month_not_in_splits", f"resolves in {month}, which no split lists"
    if test_sources and split == "test" and source not in test_sources:
        return None, "source_not_in_test_sources", f"test question from {source}, not a test source"
    if test_sources and split != "test" and source in test_sources:
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
