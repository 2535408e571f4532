"""gdelt_clean: each MIRAI rule on hand-built export rows, its switch, the threshold and the quads."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import sys
import time
import zipfile
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.ids import canonical_url, content_id
from almanac.core.io import read_json, write_parquet
from almanac.core.params import load_params, parse_section
from almanac.core.rejects import TableLedger
from almanac.core.schemas import table_from_rows
from almanac.gdelt.clean import (
    CLEAN_EVENT_SCHEMA,
    QUAD_SCHEMA,
    CleanResult,
    GdeltCleanConfig,
    clean_events,
)
from almanac.gdelt.ingest import FileTask, ingest_file
from almanac.gdelt.schema import EXPORT_SCHEMA

ROOT = Path(__file__).resolve().parents[2]
REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "gdelt"
MAY_1 = date(2025, 5, 1)
NOON_MAY_1 = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
DEFAULT = GdeltCleanConfig()
ALL_OFF = GdeltCleanConfig(
    drop_duplicate_event_ids=False,
    reported_today=False,
    earliest_date_per_url=False,
    require_countries=False,
    drop_same_country=False,
    drop_unknown_root=False,
    mention_threshold=0,
)


def export_row(event_id: int, **overrides: Any) -> dict[str, Any]:
    """An export row USA -> CHN, "042" on 2025-05-01, 60 mentions, with its own URL and source line."""
    row: dict[str, Any] = dict.fromkeys(EXPORT_SCHEMA.names)
    row.update(
        GlobalEventID=event_id,
        Day=MAY_1,
        MonthYear=202505,
        Year=2025,
        DATEADDED=NOON_MAY_1,
        Actor1CountryCode="USA",
        Actor2CountryCode="CHN",
        EventCode="0421",
        EventBaseCode="042",
        EventRootCode="04",
        QuadClass=1,
        NumMentions=60,
        NumSources=3,
        NumArticles=6,
        GoldsteinScale=1.9,
        AvgTone=-0.5,
        SOURCEURL=f"https://news.example/story-{event_id}",
        gdelt_version="2.0",
        source=f"20250501120000.export.CSV:{event_id}",
    )
    row.update(overrides)
    return row


def run(rows: list[dict[str, Any]], config: GdeltCleanConfig = DEFAULT) -> tuple[CleanResult, TableLedger]:
    ledger = TableLedger("gdelt_clean")
    result = clean_events(table_from_rows(rows, EXPORT_SCHEMA), config, ledger)
    assert result.events.schema == CLEAN_EVENT_SCHEMA
    assert result.quads.schema == QUAD_SCHEMA
    ledger.check_balance()
    assert ledger.items_in == len(rows)
    return result, ledger


def kept_ids(result: CleanResult) -> list[int]:
    ids: list[int] = result.events.column("global_event_id").to_pylist()
    return ids


def rejects(ledger: TableLedger) -> list[tuple[str, str]]:
    return [(row["id"], row["reason"]) for row in ledger.rejects_table().to_pylist()]


def only(config_field: str, **extra: Any) -> GdeltCleanConfig:
    """Every rule off except one (and the threshold at 0), to see that rule alone."""
    changes: dict[str, Any] = {config_field: True, **extra}
    return dataclasses.replace(ALL_OFF, **changes)


def test_duplicate_event_ids_keep_the_earliest_added_then_the_first_source() -> None:
    rows = [
        export_row(7, DATEADDED=datetime(2025, 5, 1, 12, 15, tzinfo=UTC), source="b.export.CSV:1"),
        export_row(7, DATEADDED=NOON_MAY_1, source="c.export.CSV:1", NumMentions=61),
        export_row(8, source="b.export.CSV:9"),
        export_row(8, source="a.export.CSV:9", NumMentions=62),  # same DATEADDED: "a..." comes first
    ]
    result, ledger = run(rows, only("drop_duplicate_event_ids"))
    assert sorted(result.events.column("num_mentions").to_pylist()) == [61, 62]
    table = ledger.rejects_table().to_pylist()
    assert [(r["source"], r["reason"], r["related_id"]) for r in table] == [
        ("b.export.CSV:1", "duplicate_event_id", "c.export.CSV:1"),
        ("b.export.CSV:9", "duplicate_event_id", "a.export.CSV:9"),
    ]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [7, 7, 8, 8]  # switched off: every copy stays


def test_reported_today_compares_day_with_the_utc_date_added() -> None:
    rows = [
        export_row(1),
        export_row(2, Day=date(2025, 4, 30)),  # an older event reported on May 1
        export_row(3, DATEADDED=datetime(2025, 5, 1, 23, 59, 59, tzinfo=UTC)),
        export_row(4, DATEADDED=datetime(2025, 5, 2, 0, 0, 0, tzinfo=UTC)),  # one second later: next day
    ]
    result, ledger = run(rows, only("reported_today"))
    assert kept_ids(result) == [1, 3]
    assert rejects(ledger) == [("2", "not_reported_today"), ("4", "not_reported_today")]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [1, 2, 3, 4]


@pytest.fixture
def far_east_timezone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process runs at UTC+14, where 2025-05-01 12:00 UTC is already May 2."""
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("far_east_timezone")
def test_reported_today_does_not_depend_on_the_machine_time_zone() -> None:
    result, _ = run([export_row(1)], only("reported_today"))
    assert kept_ids(result) == [1]


