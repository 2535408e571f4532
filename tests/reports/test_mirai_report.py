"""The MIRAI-style report on a few hand-made queries, metrics files and gdelt_clean rejects.

Every expected number below was worked out by hand from the fixture, in the comments next to it.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from almanac.core.io import write_json, write_parquet
from almanac.core.schemas import REJECT_SCHEMA, table_from_rows
from almanac.mirai.relation_split import QUERY_SCHEMA, Group, query_row
from almanac.reports.mirai import SERIES, build_report
from almanac.reports.model import Report
from almanac.reports.scope import ReportScope
from almanac.reports.write import write_report
from tests.reports.test_summary import MAX_SUMMARY_KEYS

REGIONS = {
    "USA": "Northern America",
    "CHN": "Eastern Asia",
    "FRA": "Western Europe",
    "DEU": "Western Europe",
    "RUS": "Eastern Europe",
    "UKR": "Eastern Europe",
}
PARAMS: dict[str, Any] = {
    "scorer": {"quad_mapping": "gdelt"},
    "gdelt_clean": {"drop_duplicate_event_ids": True},
}


def _query(day: date, subject: str, obj: str, codes: list[str], urls: list[str]) -> dict[str, Any]:
    group = Group(day, subject, obj, set(codes), 150, set(urls))
    return query_row(group, f"{day:%Y-%m}", REGIONS, (1, 7))


def _metrics(stage: str, items_in: int, items_out: int, reasons: dict[str, int], month: str | None) -> None:
    path = Path("reports/metrics") / (f"{stage}/{month}.json" if month else f"{stage}.json")
    body = {"stage": stage, "items_in": items_in, "items_out": items_out, "rejected": sum(reasons.values())}
    write_json({**body, "rejected_by_reason": reasons, "seconds": 0.5}, path)


def _reject(reason: str, source: str) -> dict[str, Any]:
    return {
        "id": source,
        "stage": "gdelt_clean",
        "reason": reason,
        "detail": "",
        "source": source,
        "related_id": None,
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    may = [
        # roots 04 (2 codes) and 19; 3 URLs on 2 domains (www. is dropped)
        _query(
            date(2025, 5, 1),
            "USA",
            "CHN",
            ["042", "043", "190"],
            ["https://www.a.com/1", "https://b.org/2", "https://a.com/3"],
        ),
        _query(date(2025, 5, 2), "FRA", "DEU", ["051"], ["https://b.org/4"]),
        _query(
            date(2025, 5, 9),
            "RUS",
            "UKR",
            ["141", "173"],
            ["https://c.net/5", "https://b.org/6", "https://c.net/8"],
        ),
    ]
    april = _query(date(2025, 4, 10), "USA", "CHN", ["090"], ["https://a.com/7"])
    # a 7-day horizon whose last history date is 6 days back: the report must notice the mismatch
    april["horizons"][1]["last_history_date"] = date(2025, 4, 10) - timedelta(days=6)
    write_parquet(table_from_rows(may, QUERY_SCHEMA), "data/mirai/queries/2025-05.parquet")
    write_parquet(table_from_rows([april], QUERY_SCHEMA), "data/mirai/queries/2025-04.parquet")
    for month, rows in (("2025-04", 6), ("2025-05", 10)):
        write_parquet(pa.table({"GlobalEventID": list(range(rows))}), f"data/gdelt/events/{month}.parquet")
    rejects = [
        _reject("duplicate_event_id", "20250512064500.export.CSV.zip:1"),
        _reject("duplicate_event_id", "20250401093000.export.CSV.zip:3"),
        _reject("duplicate_event_id", "manual:1"),  # no file timestamp: in no month
        _reject("not_earliest_url_date", "20250503000000.export.CSV.zip:2"),
        _reject("same_country", "20250503000000.export.CSV.zip:4"),
    ]
    write_parquet(table_from_rows(rejects, REJECT_SCHEMA), "data/gdelt/clean/rejects.parquet")
    _metrics("gdelt_download", 4, 3, {"md5_mismatch": 1}, "2025-04")
    _metrics("gdelt_download", 4, 4, {}, "2025-05")
    _metrics("gdelt_ingest", 12, 12, {}, "2025-04")
    _metrics("gdelt_ingest", 20, 18, {"wrong_field_count": 2}, "2025-05")
    _metrics(
        "gdelt_clean", 16, 12, {"duplicate_event_id": 2, "not_earliest_url_date": 1, "same_country": 1}, None
    )
    _metrics("gdelt_articles", 7, 2, {"not_in_corpus": 5}, None)
    _metrics("relation_split", 1, 1, {}, "2025-04")
    _metrics("relation_split", 5, 3, {"too_few_mentions": 2}, "2025-05")
    for stage in ("gdelt_download", "gdelt_ingest", "relation_split"):
        _metrics(stage, 0, 0, {}, "2025-06")
    return tmp_path


def _rows(report: Report, name: str) -> list[tuple[Any, ...]]:
    series = report.series_named(name)
    columns = [series.x, *([series.group] if series.group else []), series.y]
    return [tuple(row[c] for c in columns) for row in series.rows]


def test_one_month_counts_relations_and_sources(project: Path) -> None:
    report = build_report(ReportScope(("2025-05",), False, PARAMS))
    m = report.metrics
    assert [s.name for s in report.series] == list(SERIES)
    assert (m["queries"], m["queries_by_month"], m["queries_by_split"]) == (3, {"2025-05": 3}, {"test": 3})
    assert m["repeated_query_ids"] == 0
    # answers: 042 043 190 | 051 | 141 173 -> roots 04 (1 query, 2 codes), 19, 05, 14, 17 (1 each)
    relations = m["relations"]
    assert (relations["distinct_codes"], relations["answer_codes"]) == (6, 6)
    assert {k: v for k, v in relations["queries_by_root"].items() if v} == {
        "04": 1,
        "05": 1,
        "14": 1,
        "17": 1,
        "19": 1,
    }
    assert relations["answers_by_root"]["04"] == 2 and len(relations["queries_by_root"]) == 20
    assert ("04 consultation or meeting", 1) in _rows(report, "relations")
    assert ("01 public statement", 0) in _rows(report, "relations")
    # gdelt classes: Q1 {1 (04), 4 (19)}, Q2 {1 (05)}, Q3 {3 (14), 4 (17)}
    # mirai classes: Q1 {1, 4},           Q2 {2 (05)}, Q3 {3 (14), 4 (17)}
    gdelt, mirai = m["quad_classes"]["gdelt"], m["quad_classes"]["mirai"]
    assert gdelt == {
        "verbal_cooperation": 2,
        "material_cooperation": 0,
        "verbal_conflict": 1,
        "material_conflict": 2,
        "queries_spanning_classes": 2,
    }
    assert (mirai["verbal_cooperation"], mirai["material_cooperation"], mirai["material_conflict"]) == (
        1,
        1,
        2,
    )
    assert m["quad_classes"]["scorer_mapping"] == "gdelt"
    assert ("2 material cooperation", "mirai", 1) in _rows(report, "quad_classes")
    # subjects USA FRA RUS, objects CHN DEU UKR; Eastern and Western Europe 2 each, sorted by name on ties
    assert m["regions"]["subject"] == {"Northern America": 1, "Western Europe": 1, "Eastern Europe": 1}
    assert m["regions"]["object"] == {"Eastern Asia": 1, "Western Europe": 1, "Eastern Europe": 1}
    assert _rows(report, "regions")[:4] == [
        ("Eastern Europe", "subject", 1),
        ("Eastern Europe", "object", 1),
        ("Western Europe", "subject", 1),
        ("Western Europe", "object", 1),
    ]
    # b.org 2 4 6 (3 queries), a.com 1 3 (www. dropped), c.net 5 8: 7 URLs, 3 domains, top share 3/7
    assert m["sources"] == {"regions": 4, "urls": 7, "domains": 3, "top_domain_url_share": 0.4286}
    domains = next(t for t in report.tables if t.title.startswith("News domains"))
    assert domains.rows == (("b.org", 3, 3), ("a.com", 2, 1), ("c.net", 2, 1))


def test_one_month_distributions(project: Path) -> None:
    m = (report := build_report(ReportScope(("2025-05",), False, PARAMS))).metrics
    # answers 3, 1, 2: median 2; p90 at position 0.9 * 2 = 1.8 of [1, 2, 3] -> 2.8
    assert m["answers_per_query"] == {"count": 3, "mean": 2.0, "median": 2.0, "p90": 2.8, "max": 3}
    # articles 3, 1, 3: mean 7/3; p90 at 1.8 of [1, 3, 3] -> 3
    assert m["articles_per_query"] == {"count": 3, "mean": 2.333, "median": 3.0, "p90": 3.0, "max": 3}
    assert _rows(report, "answers_per_query") == [("1", 1), ("2", 1), ("3", 1)]
    # horizons 1 and 7 for each query: gaps [1, 1, 1, 7, 7, 7]; p90 at 0.9 * 5 = 4.5 -> 7
    horizon = m["horizon"]
    assert (horizon["count"], horizon["mean"], horizon["median"], horizon["p90"], horizon["max"]) == (
        6,
        4.0,
        4.0,
        7.0,
        7,
    )
    assert (horizon["queries_by_days"], horizon["mismatched"]) == ({"1": 3, "7": 3}, 0)
    assert _rows(report, "horizon") == [("1", 3), ("7", 3)]
    # dates May 1, 2 and 9
    assert _rows(report, "query_dates") == [
        ("2025-05-01..07", 2),
        ("2025-05-08..14", 1),
        ("2025-05-15..21", 0),
        ("2025-05-22..28", 0),
        ("2025-05-29..31", 0),
    ]
    assert m["query_dates"] == {
        "days_in_scope": 31,
        "days_with_queries": 3,
        "max_per_day": 1,
        "min_per_day": 0,
        "outside_scope": 0,
    }


def test_one_month_funnel_dedup_and_leakage(project: Path) -> None:
    report = build_report(ReportScope(("2025-05",), False, PARAMS))
    m = report.metrics
    assert m["leakage"] == {"flagged": None, "rate": None}
    # May: 10 event rows; one duplicate id and one repeated URL from May files ("manual:1" has no month)
    assert m["dedup"]["scope_months"] == {
        "events_in": 10,
        "duplicate_event_id": 1,
        "duplicate_event_id_rate": 0.1,
        "not_earliest_url_date": 1,
        "not_earliest_url_date_rate": 0.1,
    }
    # all months, from gdelt_clean.json: 2 / 16 and 1 / 16
    assert m["dedup"]["all_months"]["duplicate_event_id_rate"] == 0.125
    assert m["dedup"]["all_months"]["not_earliest_url_date_rate"] == 0.0625
    funnel = m["funnel"]
    assert list(funnel) == [
        "gdelt_download",
        "gdelt_ingest",
        "gdelt_clean",
        "gdelt_articles",
        "relation_split",
    ]
    assert (funnel["gdelt_download"]["in"], funnel["gdelt_ingest"]["out"], funnel["gdelt_clean"]["in"]) == (
        4,
        18,
        16,
    )
    assert funnel["relation_split"]["rejected_by_reason"] == {"too_few_mentions": 2}
    # relation_split in May: 5 groups in, 3 out -> 60% kept, labelled with the counts
    assert _rows(report, "funnel")[-1] == ("Sample queries (day-pair groups)", 60.0)
    assert report.series_named("funnel").rows[-1]["kept"] == "3 of 5"
    assert any("gdelt_clean and gdelt_articles run once over every month" in note for note in report.notes)
    leakage = next(t for t in report.tables if t.title == "Leakage and dedup")
    assert leakage.rows[0][:3] == ("leakage flag", "-", "n/a")
    assert ("duplicate_event_id", "2025-05", 1, 10, "10.00%") in leakage.rows


def test_all_months_adds_up_and_notices_a_bad_horizon(project: Path) -> None:
    m = build_report(ReportScope(("2025-04", "2025-05"), True, {"scorer": {"quad_mapping": "mirai"}})).metrics
    assert (m["queries"], m["queries_by_month"]) == (4, {"2025-04": 1, "2025-05": 3})
    assert m["relations"]["queries_by_root"]["09"] == 1
    assert m["quad_classes"]["scorer_mapping"] == "mirai"
    # April's query: gaps 1 and 6 (declared 7) -> gaps [1, 1, 1, 1, 6, 7, 7, 7]
    assert m["horizon"]["mismatched"] == 1
    assert m["horizon"]["queries_by_days"] == {"1": 4, "7": 4}
    assert (m["horizon"]["count"], m["horizon"]["mean"]) == (8, 3.875)  # 31 / 8
    # 16 event rows; duplicates from April's and May's files; download 4 + 4 in, 3 + 4 out
    assert (m["dedup"]["scope_months"]["events_in"], m["dedup"]["scope_months"]["duplicate_event_id"]) == (
        16,
        2,
    )
    assert (m["funnel"]["gdelt_download"]["in"], m["funnel"]["gdelt_download"]["out"]) == (8, 7)
    assert m["funnel"]["gdelt_download"]["rejected_by_reason"] == {"md5_mismatch": 1}


@pytest.mark.parametrize("zero_row_file", [False, True])
def test_month_without_queries(project: Path, zero_row_file: bool) -> None:
    if zero_row_file:
        write_parquet(QUERY_SCHEMA.empty_table(), "data/mirai/queries/2025-06.parquet")
    params = {**PARAMS, "gdelt_clean": {"drop_duplicate_event_ids": False}}
    report = build_report(ReportScope(("2025-06",), False, params))
    m = report.metrics
    assert (m["queries"], m["queries_by_month"], m["queries_by_split"]) == (0, {"2025-06": 0}, {"test": 0})
    assert m["answers_per_query"] == {"count": 0, "mean": None, "median": None, "p90": None, "max": None}
    assert sum(m["relations"]["queries_by_root"].values()) == 0 and m["regions"] == {
        "subject": {},
        "object": {},
    }
    assert m["sources"]["top_domain_url_share"] is None
    assert _rows(report, "answers_per_query") == [] and _rows(report, "horizon") == []
    assert [n for _, n in _rows(report, "query_dates")] == [0] * 5  # June: 1-7 ... 29-30
    assert m["dedup"]["scope_months"] is None  # June's events file does not exist
    assert any("No dedup rate for 2025-06" in note for note in report.notes)
    assert any("drop_duplicate_event_ids is off" in note for note in report.notes)


def test_month_without_queries_renders(project: Path) -> None:
    report = build_report(ReportScope(("2025-06",), False, PARAMS))
    write_report(report, project / "out")
    assert (project / "out" / "figures" / "regions.png").is_file()


def test_missing_stage_metrics_is_an_error(project: Path) -> None:
    (project / "reports/metrics/relation_split/2025-05.json").unlink()
    with pytest.raises(FileNotFoundError, match="relation_split"):
        build_report(ReportScope(("2025-05",), False, PARAMS))


def test_same_inputs_give_identical_files(project: Path) -> None:
    scope = ReportScope(("2025-04", "2025-05"), True, PARAMS)
    first, second = build_report(scope), build_report(scope)
    assert first == second
    paths_a = write_report(first, project / "a")
    paths_b = write_report(second, project / "b")
    for a, b in zip(paths_a, paths_b, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name


def _history(rows: list[tuple[str, str, str, str]]) -> None:
    from tests.mirai.quads import quad, table

    quads = [
        quad(day, subject, relation, obj, 150, ["https://a.com/1"]) for day, subject, relation, obj in rows
    ]
    write_parquet(table(quads), "data/gdelt/clean/quads.parquet")


def test_baseline_table_per_month(project: Path) -> None:
    # History (top 3 relations of the pair, 365 days up to the day before the query, gdelt mapping):
    #   USA -> CHN: 090 on 04-09, 042 on 04-20 and 04-30, 190 on 05-01 (May's query day: never read)
    #   RUS -> UKR: 173 on 05-08, 141 on 05-09 (the query day: never read); FRA -> DEU: nothing
    _history(
        [
            ("2025-04-09", "USA", "090", "CHN"),
            ("2025-04-20", "USA", "042", "CHN"),
            ("2025-04-30", "USA", "042", "CHN"),
            ("2025-05-01", "USA", "190", "CHN"),
            ("2025-05-08", "RUS", "173", "UKR"),
            ("2025-05-09", "RUS", "141", "UKR"),
        ]
    )
    # April: (04-10, USA, CHN) truth {09: [090]}; forecast {09: [090]} -> every P, R, F1 1 and KL 0
    # May:
    #   q1 (05-01, USA, CHN) truth {04: [042, 043], 19: [190]}; forecast {04: [042], 09: [090]}
    #     2nd: 1 hit of 2, of 3 -> P 1/2, R 1/3, F1 2 (1/6) / (5/6) = 2/5; 1st: {04, 09} vs {04, 19} -> 1/2 each
    #     binary (gdelt: 01-09 cooperation): P = (1/2, 1/2), Q = (1, 0) -> 0.5 ln 0.5 + 0.5 ln(5e9) = 10.8197783
    #     quad: P = (1/2, 0, 0, 1/2) (04, 19), Q = (1/2, 1/2, 0, 0) (04, 09) -> 0.5 ln(5e9) = 11.1663519
    #   q2 (05-02, FRA, DEU) truth {05: [051]}: empty forecast -> 0s, both KL ln(1e10) = 23.0258509
    #   q3 (05-09, RUS, UKR) truth {14: [141], 17: [173]}; forecast {17: [173]}
    #     2nd P 1, R 1/2, F1 2/3; 1st the same; binary both conflict -> 0
    #     quad P = (0, 0, 1/2, 1/2), Q = (0, 0, 0, 1) -> 0.5 ln 0.5 + 0.5 ln(5e9) = 10.8197783
    #   means: 1st P (1/2 + 0 + 1) / 3 = 50.0, R (1/2 + 0 + 1/2) / 3 = 33.3, F1 (1/2 + 2/3) / 3 = 7/18 = 38.9
    #          2nd P 50.0, R (1/3 + 1/2) / 3 = 5/18 = 27.8, F1 (2/5 + 2/3) / 3 = 16/45 = 35.6
    #          binary (10.8197783 + 23.0258509) / 3 = 11.282; quad (11.1663519 + 23.0258509 + 10.8197783) / 3
    #          = 15.004
    may_row = ("2025-05", 3, 1, "50.0", "33.3", "38.9", "50.0", "27.8", "35.6", "11.282", "15.004")
    report = build_report(ReportScope(("2025-05",), False, PARAMS))
    table = next(t for t in report.tables if t.title == "Frequency baseline per month")
    assert table.rows == (may_row,)
    baseline = report.metrics["baseline"]
    assert (baseline["top_k"], baseline["window_days"], baseline["horizon_days"]) == (3, 365, 1)
    assert baseline["quad_mapping"] == "gdelt"
    assert baseline["by_month"]["2025-05"]["second_level"]["recall"] == round(5 / 18, 4)
    # Both months: April's row, May's row, and the four queries together:
    #   2nd P (1 + 1/2 + 0 + 1) / 4 = 62.5, R (1 + 1/3 + 0 + 1/2) / 4 = 11/24 = 45.8
    everything = build_report(ReportScope(("2025-04", "2025-05"), True, PARAMS))
    rows = next(t for t in everything.tables if t.title == "Frequency baseline per month").rows
    assert rows[0] == (
        "2025-04",
        1,
        0,
        "100.0",
        "100.0",
        "100.0",
        "100.0",
        "100.0",
        "100.0",
        "0.000",
        "0.000",
    )
    assert rows[1] == may_row
    assert rows[2][:3] == ("all months", 4, 1) and rows[2][6:8] == ("62.5", "45.8")


def test_baseline_without_quads_is_a_note(project: Path) -> None:
    report = build_report(ReportScope(("2025-05",), False, PARAMS))
    assert report.metrics["baseline"] is None
    assert any("frequency baseline was not computed" in note for note in report.notes)


def test_whole_dataset_summary_with_a_failed_check(project: Path) -> None:
    invariants = {
        "date_in_month": {"checked": 4, "violations": 1},
        "answers_complete": {"checked": 4, "violations": 2},
    }
    write_json({"ok": False, "rows": 4, "invariants": invariants}, "reports/check/mirai.json")
    report = build_report(ReportScope(("2025-04", "2025-05"), True, PARAMS))
    assert report.summary == {
        "check": "3 violations",  # 1 + 2
        "read": "8 files",  # gdelt_download read 4 + 4 files
        "released": "4 queries",  # one test split per month: 1 + 3
        "train": 0,
        "validation": 0,
        "test": 4,
        # no MIRAI stage asks an LLM
        "llm_requests": 0,
        "llm_tokens": 0,
        "llm_cost_usd": 0.0,
    }
    assert report.metrics["funnel"]["gdelt_ingest"]["unit"] == "rows"  # the detail names its units
    assert len(report.summary) == MAX_SUMMARY_KEYS
    assert [panel.name for panel in report.panels] == ["1_overview", "2_content", "3_distributions"]
    assert build_report(ReportScope(("2025-05",), False, PARAMS)).summary is None
