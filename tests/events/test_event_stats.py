"""event_stats on a tiny input whose tables were worked out by hand."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from almanac.core.io import write_parquet
from almanac.core.schemas import table_from_rows
from almanac.events.samples import SAMPLE_SCHEMAS, TASKS
from almanac.events.split import split_samples, write_splits
from almanac.reports.event_stats import event_statistics, event_stats_markdown, plot_series
from tests.events.task_timelines import WINDOWS, sample, table, timeline

TIMELINES = [
    # 5 events, day-dated from 2025-03-01 to 2025-03-09 (one undated, one month-dated)
    timeline(
        "w1",
        [("a", "2025-03-01"), ("b", "2025-03-02"), ("c",), ("d", "2025-03"), ("e", "2025-03-09")],
    ),
    # 12 events, 2025-01-01 .. 2025-01-12
    timeline("w2", [(f"s{i}", f"2025-01-{i:02d}") for i in range(1, 13)], topic="Sports"),
    # 6 events, 2025-06-01 .. 2025-06-06
    timeline("c1", [(f"c{i}", f"2025-06-{i:02d}") for i in range(1, 7)], origin="wcep"),
]


def build_inputs(root: Path) -> tuple[Path, Path]:
    write_parquet(table(TIMELINES), root / "timelines.parquet")
    march, june = date(2025, 3, 2), date(2025, 6, 3)
    rows = [
        sample("stf", "s1", "train", march, ce_id="w1"),
        sample("ltf", "l1", "train", march, ce_id="w1"),
        sample("aqa", "a1", "train", march, ce_id="w1"),
        sample("ltf", "l2", "train", date(2025, 3, 5), ce_id="w2"),
        sample("stf", "s2", "test", june, ce_id="c1"),
        sample("mcnc", "m1", "test", june, ce_id="c1"),
        sample("vqa", "v1", "test", june, ce_id="c1", mcnc_sample_id="m1"),
        sample("vqa", "v2", "test", june, ce_id="c1", mcnc_sample_id="m1", label="No", candidate="x"),
    ]
    samples = {t: table_from_rows([r for r in rows if r["task"] == t], SAMPLE_SCHEMAS[t]) for t in TASKS}
    released, ledger = split_samples(samples, WINDOWS)
    assert not ledger.rejects
    write_splits(released, root / "splits")
    return root / "timelines.parquet", root / "splits"


def test_paper_style_tables(tmp_path: Path) -> None:
    stats = event_statistics(*build_inputs(tmp_path))
    assert stats["origins"] == ["wikipedia", "wcep"]
    assert stats["by_origin"] == [
        {
            "origin": "wikipedia",
            "complex_events": 2,
            "atomic_events": 17,
            "atomic_events_per_complex_event": 8.5,
            "first_day": "2025-01-01",
            "last_day": "2025-03-09",
        },
        {
            "origin": "wcep",
            "complex_events": 1,
            "atomic_events": 6,
            "atomic_events_per_complex_event": 6.0,
            "first_day": "2025-06-01",
            "last_day": "2025-06-06",
        },
        {
            "origin": "total",
            "complex_events": 3,
            "atomic_events": 23,
            "atomic_events_per_complex_event": 7.67,
            "first_day": "2025-01-01",
            "last_day": "2025-06-06",
        },
    ]
    splits = stats["splits"]
    assert splits["complex_events"] == {"train": 2, "validation": 0, "test": 1}
    assert splits["atomic_events"] == {"train": 17, "validation": 0, "test": 6}
    assert splits["stf"] == {"train": 1, "validation": 0, "test": 1}
    assert splits["ltf"] == {"train": 2, "validation": 0, "test": 0}
    assert splits["vqa"] == {"train": 0, "validation": 0, "test": 2}
    assert splits["mcac"] == {"train": 0, "validation": 0, "test": 0}
    assert stats["topics"] == [
        {"topic": "Politics and elections", "wikipedia": 1, "wcep": 1, "total": 2},
        {"topic": "Sports", "wikipedia": 1, "wcep": 0, "total": 1},
    ]
    histogram = {row["atomic_events"]: row for row in stats["atomic_events_per_complex_event"]}
    assert histogram["5-9"] == {"atomic_events": "5-9", "wikipedia": 1, "wcep": 1, "total": 2}
    assert histogram["10-14"]["total"] == 1 and histogram["0-4"]["total"] == 0 and "100+" in histogram

    markdown = event_stats_markdown(stats)
    assert "| CEs | 2 | 0 | 1 |" in markdown and "| VQA | 0 | 0 | 2 |" in markdown
    assert "| wikipedia | 2 | 17 | 8.5 | 2025-01-01 | 2025-03-09 |" in markdown
    plots = plot_series(stats)
    assert plots["openforecast_topics.csv"].splitlines() == [
        "topic,wikipedia,wcep,total",
        "Politics and elections,1,1,2",
        "Sports,1,0,1",
    ]
    assert plots["openforecast_splits.csv"].splitlines()[1] == "complex_events,2,0,1"


def test_empty_splits_still_give_every_table(tmp_path: Path) -> None:
    write_parquet(table(TIMELINES[:1]), tmp_path / "timelines.parquet")
    released, _ = split_samples({}, WINDOWS)
    write_splits(released, tmp_path / "splits")
    stats = event_statistics(tmp_path / "timelines.parquet", tmp_path / "splits")
    assert stats["splits"]["complex_events"] == {"train": 0, "validation": 0, "test": 0}
    assert stats["splits"]["aqa"] == {"train": 0, "validation": 0, "test": 0}
    assert stats["by_origin"][0]["complex_events"] == 1 and "| AQA | 0 | 0 | 0 |" in event_stats_markdown(
        stats
    )
