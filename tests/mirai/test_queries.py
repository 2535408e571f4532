"""relation_split on hand-built quads: month boundaries, group thresholds, answers, determinism."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import pyarrow as pa
import pytest

from almanac.core.ids import content_id
from almanac.core.io import write_parquet
from almanac.core.params import parse_section
from almanac.mirai.queries import (
    QUERY_SCHEMA,
    BalanceWeights,
    RelationSplitConfig,
    build_month,
    date_text,
    month_window,
    read_quads,
)
from tests.mirai.quads import REGIONS, quad, table, urls

# thresholds small enough to write groups by hand
CONFIG = RelationSplitConfig(min_daily_mentions=100, min_articles=5, queries_per_month=100, seed=7)


def _strong(day: str, subject: str = "USA", obj: str = "CHN", relation: str = "042") -> dict[str, object]:
    return quad(day, subject, relation, obj, 120, urls(f"{day}{subject}{obj}", 5))


@pytest.mark.parametrize(
    ("month", "last"),
    [("2024-02", 29), ("2025-02", 28), ("2025-04", 30), ("2025-05", 31), ("2025-12", 31)],
)
def test_month_window_is_first_to_last_calendar_day(month: str, last: int) -> None:
    first_day, last_day = month_window(month)
    year, number = int(month[:4]), int(month[5:])
    assert first_day == date(year, number, 1)
    assert last_day == date(year, number, last)


@pytest.mark.parametrize(
    ("month", "inside", "outside"),
    [
        ("2025-05", ["2025-05-01", "2025-05-31"], ["2025-04-30", "2025-06-01"]),
        ("2025-04", ["2025-04-01", "2025-04-30"], ["2025-03-31", "2025-05-01"]),
        ("2024-02", ["2024-02-01", "2024-02-29"], ["2024-01-31", "2024-03-01"]),
        ("2025-02", ["2025-02-01", "2025-02-28"], ["2025-01-31", "2025-03-01"]),
        ("2025-12", ["2025-12-01", "2025-12-31"], ["2025-11-30", "2026-01-01"]),
    ],
)
def test_events_on_the_first_and_last_day_are_in_the_days_around_are_out(
    month: str, inside: list[str], outside: list[str]
) -> None:
    quads = table([_strong(day) for day in inside + outside])
    queries, ledger = build_month(quads, month, CONFIG, REGIONS)
    assert sorted(d.isoformat() for d in queries.column("date").to_pylist()) == inside
    assert ledger.extra["quads_in_month"] == 2 and ledger.extra["groups"] == 2


def test_query_row_answers_and_horizons() -> None:
    day = "2025-05-12"
    quads = table(
        [
            quad(day, "USA", "190", "CHN", 50, ["https://a.example/1", "https://a.example/2"]),
            quad(day, "USA", "042", "CHN", 70, ["https://a.example/2", "https://a.example/3"]),
            quad(day, "USA", "036", "CHN", 55, ["https://a.example/4"]),
            quad(day, "USA", "043", "CHN", 60, ["https://a.example/5", "https://a.example/1"]),
            quad(day, "CHN", "042", "USA", 500, urls("reverse", 9)),  # the other direction: its own query
        ]
    )
    queries, _ = build_month(quads, "2025-05", CONFIG, REGIONS)
    assert queries.schema == QUERY_SCHEMA
    rows = {row["query"]: row for row in queries.to_pylist()}
    assert set(rows) == {"(2025-05-12, USA, ?, CHN)", "(2025-05-12, CHN, ?, USA)"}
    row = rows["(2025-05-12, USA, ?, CHN)"]
    assert row["query_id"] == content_id("2025-05-12", "USA", "CHN")
    assert row["month"] == "2025-05" and row["date"] == date(2025, 5, 12)
    assert row["date_text"] == "May 12, 2025"
    assert (row["subject"], row["object"]) == ("USA", "CHN")
    assert (row["subject_region"], row["object_region"]) == ("Northern America", "Eastern Asia")
    assert row["answers"] == ["036", "042", "043", "190"]
    assert row["answers_by_root"] == [
        {"root": "03", "relations": ["036"]},
        {"root": "04", "relations": ["042", "043"]},
        {"root": "19", "relations": ["190"]},
    ]
    assert row["answer_roots"] == ["03", "04", "19"]
    assert row["num_daily_mentions"] == 50 + 70 + 55 + 60
    assert row["n_articles"] == 5  # a.example/1..5, two of them shared between quads
    assert row["urls"] == [f"https://a.example/{i}" for i in range(1, 6)]
    # May 12 - 30 days = April 12; - 90 days = February 11 (12 + 30 + 31 + 17)
    assert row["horizons"] == [
        {"days": 1, "last_history_date": date(2025, 5, 11)},
        {"days": 7, "last_history_date": date(2025, 5, 5)},
        {"days": 30, "last_history_date": date(2025, 4, 12)},
        {"days": 90, "last_history_date": date(2025, 2, 11)},
    ]
    assert queries.column("query_id").to_pylist() == sorted(queries.column("query_id").to_pylist())


def test_date_text_has_no_leading_zero() -> None:
    assert date_text(date(2025, 6, 3)) == "June 3, 2025"


def test_thresholds_apply_to_the_group() -> None:
    day = "2025-05-02"
    quads = table(
        [
            # FRA->DEU: 60 + 50 = 110 mentions, 3 + 3 URLs sharing one = 5 articles; no quad alone has
            # 100 mentions or 5 articles, the group has both -> a candidate
            quad(day, "FRA", "042", "DEU", 60, ["u/1", "u/2", "u/3"]),
            quad(day, "FRA", "057", "DEU", 50, ["u/3", "u/4", "u/5"]),
            # RUS->UKR: 99 mentions -> too_few_mentions (even with many articles)
            quad(day, "RUS", "190", "UKR", 99, urls("r", 20)),
            # EGY->NGA: exactly 100 mentions but 4 articles -> too_few_articles
            quad(day, "EGY", "042", "NGA", 100, urls("e", 4)),
            # BRA->AUS: exactly 100 and exactly 5 -> a candidate (both thresholds are >=)
            quad(day, "BRA", "036", "AUS", 100, urls("b", 5)),
        ]
    )
    queries, ledger = build_month(quads, "2025-05", CONFIG, REGIONS)
    assert sorted(queries.column("query").to_pylist()) == [
        "(2025-05-02, BRA, ?, AUS)",
        "(2025-05-02, FRA, ?, DEU)",
    ]
    reasons = {r.detail.split(" ")[1].rstrip(","): r.reason for r in ledger.rejects}
    assert reasons == {"RUS": "too_few_mentions", "EGY": "too_few_articles"}
    metrics = ledger.metrics(0.0)
    assert metrics["items_in"] == 4 and metrics["items_out"] == 2
    assert metrics["rejected_by_reason"] == {"too_few_articles": 1, "too_few_mentions": 1}
    assert metrics["thresholds"]["applied_to"] == "group"


def test_fewer_candidates_than_requested_are_all_taken_and_recorded() -> None:
    quads = table([_strong(f"2025-05-0{i}") for i in range(1, 4)])
    queries, ledger = build_month(quads, "2025-05", CONFIG, REGIONS)
    assert queries.num_rows == 3
    assert ledger.extra["took_all_candidates"] is True
    assert ledger.extra["shortfall"] == 97 and ledger.extra["requested"] == 100


def test_not_sampled_candidates_are_rejects_and_nothing_is_lost() -> None:
    pairs = [("USA", "CHN"), ("FRA", "DEU"), ("RUS", "UKR"), ("JPN", "AUS"), ("BRA", "EGY")]
    quads = table([_strong(f"2025-05-{d:02d}", s, o) for d in range(1, 11) for s, o in pairs])
    config = replace(CONFIG, queries_per_month=12)
    queries, ledger = build_month(quads, "2025-05", config, REGIONS)
    metrics = ledger.metrics(0.0)
    assert queries.num_rows == 12
    assert metrics["items_in"] == 50 and metrics["rejected_by_reason"] == {"not_sampled": 38}
    assert metrics["candidates"] == 50 and metrics["sampled"] == 12 and not metrics["took_all_candidates"]
    assert sum(metrics["sample_distribution"]["date"].values()) == 12
    # 10 dates, 12 picks: every date once before any date twice
    assert sorted(metrics["sample_distribution"]["date"].values()) == [1] * 8 + [2] * 2
    assert sum(metrics["sample_distribution"]["country"].values()) == 24


def test_malformed_quads_are_quarantined() -> None:
    good = _strong("2025-05-03")
    bad = [
        quad("2025-05-03", "USA", "42", "CHN", 200, urls("x", 6), quad_id="bad-code"),
        quad("2025-05-03", "USA", "042", "CHN", 200, urls("y", 6), quad_id="bad-root", relation_root="05"),
        quad("2025-05-03", "USA", "042", "USA", 200, urls("z", 6), quad_id="same-country"),
        quad("2025-05-03", "usa", "042", "CHN", 200, urls("w", 6), quad_id="lower-case"),
        {**good},  # the same quad twice
    ]
    queries, ledger = build_month(table([good, *bad]), "2025-05", CONFIG, REGIONS)
    assert queries.num_rows == 1 and queries.column("num_daily_mentions").to_pylist() == [120]
    invalid = sorted(r.id for r in ledger.rejects if r.reason == "invalid_quad")
    assert invalid == sorted(["bad-code", "bad-root", "same-country", "lower-case", str(good["quad_id"])])
    ledger.check_balance()


def test_country_without_region_is_kept_as_unknown() -> None:
    queries, ledger = build_month(table([_strong("2025-05-04", "XKX", "USA")]), "2025-05", CONFIG, REGIONS)
    assert queries.column("subject_region").to_pylist() == ["Unknown"]
    assert ledger.extra["countries_without_region"] == ["XKX"]


def _many_candidates() -> pa.Table:
    countries = sorted(REGIONS)
    rows = []
    for day in range(1, 29):
        for k in range(4):
            s, o = countries[(day + k) % 12], countries[(day * 5 + k + 1) % 12]
            if s != o:
                rows.append(_strong(f"2025-05-{day:02d}", s, o, relation=f"{(day + k) % 20 + 1:02d}{k}"))
    return table(rows)


def test_same_seed_gives_an_identical_file_other_seed_a_different_one(tmp_path: Path) -> None:
    quads = _many_candidates()
    config = replace(CONFIG, queries_per_month=20)
    paths = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        queries, _ = build_month(quads, "2025-05", replace(config, seed=seed), REGIONS)
        write_parquet(queries, tmp_path / f"{name}.parquet")
        paths.append(tmp_path / f"{name}.parquet")
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()
    # the order of rows in quads.parquet does not matter either
    shuffled, _ = build_month(quads.take(list(range(quads.num_rows))[::-1]), "2025-05", config, REGIONS)
    write_parquet(shuffled, tmp_path / "d.parquet")
    assert (tmp_path / "d.parquet").read_bytes() == paths[0].read_bytes()


def test_config_parses_the_params_section_as_written() -> None:
    params = {
        "relation_split": {
            "min_daily_mentions": 100,
            "min_articles": 5,
            "queries_per_month": 100,
            "seed": 7,
            "balance_weights": {"date": 1.0, "root": 1.0, "region": 1.0, "country": 1},
            "horizons_days": [1, 7, 30, 90],
        }
    }
    config = parse_section(RelationSplitConfig, params, "relation_split")
    assert config.balance_weights == BalanceWeights(1.0, 1.0, 1.0, 1.0)
    assert config.horizons_days == (1, 7, 30, 90)
    with pytest.raises(ValueError, match="unknown keys"):
        parse_section(
            RelationSplitConfig, {"relation_split": {"balance_weights": {"dates": 1}}}, "relation_split"
        )


def test_read_quads_names_missing_columns(tmp_path: Path) -> None:
    write_parquet(pa.table({"quad_id": ["a"], "date": [date(2025, 5, 1)]}), tmp_path / "q.parquet")
    with pytest.raises(ValueError, match="missing columns"):
        read_quads(tmp_path / "q.parquet")