def test_earliest_date_per_canonical_url() -> None:
    url = "https://www.wire.example/world/talks"
    rows = [
        export_row(1, SOURCEURL=url),
        # the same page (tracking parameter, upper-case host) crawled again the next day
        export_row(
            2,
            SOURCEURL="https://WWW.wire.example/world/talks?utm_source=feed",
            Day=date(2025, 5, 2),
            DATEADDED=datetime(2025, 5, 2, 8, tzinfo=UTC),
        ),
        export_row(3, SOURCEURL=url, EventBaseCode="036", EventCode="036", EventRootCode="03"),
        export_row(4, Day=date(2025, 5, 2), DATEADDED=datetime(2025, 5, 2, 8, tzinfo=UTC)),  # other URL
    ]
    result, ledger = run(rows, only("earliest_date_per_url"))
    assert kept_ids(result) == [1, 3, 4]
    table = ledger.rejects_table().to_pylist()
    assert [(r["id"], r["reason"], r["related_id"]) for r in table] == [
        ("2", "not_earliest_url_date", canonical_url(url))
    ]
    assert "first seen on 2025-05-01" in table[0]["detail"]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [1, 2, 3, 4]


def test_countries_are_required_and_mapped_to_iso() -> None:
    rows = [
        export_row(1, Actor1CountryCode="ROM"),  # Romania's CAMEO code
        export_row(2, Actor2CountryCode="AFR"),  # a region
        export_row(3, Actor1CountryCode="YUG"),  # an outdated state
        export_row(4, Actor1CountryCode=None),
        export_row(5, Actor1CountryCode=None, Actor2CountryCode=None),
        export_row(6, Actor1CountryCode="TMP", Actor2CountryCode="IMY"),
    ]
    result, ledger = run(rows, only("require_countries"))
    events = result.events.to_pylist()
    assert [(e["global_event_id"], e["subject"], e["object"]) for e in events] == [
        (1, "ROU", "CHN"),
        (6, "TLS", "IMN"),
    ]
    assert (events[0]["subject_cameo"], events[1]["object_cameo"]) == ("ROM", "IMY")
    table = {row["id"]: (row["reason"], row["detail"]) for row in ledger.rejects_table().to_pylist()}
    assert table == {
        "2": ("unknown_country_code", "Actor2CountryCode AFR: region: Africa"),
        "3": ("unknown_country_code", "Actor1CountryCode YUG: outdated: Yugoslavia"),
        "4": ("missing_country", "Actor1CountryCode is empty"),
        "5": ("missing_country", "Actor1CountryCode and Actor2CountryCode are empty"),
    }
    # switched off: rows stay; mapped codes still become ISO, others keep their raw code
    off = run(rows, ALL_OFF)[0].events.to_pylist()
    assert [(e["subject"], e["object"]) for e in off] == [
        ("ROU", "CHN"),
        ("USA", "AFR"),
        ("YUG", "CHN"),
        (None, "CHN"),
        (None, None),
        ("TLS", "IMN"),
    ]


def test_same_country_is_compared_after_mapping() -> None:
    rows = [
        export_row(1, Actor2CountryCode="USA"),
        export_row(2, Actor1CountryCode="ROM", Actor2CountryCode="ROU"),  # both Romania
        export_row(3, Actor1CountryCode="WSB", Actor2CountryCode="GZS"),  # both Palestine
        export_row(4),
    ]
    result, ledger = run(rows, only("drop_same_country", require_countries=True))
    assert kept_ids(result) == [4]
    details = {row["id"]: row["detail"] for row in ledger.rejects_table().to_pylist()}
    assert details == {
        "1": "subject and object are both USA",
        "2": "subject and object are both ROU",
        "3": "subject and object are both PSE",
    }
    assert kept_ids(run(rows, only("require_countries"))[0]) == [1, 2, 3, 4]


def test_unknown_root_code_and_relation_is_the_base_code() -> None:
    rows = [
        export_row(1, EventRootCode="--", EventBaseCode="---", EventCode="---"),
        export_row(2, EventRootCode=None),
        export_row(3, EventCode="1712", EventBaseCode="171", EventRootCode="17", QuadClass=4),
    ]
    result, ledger = run(rows, only("drop_unknown_root"))
    events = result.events.to_pylist()
    assert [(e["global_event_id"], e["event_code"], e["relation"], e["relation_root"]) for e in events] == [
        (3, "1712", "171", "17")
    ]
    assert rejects(ledger) == [("1", "unknown_root_code"), ("2", "unknown_root_code")]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [1, 2, 3]


def test_rows_without_a_usable_source_url_are_always_rejected() -> None:
    rows = [
        export_row(1, SOURCEURL=None),
        export_row(2, SOURCEURL="http://bad.example:port/x"),
        export_row(3),
    ]
    result, ledger = run(rows, ALL_OFF)
    assert kept_ids(result) == [3]
    assert rejects(ledger) == [("1", "missing_source_url"), ("2", "bad_source_url")]


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
        assert gdelt_clean.main() == 0
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
