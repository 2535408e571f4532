"""Summing stage metrics files with DuckDB: the counts every funnel and report reads."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from almanac.reports.views import sum_stage_metrics


def _write(path: Path, **body: object) -> Path:
    path.write_text(json.dumps(body))
    return path


def test_sums_counts_reasons_and_an_extra_key(tmp_path: Path) -> None:
    april = _write(
        tmp_path / "a.json",
        items_in=10,
        items_out=6,
        rejected=4,
        rejected_by_reason={"too_short": 1, "language": 3},
        produced=15,
    )
    may = _write(
        tmp_path / "b.json",
        items_in=5,
        items_out=4,
        rejected=1,
        rejected_by_reason={"too_short": 1},
        produced=7,
    )
    totals = sum_stage_metrics(duckdb.connect(), "ccnews_ingest", [april, may], "produced")
    assert (totals.items_in, totals.items_out, totals.rejected, totals.extra) == (15, 10, 5, 22)
    # language 3, too_short 1 + 1 = 2: largest first
    assert list(totals.by_reason.items()) == [("language", 3), ("too_short", 2)]
    # The extra key is only summed when asked for, and is None when no file has it.
    assert sum_stage_metrics(duckdb.connect(), "ccnews_ingest", [april, may]).extra is None
    assert sum_stage_metrics(duckdb.connect(), "ccnews_ingest", [april], "questions").extra is None


def test_a_file_without_the_counts_is_an_error(tmp_path: Path) -> None:
    good = _write(tmp_path / "a.json", items_in=2, items_out=2, rejected=0, rejected_by_reason={})
    broken = _write(tmp_path / "b.json", items_in=3, rejected=0, rejected_by_reason={})
    with pytest.raises(ValueError, match="stage dedup: a metrics file lacks items_in/items_out/rejected"):
        sum_stage_metrics(duckdb.connect(), "dedup", [good, broken])
