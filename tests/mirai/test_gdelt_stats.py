"""gdelt_stats on a tiny input whose counts were worked out by hand, and both stages run as DVC runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path

import pyarrow as pa
import pytest

from almanac.core.io import write_parquet
from almanac.mirai.cameo import CAMEO_CODES
from almanac.reports.gdelt_stats import gdelt_statistics, gdelt_stats_markdown, plot_series
from tests.mirai.quads import REGIONS, quad, table, urls

MONTHS = ["2025-04", "2025-05"]


def _write_inputs(root: Path) -> dict[str, object]:
    gdelt = root / "data" / "gdelt"
    # ingested records: 5 in April's files, 7 in May's (only the row count is used)
    for month, rows in (("2025-04", 5), ("2025-05", 7)):
        write_parquet(pa.table({"GlobalEventID": list(range(rows))}), gdelt / "events" / f"{month}.parquet")
    days = [date(2025, 4, 10)] * 3 + [date(2025, 5, 1)] * 2 + [date(2025, 5, 31)] * 2
    write_parquet(pa.table({"date": pa.array(days, pa.date32())}), gdelt / "clean" / "events.parquet")
    quads = [
        quad("2025-04-10", "USA", "042", "CHN", 120, ["a1", "a2"], n_events=2),
        quad("2025-04-10", "USA", "190", "CHN", 60, ["a2", "a3"], n_events=1),
        quad("2025-05-01", "FRA", "051", "DEU", 70, ["m1"], n_events=1),
        quad("2025-05-31", "RUS", "141", "UKR", 80, ["m2", "a1"], n_events=2),
        quad("2025-05-31", "RUS", "173", "XKX", 90, ["m3"], n_events=1),  # XKX: no region
    ]
    write_parquet(table(quads), gdelt / "clean" / "quads.parquet")
    write_parquet(pa.table({"url": ["a1", "a3", "m2", "zz"]}), gdelt / "articles.parquet")
    answers = {"2025-04": [["042", "190"]], "2025-05": [["051"], ["141", "173"]]}
    for month, lists in answers.items():
        ids = [f"{month}-{i}" for i in range(len(lists))]
        write_parquet(
            pa.table({"query_id": ids, "answers": pa.array(lists, pa.list_(pa.string()))}),
            root / "data" / "mirai" / "queries" / f"{month}.parquet",
        )
    return {
        "events": {m: gdelt / "events" / f"{m}.parquet" for m in MONTHS},
        "clean_events": gdelt / "clean" / "events.parquet",
        "quads": gdelt / "clean" / "quads.parquet",
        "articles": gdelt / "articles.parquet",
        "queries": {m: root / "data" / "mirai" / "queries" / f"{m}.parquet" for m in MONTHS},
    }


def test_counts_by_hand(tmp_path: Path) -> None:
    stats = gdelt_statistics(MONTHS, regions=REGIONS, **_write_inputs(tmp_path))  # type: ignore[arg-type]
    april, may, total = stats["counts"]
    # April: quads USA-042-CHN (2 events, a1 a2) and USA-190-CHN (1 event, a2 a3): one (t, s, o) pair,
    # URLs a1 a2 a3 of which a1 and a3 are in articles.parquet; one query with 2 answers
    assert april == {
        "month": "2025-04",
        "event_records": 5,
        "clean_event_records": 3,
        "quads": 2,
        "quad_event_records": 3,
        "pairs_by_day": 1,
        "quad_urls": 3,
        "linked_articles": 2,
        "queries": 1,
        "answers_per_query": 2.0,
    }
    # May: 3 quads, 1 + 2 + 1 events, three pairs; URLs m1 m2 a1 m3, linked m2 a1; answers 1 and 2
    assert may == {
        "month": "2025-05",
        "event_records": 7,
        "clean_event_records": 4,
        "quads": 3,
        "quad_event_records": 4,
        "pairs_by_day": 3,
        "quad_urls": 4,
        "linked_articles": 2,
        "queries": 2,
        "answers_per_query": 1.5,
    }
    # total: a1 is in both months, so 6 distinct URLs and 3 distinct linked articles (a1 a3 m2)
    assert total == {
        "month": "total",
        "event_records": 12,
        "clean_event_records": 7,
        "quads": 5,
        "quad_event_records": 7,
        "pairs_by_day": 4,
        "quad_urls": 6,
        "linked_articles": 3,
        "queries": 3,
        "answers_per_query": 1.67,
    }


def test_relation_and_class_distributions_by_hand(tmp_path: Path) -> None:
    stats = gdelt_statistics(MONTHS, regions=REGIONS, **_write_inputs(tmp_path))  # type: ignore[arg-type]
    relations = {row["root"]: row for row in stats["relations"]}
    assert len(relations) == 20 and relations["01"]["total"] == 0
    assert {
        r: (row["2025-04"], row["2025-05"], row["share"]) for r, row in relations.items() if row["total"]
    } == {
        "04": (1, 0, 0.2),
        "05": (0, 1, 0.2),
        "14": (0, 1, 0.2),
        "17": (0, 1, 0.2),
        "19": (1, 0, 0.2),
    }
    classes = {
        (r["mapping"], r["quad_class"]): (r["2025-04"], r["2025-05"], r["total"])
        for r in stats["quad_classes"]
    }
    # roots: April 04 19, May 05 14 17
    # gdelt (01-05/06-09/10-14/15-20): 04 05 -> 1; 14 -> 3; 17 19 -> 4
    #   class 1: April 04, May 05 -> (1, 1, 2); class 3: May 14 -> (0, 1, 1); class 4: April 19, May 17
    # mirai (01-04/05-08/09-16/17-20): 04 -> 1, 05 -> 2, 14 -> 3, 17 19 -> 4
    assert classes == {
        ("gdelt", 1): (1, 1, 2),
        ("gdelt", 2): (0, 0, 0),
        ("gdelt", 3): (0, 1, 1),
        ("gdelt", 4): (1, 1, 2),
        ("mirai", 1): (1, 0, 1),
        ("mirai", 2): (0, 1, 1),
        ("mirai", 3): (0, 1, 1),
        ("mirai", 4): (1, 1, 2),
    }
    assert [(r["subject_region"], r["object_region"], r["total"]) for r in stats["region_pairs"]] == [
        ("Northern America", "Eastern Asia", 2),
        ("Eastern Europe", "Eastern Europe", 1),
        ("Eastern Europe", "Unknown", 1),
        ("Western Europe", "Western Europe", 1),
    ]
    assert [r["relation"] for r in stats["top_relations"]] == ["042", "051", "141", "173", "190"]
    markdown = gdelt_stats_markdown(stats, {"042": "Pay a visit"})
    assert "| 042 | Pay a visit | 1 |" in markdown
    # 190 is not in the user's codebook: its label comes from the shipped CAMEO table
    assert f"| 190 | {CAMEO_CODES['190']} | 1 |" in markdown
    assert "| total | 12 | 7 | 5 | 7 | 4 | 6 | 3 | 3 | 1.67 |" in markdown
    csvs = plot_series(stats)
    assert csvs["mirai_regions.csv"].splitlines()[:2] == [
        "subject_region,object_region,2025-04,2025-05,total",
        "Northern America,Eastern Asia,2,0,2",
    ]


def test_missing_input_is_named(tmp_path: Path) -> None:
    inputs = _write_inputs(tmp_path)
    Path(str(inputs["articles"])).unlink()
    with pytest.raises(FileNotFoundError, match=r"articles\.parquet"):
        gdelt_statistics(MONTHS, regions=REGIONS, **inputs)  # type: ignore[arg-type]


PARAMS = """months: ["2025-04", "2025-05"]
relation_split:
  min_daily_mentions: 100
  min_articles: 5
  queries_per_month: 2
  seed: 7
  balance_weights: {date: 1.0, root: 1.0, region: 1.0, country: 1.0}
  horizons_days: [1, 7, 30, 90]
