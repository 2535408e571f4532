"""gdelt_clean: the mention threshold, the quads, the funnel, the config and the stage on real and rerun files."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import sys
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.ids import content_id
from almanac.core.io import read_json, write_parquet
from almanac.core.params import load_params, parse_section
from almanac.core.rejects import TableLedger
from almanac.core.schemas import table_from_rows
from almanac.gdelt.clean import (
    GdeltCleanConfig,
    clean_events,
)
from almanac.gdelt.ingest import FileTask, ingest_file
from almanac.gdelt.schema import EXPORT_SCHEMA
from tests.gdelt.clean_rows import DEFAULT, export_row, kept_ids, only, run

ROOT = Path(__file__).resolve().parents[2]
REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "gdelt"


def quad_rows(mentions: list[int]) -> list[dict[str, Any]]:
    return [export_row(index + 1, NumMentions=count) for index, count in enumerate(mentions)]


@pytest.mark.parametrize(
    ("mentions", "comparison", "kept"),
    [
        ([20, 30], ">=", True),  # exactly 50: "at least 50" keeps it ...
        ([20, 30], ">", False),  # ... "> 50" does not
        ([20, 31], ">", True),
        ([20, 29], ">=", False),
    ],
)
def test_threshold_comparison_at_exactly_fifty(mentions: list[int], comparison: str, kept: bool) -> None:
    config = GdeltCleanConfig(mention_threshold=50, mention_comparison=comparison)
    result, ledger = run(quad_rows(mentions), config)
    quad_id = content_id("2025-05-01", "USA", "042", "CHN")
    if kept:
        assert result.quads.column("quad_id").to_pylist() == [quad_id]
        assert kept_ids(result) == [1, 2]
    else:
        assert result.quads.num_rows == 0 and kept_ids(result) == []
        table = ledger.rejects_table().to_pylist()
        assert [(r["id"], r["reason"], r["related_id"]) for r in table] == [
            ("1", "below_mention_threshold", quad_id),
            ("2", "below_mention_threshold", quad_id),
        ]
        total = sum(mentions)
        assert table[0]["detail"] == (
            f"quad (2025-05-01, USA, 042, CHN) has {total} daily mentions;"
            f" kept only if num_daily_mentions {comparison} 50"
        )


def test_quads_sum_mentions_per_date_subject_relation_object() -> None:
    shared_url = "https://news.example/shared"
    rows = [
        export_row(1, NumMentions=10, SOURCEURL=shared_url),
        export_row(2, NumMentions=20, SOURCEURL=shared_url + "?utm_medium=x"),  # same canonical URL
        export_row(3, NumMentions=25),
        export_row(4, NumMentions=7, EventBaseCode="043", EventCode="043"),  # another relation
        export_row(5, NumMentions=9, Actor1CountryCode="CHN", Actor2CountryCode="USA"),  # reversed
        export_row(
            6,
            NumMentions=11,
            Day=date(2025, 5, 2),
            DATEADDED=datetime(2025, 5, 2, 9, tzinfo=UTC),
        ),  # next day
    ]
    result, _ = run(rows, dataclasses.replace(DEFAULT, mention_threshold=0))
    quads = result.quads.to_pylist()
    summary = [
        (
            str(q["date"]),
            q["subject"],
            q["relation"],
            q["object"],
            q["num_daily_mentions"],
            q["n_events"],
            q["n_urls"],
        )
        for q in quads
    ]
    assert summary == [
        ("2025-05-01", "CHN", "042", "USA", 9, 1, 1),
        ("2025-05-01", "USA", "042", "CHN", 55, 3, 2),
        ("2025-05-01", "USA", "043", "CHN", 7, 1, 1),
        ("2025-05-02", "USA", "042", "CHN", 11, 1, 1),
    ]
    assert quads[1]["urls"] == ["https://news.example/shared", "https://news.example/story-3"]
    assert quads[1]["quad_id"] == content_id("2025-05-01", "USA", "042", "CHN")
    assert (quads[1]["relation_root"], quads[1]["quad_class"]) == ("04", 1)


def test_funnel_counts_each_rule_in_order() -> None:
    rows = [
        export_row(1),
        export_row(1, source="late.export.CSV:1", DATEADDED=datetime(2025, 5, 1, 13, tzinfo=UTC)),
        export_row(2, Day=date(2025, 4, 30)),
        export_row(3, Actor2CountryCode="EUR"),
        export_row(4, Actor2CountryCode="USA"),
        export_row(5, NumMentions=10, EventBaseCode="043", EventCode="043"),
        export_row(6),
    ]
    result, ledger = run(rows)
    assert kept_ids(result) == [1, 6]
    assert result.quad_counts == {"quads_kept": 1, "quads_below_threshold": 1, "events_below_threshold": 1}
    remaining = {step["rule"]: step["remaining"] for step in result.funnel}
    assert remaining == {
        "sanity:source_url": 7,
        "drop_duplicate_event_ids": 6,
        "reported_today": 5,
        "earliest_date_per_url": 5,
        "require_countries": 4,
        "drop_same_country": 3,
        "drop_unknown_root": 3,
        "sanity:event_code": 3,
        "mention_threshold": 2,
    }
    metrics = ledger.metrics()
    assert (metrics["items_in"], metrics["items_out"], metrics["rejected"]) == (7, 2, 5)
    assert metrics["rejected_by_reason"] == {
        "below_mention_threshold": 1,
        "duplicate_event_id": 1,
        "not_reported_today": 1,
        "same_country": 1,
        "unknown_country_code": 1,
    }


def test_config_validation_and_params_file() -> None:
    with pytest.raises(ValueError, match="mention_comparison"):
        GdeltCleanConfig(mention_comparison="=>")
    with pytest.raises(ValueError, match=">= 0"):
        GdeltCleanConfig(mention_threshold=-1)
    with pytest.raises(ValueError, match="integer"):
        GdeltCleanConfig(mention_threshold=50.5)  # type: ignore[arg-type]
    config = parse_section(GdeltCleanConfig, load_params(ROOT / "params.yaml"), "gdelt_clean")
    assert config.mention_comparison in (">=", ">") and config.mention_threshold == 50


def test_real_export_file_matches_a_plain_reading_of_its_lines() -> None:
    """On a real GDELT 2.0 export, rules 'reported today' and 'countries' agree with a csv-module count."""
    if not REALDATA.is_dir():
        pytest.skip(f"real GDELT samples not found at {REALDATA}")
    path = REALDATA / "20190121220000.export.CSV.zip"
    export = ingest_file(FileTask(str(path), path.name, "export")).events
    with zipfile.ZipFile(path) as archive:
        text = archive.read(archive.namelist()[0]).decode("utf-8")
    lines = list(csv.reader(text.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE))
    assert export.num_rows == len(lines)
    today = [fields for fields in lines if fields[1] == fields[59][:8]]
    ledger = TableLedger("gdelt_clean")
    assert clean_events(export, only("reported_today"), ledger).events.num_rows == len(today)
    ledger = TableLedger("gdelt_clean")
    with_countries = [fields for fields in lines if fields[7] and fields[17]]
    missing = clean_events(export, only("require_countries"), ledger)
    assert ledger.rejected_by_reason.get("missing_country") == len(lines) - len(with_countries)
    assert missing.events.num_rows + ledger.rejected_by_reason.get("unknown_country_code", 0) == len(
        with_countries
    )


def test_stage_reruns_are_byte_identical_and_ignore_row_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stages import gdelt_clean

    rows = [
        export_row(index, NumMentions=20 + index, Actor2CountryCode=("CHN", "RUS", "ROM")[index % 3])
        for index in range(1, 13)
    ]
    rows.append(export_row(5, source="z.export.CSV:1"))  # a duplicate id
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["months"] = ["2025-05"]
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["gdelt_clean"])
    outputs = ("events.parquet", "quads.parquet", "rejects.parquet")

    def build(order: list[dict[str, Any]]) -> dict[str, str]:
        write_parquet(table_from_rows(order, EXPORT_SCHEMA), tmp_path / "data/gdelt/events/2025-05.parquet")
        assert gdelt_clean.run() == 0
        return {
            name: hashlib.sha256((tmp_path / "data/gdelt/clean" / name).read_bytes()).hexdigest()
            for name in outputs
        }

    first = build(rows)
    assert build(rows) == first
    assert build(list(reversed(rows))) == first
    metrics = read_json(tmp_path / "reports/metrics/gdelt_clean.json")
    assert metrics["items_in"] == 13 and metrics["items_out"] + metrics["rejected"] == 13
    assert metrics["mention_rule"] == "num_daily_mentions >= 50"
    assert [step["rule"] for step in metrics["funnel"]][-1] == "mention_threshold"
    assert pq.read_table(tmp_path / "data/gdelt/clean/quads.parquet").num_rows == metrics["quads_kept"]


def test_table_ledger_merges_row_and_table_rejects() -> None:
    from almanac.core.schemas import REJECT_SCHEMA

    ledger = TableLedger("gdelt_clean", items_in=4, items_out=1)
    ledger.reject("9", "same_country", "both USA", "b.CSV:2")
    rows = [
        {"id": "7", "stage": "gdelt_clean", "reason": "missing_country", "detail": "", "source": "b.CSV:1"},
        {"id": "8", "stage": "gdelt_clean", "reason": "missing_country", "detail": "", "source": "a.CSV:5"},
    ]
    ledger.reject_table(table_from_rows([{**row, "related_id": None} for row in rows], REJECT_SCHEMA))
    assert [row["source"] for row in ledger.rejects_table().to_pylist()] == ["a.CSV:5", "b.CSV:1", "b.CSV:2"]
    metrics = ledger.metrics()
    assert metrics["rejected"] == 3
    assert metrics["rejected_by_reason"] == {"missing_country": 2, "same_country": 1}
    ledger.items_in = 5
    with pytest.raises(AssertionError, match="lost without a reject row"):
        ledger.check_balance()
    other_stage = [{**rows[0], "stage": "gdelt_ingest", "related_id": None}]
    with pytest.raises(ValueError, match="stages"):
        ledger.reject_table(table_from_rows(other_stage, REJECT_SCHEMA))
