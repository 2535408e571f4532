"""The reporting layer's views and its one funnel: the report funnel and Table-1 read the same counts."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from almanac.core.io import write_json, write_parquet
from almanac.reports.funnel import FunnelStep, chained_funnel, funnel_steps
from almanac.reports.views import parquet_view, sql_paths, table_view

MONTHS = ["2025-04", "2025-05"]
# qgen: 10 + 6 articles in, 9 + 6 gave a question, 30 + 12 questions made; select: of those 42, 40 kept.
QGEN = {
    "2025-04": {"items_in": 10, "items_out": 9, "rejected": 1, "rejected_by_reason": {"no_candidates": 1},
                "candidates": 30},
    "2025-05": {"items_in": 6, "items_out": 6, "rejected": 0, "rejected_by_reason": {}, "candidates": 12},
}  # fmt: skip
SELECT = {
    "2025-04": {"items_in": 30, "items_out": 29, "rejected": 1, "rejected_by_reason": {"weak": 1}},
    "2025-05": {"items_in": 12, "items_out": 11, "rejected": 1, "rejected_by_reason": {"dull": 1}},
}
STEPS = (
    FunnelStep("foresight_qgen", "Generated", "articles", produces="candidates", source_label="Articles"),
    FunnelStep("foresight_select", "Selected", "questions"),
)


def _metrics(root: Path) -> Path:
    for stage, months in (("foresight_qgen", QGEN), ("foresight_select", SELECT)):
        for month, body in months.items():
            write_json(body, root / stage / f"{month}.json")
    return root


def test_report_funnel_and_table1_count_the_same_steps(tmp_path: Path) -> None:
    metrics = _metrics(tmp_path)
    report = funnel_steps(STEPS, MONTHS, metrics)
    table1 = chained_funnel(STEPS, MONTHS, metrics)
    # the same sums, worked out by hand: qgen 16 in, 15 out, 1 rejected; select 42 in, 40 out, 2 rejected
    for rows in (report, table1):
        assert [(r["items_in"], r["items_out"], r["rejected"]) for r in rows] == [(16, 15, 1), (42, 40, 2)]
    # Table-1 chains the created questions (42) into the next step and shares them: 40 / 42 kept
    assert [row["count"] for row in table1] == [42, 40]
    assert table1[1]["share"] == pytest.approx(40 / 42)
    # The report lists rejects largest first, Table-1 by name; both sum to the same
    assert list(table1[1]["rejected_by_reason"]) == ["dull", "weak"]
    assert report[0]["scope"] == "2025-04, 2025-05" and report[0]["unit"] == "articles"


def test_table1_refuses_steps_that_do_not_chain_but_the_report_shows_them(tmp_path: Path) -> None:
    metrics = _metrics(tmp_path)
    write_json(
        {**SELECT["2025-05"], "items_in": 13, "items_out": 12}, metrics / "foresight_select/2025-05.json"
    )
    assert funnel_steps(STEPS, MONTHS, metrics)[1]["items_in"] == 43  # units may change between report steps
    with pytest.raises(ValueError, match=r"foresight_select read 43 items .* handed on 42"):
        chained_funnel(STEPS, MONTHS, metrics)


def test_both_funnels_refuse_counts_that_do_not_add_up(tmp_path: Path) -> None:
    metrics = _metrics(tmp_path)
    write_json({**SELECT["2025-04"], "items_out": 28}, metrics / "foresight_select/2025-04.json")
    for funnel in (funnel_steps, chained_funnel):
        with pytest.raises(ValueError, match=r"items_in=42 != items_out=39 \+ rejected=2"):
            funnel(STEPS, MONTHS, metrics)


def test_parquet_and_table_views_read_every_file(tmp_path: Path) -> None:
    schema = pa.schema([("answer_class", pa.string()), ("resolution_date", pa.date32())])
    first, second = tmp_path / "train" / "a'b.parquet", tmp_path / "test.parquet"  # a quote in a path
    write_parquet(pa.table({"answer_class": ["person", "place"], "resolution_date": [date(2025, 4, 2)] * 2},
                           schema=schema), first)  # fmt: skip
    write_parquet(pa.table({"answer_class": ["person"], "resolution_date": [date(2025, 5, 1)]}, schema=schema),
                  second)  # fmt: skip
    assert sql_paths([first]) == f"['{tmp_path}/train/a''b.parquet']"
    con = duckdb.connect()
    parquet_view(
        con, "released", [first, second], "answer_class, strftime(resolution_date, '%Y-%m') AS month"
    )
    assert con.execute("SELECT answer_class, month, count(*) FROM released GROUP BY ALL ORDER BY ALL").fetchall() == [
        ("person", "2025-04", 1), ("person", "2025-05", 1), ("place", "2025-04", 1)
    ]  # fmt: skip
    table_view(con, "regions", pa.table({"country": ["FRA", "DEU"], "region": ["Europe", "Europe"]}))
    assert con.execute("SELECT region, count(*) FROM regions GROUP BY 1").fetchall() == [("Europe", 2)]
