"""Release the task samples per split, re-checking on the data what the task builder promises.

An item is one sample of any task. A sample that breaks an invariant is a reject, never released:
``unknown_split`` / ``split_mismatch`` (its split is not the window of its cut day),
``duplicate_sample_id``, ``undated_event`` (an event shown or asked without a day, month or year),
``background_after_cut`` (a background event whose date interval does not end before T_k),
``background_names_late_date`` (a background event whose text names a day or month, such as "fixes 4 May
as polling day", that does not end before T_k: almanac.core.date_mentions, the year of a yearless date
taken from the event's own date),
``target_before_cut`` (a target whose interval starts before T_k), ``target_outside_window`` (a
target not wholly inside its split's window), ``inconsistent_options`` (MCNC/MCAC options not four,
or the recorded gold not where the index says), ``negative_is_true_event`` (an MCNC negative that
repeats an event of the sample), ``mcnc_sample_rejected`` (a VQA sample whose MCNC sample is not
released), ``vqa_label_mismatch`` (Yes without the gold event, No without one of its negatives) and
``complex_event_in_two_splits`` (every sample of a complex event whose samples would sit in more than
one split: one complex event, one split).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.date_mentions import dates_named
from almanac.core.io import atomic_dir, write_parquet
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import KEEP_ALL, Drop, GroupStep, apply_filter, apply_group_step
from almanac.core.text import fold
from almanac.events.cuts import SplitWindows, date_span
from almanac.events.samples import OPTION_LABELS, SAMPLE_SCHEMAS, SPLITS, TASKS, VQA_LABELS

STAGE = "event_split"


def split_samples(
    samples: Mapping[str, pa.Table], windows: SplitWindows
) -> tuple[dict[tuple[str, str], pa.Table], StageLedger]:
    """(split, task) -> released samples (every pair present, possibly empty) and the ledger."""
    ledger = StageLedger(STAGE)
    seen: dict[str, str] = {}
    released_mcnc: dict[str, Mapping[str, Any]] = {}

    def check(sample: tuple[str, dict[str, Any]]) -> Drop | None:
        task, row = sample
        problem = violation(row, task, windows, released_mcnc)
        if problem is None and row["sample_id"] in seen:
            problem = ("duplicate_sample_id", f"also a {seen[row['sample_id']]} sample")
        if problem is not None:
            related = row.get("mcnc_sample_id") if problem[0] in VQA_REASONS else None
            return Drop(problem[0], problem[1], related)
        seen[row["sample_id"]] = task
        if task == "mcnc":
            released_mcnc[row["sample_id"]] = row
        return None

    # MCNC before VQA: a VQA sample follows its MCNC sample's fate (the check reads the MCNC released).
    samples_in = [(task, row) for task in TASKS if task in samples for row in samples[task].to_pylist()]
    passed = apply_filter(samples_in, check, ledger, _sample_id, _sample_source)
    # One complex event, one split: a complex event seen in two splits is refused whole.
    one_split = GroupStep(_complex_event, _one_split_only, _never_outranked, _sample_id, _sample_source)
    kept: dict[tuple[str, str], list[dict[str, Any]]] = {(s, t): [] for s in SPLITS for t in TASKS}
    for task, row in apply_group_step(passed, one_split, ledger, chained=True):
        kept[(row["split"], task)].append(row)
    tables = {}
    for (split, task), rows in kept.items():
        tables[(split, task)] = table_from_rows(
            sorted(rows, key=lambda r: r["sample_id"]), SAMPLE_SCHEMAS[task]
        )
    ledger.extra["samples"] = {
        task: {split: tables[(split, task)].num_rows for split in SPLITS} for task in TASKS
    }
    ledger.extra["complex_events"] = {
        split: len({ce for task in TASKS for ce in tables[(split, task)].column("ce_id").to_pylist()})
        for split in SPLITS
    }
    return tables, ledger


VQA_REASONS = ("mcnc_sample_rejected", "vqa_label_mismatch")


def _source(row: Mapping[str, Any]) -> str:
    return f"complex_event:{row['ce_id']}@{row['cut_date'].isoformat()}"


def _sample_id(sample: tuple[str, Mapping[str, Any]]) -> str:
    return str(sample[1]["sample_id"])


def _sample_source(sample: tuple[str, Mapping[str, Any]]) -> str:
    return _source(sample[1])


def _complex_event(sample: tuple[str, Mapping[str, Any]]) -> str:
    return str(sample[1]["ce_id"])


def _one_split_only(samples: Sequence[tuple[str, Mapping[str, Any]]]) -> int | Drop:
    """A complex event whose samples sit in more than one split is refused whole."""
    splits = sorted({row["split"] for _task, row in samples})
    if len(splits) == 1:
        return KEEP_ALL
    return Drop(
        "complex_event_in_two_splits", f"complex event {samples[0][1]['ce_id']} has samples in {splits}"
    )


def _never_outranked(sample: tuple[str, Mapping[str, Any]], _other: tuple[str, Mapping[str, Any]]) -> Drop:
    raise AssertionError("one_split keeps a complex event's samples whole or refuses them whole")


def _targets(row: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    if "targets" in row:
        return list(row["targets"])
    return [row["target"]] if row.get("target") else []


def violation(
    row: Mapping[str, Any], task: str, windows: SplitWindows, released_mcnc: Mapping[str, Mapping[str, Any]]
) -> tuple[str, str] | None:
    """The first broken invariant of one sample as (reason, detail), or None."""
    cut = row["cut_date"]
    if row["split"] not in SPLITS:
        return "unknown_split", f"split {row['split']!r}"
    expected = windows.split_of(cut)
    if row["split"] != expected:
        return "split_mismatch", f"cut day {cut.isoformat()} belongs to {expected}, not {row['split']}"
    for event in [*row["background"], *_targets(row)]:
        if date_span(event) is None:
            return "undated_event", f"event {event['event_id']} has no date ({event['date']!r})"
    for event in row["background"]:
        span = date_span(event)
        if span is not None and span[1] >= cut:
            return "background_after_cut", f"background event {event['event_id']} dated {event['date']}"
        late = [m.text for m in dates_named(str(event["text"]), span[0]) if m.last >= cut] if span else []
        if late:
            return "background_names_late_date", f"background event {event['event_id']} names {late[0]!r}"
    for event in _targets(row):
        span = date_span(event)
        if span is not None and span[0] < cut:
            detail = f"target {event['event_id']} dated {event['date']}, cut {cut.isoformat()}"
            return "target_before_cut", detail
        if not windows.holds(row["split"], span):
            first, last = windows.bounds(row["split"])
            window = f"{first.isoformat() if first else ''}..{last.isoformat()}"
            detail = f"target {event['event_id']} dated {event['date']}, {row['split']} window {window}"
            return "target_outside_window", detail
    if task in ("mcnc", "mcac"):
        return _options_problem(row, task)
    if task == "vqa":
        return _vqa_problem(row, released_mcnc)
    return None


def _vqa_problem(
    row: Mapping[str, Any], released_mcnc: Mapping[str, Mapping[str, Any]]
) -> tuple[str, str] | None:
    mcnc = released_mcnc.get(row["mcnc_sample_id"])
    if mcnc is None:
        return "mcnc_sample_rejected", "its MCNC sample is missing or was rejected"
    gold = mcnc["options"][mcnc["answer_index"]]
    negatives = [option for i, option in enumerate(mcnc["options"]) if i != mcnc["answer_index"]]
    if (row["label"] == "Yes" and row["candidate"] != gold) or (
        row["label"] == "No" and row["candidate"] not in negatives
    ):
        return (
            "vqa_label_mismatch",
            f"label {row['label']!r} does not fit candidate {row['candidate'][:80]!r}",
        )
    if row["label"] not in VQA_LABELS:
        return "vqa_label_mismatch", f"label {row['label']!r}"
    return None


def _options_problem(row: Mapping[str, Any], task: str) -> tuple[str, str] | None:
    options, index = row["options"], row["answer_index"]
    if len(options) != len(OPTION_LABELS) or not 0 <= index < len(options):
        return "inconsistent_options", f"{len(options)} options, answer_index {index}"
    gold = row["target"]["text"] if task == "mcnc" else row["answer"]
    if options[index] != gold or row["answer_label"] != OPTION_LABELS[index]:
        return "inconsistent_options", f"option {row['answer_label']} / index {index} is not the gold answer"
    if task == "mcnc":
        # The task builder filters negatives against the whole timeline; here the sample's own events
        # are what is at hand, and a negative repeating one of them would be a true event marked false.
        true_texts = {fold(str(event["text"])) for event in [*row["background"], row["target"]]}
        for position, option in enumerate(options):
            if position != index and fold(option) in true_texts:
                return "negative_is_true_event", f"option {OPTION_LABELS[position]} repeats a true event"
    return None


def write_splits(tables: Mapping[tuple[str, str], pa.Table], directory: str | Path) -> None:
    """Write ``<directory>/<split>/<task>.parquet`` for every pair, swapping the whole folder in at once."""
    with atomic_dir(directory) as staging:
        for (split, task), table in sorted(tables.items()):
            write_parquet(table, staging / split / f"{task}.parquet")