"""


def _run(module: str, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *extra], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def _run_here(monkeypatch: pytest.MonkeyPatch, cwd: Path, module: str, *extra: str) -> int:
    """The stage's own entry point in this process (a stage process is ~1 s of CPU of imports; the exit status
    and one-line error of a real process are test_relation_split_without_quads_fails_clearly's)."""
    from almanac.mirai.relation_split_stage import run as relation_split
    from almanac.reports.mirai_stats_report_stage import run as mirai_stats_report

    run = {"relation_split": relation_split, "mirai_stats_report": mirai_stats_report}[module]
    with monkeypatch.context() as scoped:
        scoped.chdir(cwd)
        scoped.setattr(sys, "argv", [f"stages/{module}.py", *extra])
        scoped.setattr(sys, "excepthook", sys.excepthook)  # the stage sets its one-line hook
        return run()


@pytest.mark.slow  # runs the stages in this process (~3 s)
def test_stages_end_to_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write_inputs(tmp_path)
    (tmp_path / "params.yaml").write_text(PARAMS)
    rows = [
        quad(f"2025-05-{d:02d}", s, "042", o, 150, urls(f"{d}{s}", 6))
        for d in (1, 15, 31)
        for s, o in (("USA", "CHN"), ("FRA", "DEU"))
    ] + [quad("2025-06-01", "USA", "042", "CHN", 150, urls("june", 6))]  # next month: not in May's split
    write_parquet(table(rows), tmp_path / "data/gdelt/clean/quads.parquet")
    # The paper recipe (the default) counts only articles whose cleaned text survived: every event keeps
    # 6 of 6 except FRA->DEU on May 31, which keeps 4 of 6 (< 5) and is rejected event_too_few_articles.
    lost = {"https://news.example/31FRA/4", "https://news.example/31FRA/5"}
    texts = [url for row in rows for url in row["urls"] if url not in lost]
    write_parquet(pa.table({"url": texts}), tmp_path / "data/gdelt/articles.parquet")
    for month in MONTHS:
        assert _run_here(monkeypatch, tmp_path, "relation_split", "--month", month) == 0
    may = json.loads((tmp_path / "reports/metrics/relation_split/2025-05.json").read_text())
    assert (may["groups"], may["candidates"], may["sampled"], may["items_in"]) == (6, 5, 2, 6)
    assert may["recipe"] == "paper"
    assert may["rejected_by_reason"] == {"event_too_few_articles": 1, "not_sampled": 3}
    april = json.loads((tmp_path / "reports/metrics/relation_split/2025-04.json").read_text())
    assert april["groups"] == 0 and april["sampled"] == 0 and april["took_all_candidates"]
    first = (tmp_path / "data/mirai/queries/2025-05.parquet").read_bytes()
    assert _run_here(monkeypatch, tmp_path, "relation_split", "--month", "2025-05") == 0
    assert (tmp_path / "data/mirai/queries/2025-05.parquet").read_bytes() == first
    # relaxed: the same six day-pairs all pass on their URLs, whatever text survived.
    (tmp_path / "params.yaml").write_text(PARAMS + "mirai: {recipe: relaxed}\n")
    assert _run_here(monkeypatch, tmp_path, "relation_split", "--month", "2025-05") == 0
    relaxed = json.loads((tmp_path / "reports/metrics/relation_split/2025-05.json").read_text())
    assert (relaxed["recipe"], relaxed["candidates"], relaxed["rejected_by_reason"]) == (
        "relaxed",
        6,
        {"not_sampled": 4},
    )
    assert _run_here(monkeypatch, tmp_path, "mirai_stats_report", "--step", "gdelt_stats") == 0
    stats = json.loads((tmp_path / "reports/metrics/gdelt_stats.json").read_text())
    assert [row["queries"] for row in stats["counts"]] == [0, 2, 2]
    assert (
        (tmp_path / "reports/mirai_stats.md").read_text().startswith("# GDELT events and MIRAI-style queries")
    )
    assert sorted(p.name for p in (tmp_path / "reports/plots").iterdir()) == [
        "mirai_counts.csv",
        "mirai_quad_classes.csv",
        "mirai_regions.csv",
        "mirai_relations.csv",
    ]


def test_relation_split_without_quads_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "params.yaml").write_text(PARAMS)
    result = _run("stages.relation_split", tmp_path, "--month", "2025-05")
    assert result.returncode == 1 and "quads.parquet" in result.stderr
