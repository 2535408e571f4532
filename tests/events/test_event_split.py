"""event_split: one file per split and task (empty ones too), invariant violations as rejects."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.core.schemas import table_from_rows
from almanac.events.samples import SAMPLE_SCHEMAS, SPLITS, TASKS
from almanac.events.split import split_samples, write_splits
from tests.events.task_timelines import WINDOWS, event, sample


def tables(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        task: table_from_rows([r for r in rows if r["task"] == task], SAMPLE_SCHEMAS[task]) for task in TASKS
    }


def test_invariant_violations_are_rejected_and_the_rest_released(tmp_path: Path) -> None:
    april, june = date(2025, 4, 10), date(2025, 6, 10)
    late_target = event("ce-1", 5, "It ended.", "2025-06", "ended", "it")
    future_background = event("ce-1", 0, "A later thing.", "2025-05-02")
    rows = [
        sample("ltf", "ltf-ok", "train", april),
        sample("ltf", "ltf-leak", "train", april, targets=[late_target]),
        sample("ltf", "ltf-test", "test", june, targets=[late_target]),  # test targets are not trimmed
        sample("stf", "stf-wrong-split", "validation", april),
        sample("stf", "stf-future-bg", "train", april, background=[future_background]),
        sample("aqa", "aqa-leak", "validation", date(2025, 5, 3), target=late_target),
        sample("mcnc", "mcnc-1", "train", april, answer_index=1, answer_label="B"),  # gold is at A
        sample("mcac", "mcac-1", "train", april),
        sample("mcac", "mcac-1", "train", april),  # the same id twice
        sample("vqa", "vqa-1", "train", april),  # its MCNC sample is rejected
    ]
    released, ledger = split_samples(tables(rows), WINDOWS)
    assert {(r.id, r.reason) for r in ledger.rejects} == {
        ("ltf-leak", "target_after_test_start"),
        ("stf-wrong-split", "split_mismatch"),
        ("stf-future-bg", "background_after_cut"),
        ("aqa-leak", "target_after_test_start"),
        ("mcnc-1", "inconsistent_options"),
        ("mcac-1", "duplicate_sample_id"),
        ("vqa-1", "mcnc_sample_rejected"),
    }
    assert ledger.items_in == len(rows) and ledger.items_out == 3
    assert released[("train", "ltf")].column("sample_id").to_pylist() == ["ltf-ok"]
    assert released[("test", "ltf")].column("sample_id").to_pylist() == ["ltf-test"]
    assert released[("train", "mcac")].num_rows == 1
    assert ledger.extra["samples"]["ltf"] == {"train": 1, "validation": 0, "test": 1}
    assert ledger.extra["complex_events"] == {"train": 1, "validation": 0, "test": 1}

    write_splits(released, tmp_path / "splits")
    for split in SPLITS:
        for task in TASKS:
            written = pq.read_table(tmp_path / "splits" / split / f"{task}.parquet")
            assert written.schema.equals(SAMPLE_SCHEMAS[task], check_metadata=False)
            assert written.num_rows == released[(split, task)].num_rows
    assert pq.read_table(tmp_path / "splits" / "validation" / "aqa.parquet").num_rows == 0


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
