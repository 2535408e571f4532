"""`almanac status` counts released rows by split and by the month each row belongs to, months outside
`months` included (issue 26: OpenForecast's 54 rows cut in 2025-03 were shown as "nothing built")."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from almanac.reports.status import month_status, released_rows, rows_markdown, status_markdown
from almanac.reports.styles import STYLES


def _write(path: Path, table: pa.Table) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)


def _events(*days: str) -> pa.Table:
    return pa.table({"sample_id": [f"s{i}" for i in range(len(days))],
                     "cut_date": [dt.date.fromisoformat(day) for day in days]})  # fmt: skip


def test_rows_by_split_and_the_month_they_belong_to(tmp_path: Path) -> None:
    # OpenForecast: train cut in March (outside the months), test in April and May, two task files.
    events = tmp_path / STYLES["openforecast"].splits_dir
    _write(events / "train" / "stf.parquet", _events("2025-03-10", "2025-03-20", "2025-03-31"))
    _write(events / "train" / "mcnc.parquet", _events("2025-03-05"))
    _write(events / "test" / "stf.parquet", _events("2025-04-02", "2025-05-30", "2025-05-01"))
    # MIRAI: one file per month, all test; OpenForesight: split/month files.
    mirai = tmp_path / STYLES["mirai"].splits_dir
    _write(mirai / "2025-04.parquet", pa.table({"query_id": ["a", "b"]}))
    _write(mirai / "2025-05.parquet", pa.table({"query_id": ["c"]}))
    foresight = tmp_path / STYLES["openforesight"].splits_dir
    _write(foresight / "train" / "2025-04.parquet", pa.table({"question_id": ["q1", "q2", "q3"]}))

    forecast = released_rows(STYLES["openforecast"], tmp_path)
    # train: 3 + 1 rows, every one cut in March; test: one in April, two in May
    assert forecast == {"train": {"2025-03": 4}, "test": {"2025-04": 1, "2025-05": 2}}
    assert released_rows(STYLES["mirai"], tmp_path) == {"test": {"2025-04": 2, "2025-05": 1}}
    assert released_rows(STYLES["openforesight"], tmp_path) == {"train": {"2025-04": 3}}

    months = ["2025-04", "2025-05"]
    table = rows_markdown({"openforecast": forecast, "empty": {}}, months)
    assert "| Style | Split | 2025-03 * | 2025-04 | 2025-05 | All |" in table
    assert "| openforecast | train | 4 | - | - | 4 |" in table
    assert "| openforecast | test | - | 1 | 2 | 3 |" in table
    assert "| empty | nothing built | - | - | - | 0 |" in table
    assert "* not in `months` (2025-03)" in table
    assert "not in `months`" not in rows_markdown({"mirai": {"test": {"2025-04": 2}}}, months)
    assert "Released rows by split" in status_markdown([], False, {"openforecast": forecast}, months)


def test_a_style_with_nothing_released(tmp_path: Path) -> None:
    assert released_rows(STYLES["openforecast"], tmp_path) == {}


def test_series_report_is_its_whole_build_report(tmp_path: Path) -> None:
    """The series style's months are its own, not the news months: each news month's row says whether the
    style's one report (reports/series/all/) exists, never a per-month folder it does not write."""
    (tmp_path / "dvc.lock").write_text("schema: '2.0'\nstages: {}\n")
    before = {row.month: row.report for row in month_status(["2025-05"], tmp_path) if row.style == "series"}
    (tmp_path / "reports/series/all").mkdir(parents=True)
    (tmp_path / "reports/series/all/metrics.json").write_text("{}")
    after = {row.month: row.report for row in month_status(["2025-05"], tmp_path) if row.style == "series"}
    assert (before, after) == ({"2025-05": False}, {"2025-05": True})
