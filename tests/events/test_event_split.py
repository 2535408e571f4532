"""event_split: one file per split and task (empty ones too), invariant violations as rejects."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.core.schemas import table_from_rows
from almanac.events.samples import SAMPLE_SCHEMAS, SPLITS, TASKS
from almanac.events.split import split_samples, write_splits
from tests.events.task_timelines import SAMPLE_BACKGROUND, WINDOWS, event, sample


def tables(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        task: table_from_rows([r for r in rows if r["task"] == task], SAMPLE_SCHEMAS[task]) for task in TASKS
    }


def test_invariant_violations_are_rejected_and_the_rest_released(tmp_path: Path) -> None:
    april, may, june = date(2025, 4, 10), date(2025, 5, 3), date(2025, 6, 10)
    may_target = event("ce-1", 5, "It spread.", "2025-05-03", "spread", "it")
    august_target = event("ce-1", 6, "It ended.", "2025-08-02", "ended", "it")
    april_month = event("ce-1", 0, "Sometime in April.", "2025-04")
    undated = event("ce-1", 0, "Whenever.", "unknown")
    quoting = event("ce-1", 0, "The council fixes 12 April as the hearing day.", "2025-04-01")
    rows = [
        sample("ltf", "ltf-ok", "train", april),
        # Old rule: only targets on or after the test start were refused; May is validation.
        sample("ltf", "ltf-leak", "train", april, targets=[may_target]),
        # Old rule: test targets were never checked; August is past the test end.
        sample("ltf", "ltf-test", "test", june, ce_id="ce-4", targets=[august_target]),
        sample("stf", "stf-wrong-split", "validation", april),
        # Old rule: a month-dated background passed as the 1st of its month.
        sample("stf", "stf-month-bg", "train", april, background=[april_month]),
        sample("stf", "stf-undated", "train", april, background=[*SAMPLE_BACKGROUND, undated]),
        # Dated before the cut, but its text names a day after it (the year is the event's own).
        sample("stf", "stf-names-late", "train", april, background=[quoting]),
        sample("aqa", "aqa-early", "validation", may, ce_id="ce-5", target=event("ce-5", 1, "x", "2025-05")),
        sample("mcnc", "mcnc-1", "train", april, answer_index=1, answer_label="B"),  # gold is at A
        sample("mcnc", "mcnc-true", "train", april, options=["It went on.", "It began.", "y", "z"]),
        sample("mcac", "mcac-1", "train", april),
        sample("mcac", "mcac-1", "train", april),  # the same id twice
        sample("vqa", "vqa-1", "train", april),  # its MCNC sample is rejected
        sample("mcnc", "mcnc-3", "train", april, ce_id="ce-3"),
        sample("vqa", "vqa-3", "train", april, ce_id="ce-3", mcnc_sample_id="mcnc-3", label="No"),
        # Both fine alone, but one complex event in two splits.
        sample("ltf", "ltf-two-a", "train", april, ce_id="ce-2"),
        sample("stf", "stf-two-b", "test", june, ce_id="ce-2"),
    ]
    released, ledger = split_samples(tables(rows), WINDOWS)
    assert {(r.id, r.reason) for r in ledger.rejects} == {
        ("ltf-leak", "target_outside_window"),
        ("ltf-test", "target_outside_window"),
        ("stf-wrong-split", "split_mismatch"),
        ("stf-month-bg", "background_after_cut"),
        ("stf-undated", "undated_event"),
        ("stf-names-late", "background_names_late_date"),
        ("aqa-early", "target_before_cut"),
        ("mcnc-1", "inconsistent_options"),
        ("mcnc-true", "negative_is_true_event"),
        ("mcac-1", "duplicate_sample_id"),
        ("vqa-1", "mcnc_sample_rejected"),
        ("vqa-3", "vqa_label_mismatch"),  # "No" with the gold event as candidate
        ("ltf-two-a", "complex_event_in_two_splits"),
        ("stf-two-b", "complex_event_in_two_splits"),
    }
    assert ledger.items_in == len(rows) and ledger.items_out == 3
    assert released[("train", "ltf")].column("sample_id").to_pylist() == ["ltf-ok"]
    assert released[("train", "mcac")].num_rows == 1 and released[("train", "mcnc")].num_rows == 1
    assert ledger.extra["samples"]["ltf"] == {"train": 1, "validation": 0, "test": 0}
    assert ledger.extra["complex_events"] == {"train": 2, "validation": 0, "test": 0}

    write_splits(released, tmp_path / "splits")
    for split in SPLITS:
        for task in TASKS:
            written = pq.read_table(tmp_path / "splits" / split / f"{task}.parquet")
            assert written.schema.equals(SAMPLE_SCHEMAS[task], check_metadata=False)
            assert written.num_rows == released[(split, task)].num_rows
    assert pq.read_table(tmp_path / "splits" / "validation" / "aqa.parquet").num_rows == 0


def test_a_validation_target_inside_its_window_is_released() -> None:
    may = date(2025, 5, 3)
    rows = [sample("ltf", "ltf-may", "validation", may, targets=[event("ce-1", 1, "y", "2025-05-31")])]
    released, ledger = split_samples(tables(rows), WINDOWS)
    assert not ledger.rejects and released[("validation", "ltf")].num_rows == 1


def test_vqa_of_a_released_mcnc_sample_is_released() -> None:
    april = date(2025, 4, 10)
    rows = [sample("mcnc", "mcnc-1", "train", april), sample("vqa", "vqa-1", "train", april)]
    released, ledger = split_samples(tables(rows), WINDOWS)
    assert not ledger.rejects and released[("train", "vqa")].num_rows == 1


def test_rewriting_replaces_stale_files(tmp_path: Path) -> None:
    stale = tmp_path / "splits" / "train" / "old_task.parquet"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    released, _ = split_samples(tables([]), WINDOWS)
    write_splits(released, tmp_path / "splits")
    assert not stale.exists()
    assert sorted(p.name for p in (tmp_path / "splits" / "test").iterdir()) == sorted(
        f"{t}.parquet" for t in TASKS
    )
