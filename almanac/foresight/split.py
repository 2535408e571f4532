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

import pyarrow as pa
import pyarrow.compute as pc

from almanac.core.months import month_of, month_start, parse_month
from almanac.core.rejects import StageLedger
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


def guard_train_before_test(table: pa.Table, test_start: date | None, ledger: StageLedger) -> pa.Table:
    """Drop train/validation rows resolving on or after ``test_start``, with a reject row each.

    Validated month lists make this impossible; the guard checks the data itself so that a bug in the
    month logic (or a hand-edited file) cannot put test-period answers into training. It records rejects
    only; the caller owns items_in / items_out.
    """
    if test_start is None or table.num_rows == 0:
        return table
    keep: list[bool] = []
    for question_id, split, resolved in zip(
        table.column("question_id").to_pylist(),
        table.column("split").to_pylist(),
        table.column("resolution_date").to_pylist(),
        strict=True,
    ):
        bad = split != "test" and resolved is not None and resolved >= test_start
        if bad:
            ledger.reject(
                question_id,
                "train_resolves_after_test_start",
                f"{split} question resolves {resolved.isoformat()}, on or after the test start "
                f"{test_start.isoformat()}",
                source=question_id,
            )
        keep.append(not bad)
    return table.filter(pa.array(keep, type=pa.bool_()))


def assign_splits(questions: pa.Table, config: SplitConfig, ledger: StageLedger) -> pa.Table:
    """Set ``split`` (and ``cross_question_leak``) on dated questions; every dropped row is a reject."""
    questions = questions.select(QUESTION_SCHEMA.names).cast(QUESTION_SCHEMA)
    ledger.items_in += questions.num_rows
    split_of_month = {m: split for split, months in config.months_by_split().items() for m in months}
    test_sources = set(config.test_sources)

    splits: list[str | None] = []
    for question_id, resolved, source in zip(
        questions.column("question_id").to_pylist(),
        questions.column("resolution_date").to_pylist(),
        questions.column("news_source").to_pylist(),
        strict=True,
    ):
        split, reason, detail = _split_for(resolved, source, split_of_month, test_sources)
        if reason:
            ledger.reject(question_id, reason, detail, source=question_id)
        splits.append(split)
    assigned = pa.array(splits, type=pa.string())
    table = questions.set_column(questions.schema.get_field_index("split"), "split", assigned)
    table = table.filter(pc.is_valid(assigned))
    table = guard_train_before_test(table, config.test_start(), ledger)
    table = _apply_cross_question_leakage(table, config.cross_question_leakage, ledger)

    table = table.sort_by(
        [("split", "ascending"), ("resolution_date", "ascending"), ("question_id", "ascending")]
    )
    ledger.items_out += table.num_rows
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
        for row in rows:
            revealing = leaks.get(row["question_id"])
            if revealing:
                shown = ", ".join(revealing[:_LEAK_DETAIL_IDS])
                more = (
                    f" and {len(revealing) - _LEAK_DETAIL_IDS} more"
                    if len(revealing) > _LEAK_DETAIL_IDS
                    else ""
                )
                ledger.reject(
                    row["question_id"],
                    "cross_question_leak",
                    f"answer {row['answer']!r} appears in {len(revealing)} other {row['split']} "
                    f"question(s): {shown}{more}",
                    source=row["question_id"],
                    related_id=revealing[0],
                )
        table = table.filter(pa.array([not flag for flag in leaked], type=pa.bool_()))
        leaked = [False] * table.num_rows
    index = table.schema.get_field_index("cross_question_leak")
    return table.set_column(index, "cross_question_leak", pa.array(leaked, type=pa.bool_()))
