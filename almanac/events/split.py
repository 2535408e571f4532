"""Release the task samples per split, re-checking on the data what the task builder promises.

An item is one sample of any task. A sample that breaks an invariant is a reject, never released:
``unknown_split`` / ``split_mismatch`` (its split is not the window of its cut day),
``duplicate_sample_id``, ``background_after_cut`` (a background event dated after T_k),
``target_after_test_start`` (a train or validation target that may fall on or after the test start),
``inconsistent_options`` (MCNC/MCAC options not four, or the recorded gold not where the index says)
and ``mcnc_sample_rejected`` (a VQA sample whose MCNC sample is not released).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.io import atomic_dir, write_parquet
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.events.cuts import SplitWindows, date_span
from almanac.events.samples import OPTION_LABELS, SAMPLE_SCHEMAS, SPLITS, TASKS

STAGE = "event_split"


def split_samples(
    samples: Mapping[str, pa.Table], windows: SplitWindows
) -> tuple[dict[tuple[str, str], pa.Table], StageLedger]:
    """(split, task) -> released samples (every pair present, possibly empty) and the ledger."""
    ledger = StageLedger(STAGE)
    kept: dict[tuple[str, str], list[dict[str, Any]]] = {(s, t): [] for s in SPLITS for t in TASKS}
    seen: dict[str, str] = {}
    released_mcnc: set[str] = set()
    for task in TASKS:  # MCNC before VQA: a VQA sample follows its MCNC sample's fate
        rows = samples[task].to_pylist() if task in samples else []
        ledger.items_in += len(rows)
        for row in rows:
            problem = violation(row, task, windows, released_mcnc)
            if problem is None and row["sample_id"] in seen:
                problem = ("duplicate_sample_id", f"also a {seen[row['sample_id']]} sample")
            source = f"complex_event:{row['ce_id']}@{row['cut_date'].isoformat()}"
            if problem is not None:
                related = row.get("mcnc_sample_id") if problem[0] == "mcnc_sample_rejected" else None
                ledger.reject(row["sample_id"], problem[0], problem[1], source, related)
                continue
            seen[row["sample_id"]] = task
            if task == "mcnc":
                released_mcnc.add(row["sample_id"])
            kept[(row["split"], task)].append(row)
    tables = {}
    for (split, task), rows in kept.items():
        tables[(split, task)] = table_from_rows(
            sorted(rows, key=lambda r: r["sample_id"]), SAMPLE_SCHEMAS[task]
        )
        ledger.items_out += len(rows)
    ledger.extra["samples"] = {
        task: {split: tables[(split, task)].num_rows for split in SPLITS} for task in TASKS
    }
    ledger.extra["complex_events"] = {
        split: len({ce for task in TASKS for ce in tables[(split, task)].column("ce_id").to_pylist()})
        for split in SPLITS
    }
    return tables, ledger


def violation(
    row: Mapping[str, Any], task: str, windows: SplitWindows, released_mcnc: set[str]
) -> tuple[str, str] | None:
    """The first broken invariant of one sample as (reason, detail), or None."""
    cut = row["cut_date"]
    if row["split"] not in SPLITS:
        return "unknown_split", f"split {row['split']!r}"
    expected = windows.split_of(cut)
    if row["split"] != expected:
        return "split_mismatch", f"cut day {cut.isoformat()} belongs to {expected}, not {row['split']}"
    for event in row["background"]:
        span = date_span(event)
        if span is not None and span[0] > cut:
            return "background_after_cut", f"background event {event['event_id']} dated {event['date']}"
    if row["split"] != "test":
        targets = row.get("targets") or ([row["target"]] if row.get("target") else [])
        for event in targets:
            span = date_span(event)
            if span is not None and span[1] >= windows.test_start_day:
                detail = f"target {event['event_id']} dated {event['date']}, test starts {windows.test_start}"
                return "target_after_test_start", detail
    if task in ("mcnc", "mcac"):
        return _options_problem(row, task)
    if task == "vqa" and row["mcnc_sample_id"] not in released_mcnc:
        return "mcnc_sample_rejected", "its MCNC sample is missing or was rejected"
    return None


def _options_problem(row: Mapping[str, Any], task: str) -> tuple[str, str] | None:
    options, index = row["options"], row["answer_index"]
    if len(options) != len(OPTION_LABELS) or not 0 <= index < len(options):
        return "inconsistent_options", f"{len(options)} options, answer_index {index}"
    gold = row["target"]["text"] if task == "mcnc" else row["answer"]
    if options[index] != gold or row["answer_label"] != OPTION_LABELS[index]:
        return "inconsistent_options", f"option {row['answer_label']} / index {index} is not the gold answer"
    return None


def write_splits(tables: Mapping[tuple[str, str], pa.Table], directory: str | Path) -> None:
    """Write ``<directory>/<split>/<task>.parquet`` for every pair, swapping the whole folder in at once."""
    with atomic_dir(directory) as staging:
        for (split, task), table in sorted(tables.items()):
            write_parquet(table, staging / split / f"{task}.parquet")
