"""relation_split accounting: steps add up, nothing is lost, bad quads are quarantined, runs are deterministic."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from almanac.core.io import write_parquet
from almanac.core.params import parse_section
from almanac.mirai.recipe import PAPER, RELAXED, rules_of
from almanac.mirai.relation_split import (
    QUERY_SCHEMA,
    BalanceWeights,
    RelationSplitConfig,
    build_month,
    read_quads,
)
from tests.mirai.quads import REGIONS, every_url, quad, table, urls
from tests.mirai.relation_quads import CONFIG, _build, _strong


def _accounting_month() -> list[dict[str, Any]]:
    """Seven day-pairs and one malformed quad; what each recipe does with them is worked out per test."""
    return [
        # G1 USA->CHN: 042 passes both (150, 5); 190 has 60 mentions -> a paper query testing 042 only
        quad("2025-05-01", "USA", "042", "CHN", 150, urls("g1", 5)),
        quad("2025-05-01", "USA", "190", "CHN", 60, urls("g1b", 2)),
        # G2 FRA->DEU: 60 + 60 = 120 mentions, 3 + 3 URLs: relaxed only
        quad("2025-05-01", "FRA", "042", "DEU", 60, urls("g2", 3)),
        quad("2025-05-01", "FRA", "057", "DEU", 60, urls("g2b", 3)),
        # G3 RUS->UKR: 150 mentions, 5 URLs of which 4 with text (paper); relaxed counts 5 URLs
        quad("2025-05-01", "RUS", "190", "UKR", 150, urls("g3", 5)),
        # G4 EGY->NGA: 042 passes (150, 5); 057 is loud (120) but has 3 articles -> no query under the
        # authors' rule (every loud event needs 5 texts); admission any: a query testing 042 only
        quad("2025-05-02", "EGY", "042", "NGA", 150, urls("g4", 5)),
        quad("2025-05-02", "EGY", "057", "NGA", 120, urls("g4b", 3)),
        # G5 BRA->AUS: 200 mentions, 6 URLs: a query under both
        quad("2025-05-03", "BRA", "036", "AUS", 200, urls("g5", 6)),
        # G6 JPN->CAN: 80 mentions (10 URLs): no query under either
        quad("2025-05-02", "JPN", "043", "CAN", 80, urls("g6", 10)),
        # G7 CAN->JPN: 100 + 30 = 130 mentions but 3 + 1 = 4 URLs: no query under either
        quad("2025-05-03", "CAN", "042", "JPN", 100, urls("g7", 3)),
        quad("2025-05-03", "CAN", "057", "JPN", 30, urls("g7b", 1)),
        # malformed: "42" is not a second-level code
        quad("2025-05-03", "USA", "42", "JPN", 500, urls("bad", 9), quad_id="bad-code"),
    ]


def _step(rule: str, unit: str, events: int, queries: int, left: int) -> dict[str, Any]:
    return {
        "rule": rule,
        "unit": unit,
        "events_removed": events,
        "queries_removed": queries,
        "queries_left": left,
    }


def test_paper_steps_add_up() -> None:
    rows = _accounting_month()
    texts = every_url(rows) - {"https://news.example/g3/4"}  # G3: 4 of its 5 URLs kept their text
    config = replace(CONFIG, queries_per_month=2)
    queries, ledger = build_month(table(rows), "2025-05", config, REGIONS, texts=texts)
    # 11 valid events in 7 groups, every one with at least one text (G3 has 4 of 5): none goes for text.
    # mentions: G1's 190, G2's two, G6's one, G7's 057 = 5 events; G2 and G6 lose every event: 7 - 2 = 5 left
    # articles (every loud event needs 5 texts): G3's 190 (4 texts), G4's 042 and 057 (057 has 3), G7's
    # 042 (3) = 4 events; G3, G4 and G7 go: 5 - 3 = 2 left
    # test events: G1 042, G5 036 = 2 (5 + 4 + 2 = 11); 2 candidates for 2 places: none unsampled
    assert ledger.extra["rules"] == [
        _step("invalid_quad", "event", 1, 0, 7),
        _step("event_without_text", "event", 0, 0, 7),
        _step("event_too_few_mentions", "event", 5, 2, 5),
        _step("event_too_few_articles", "event", 4, 3, 2),
        _step("not_sampled", "group", 0, 0, 2),
    ]
    assert [step["rule"] for step in ledger.extra["rules"]] == [rule.reason for rule in rules_of(PAPER)]
    assert ledger.extra["test_events"] == 2 and ledger.extra["candidates"] == 2
    metrics = ledger.metrics()  # checks items_in == items_out + rejected itself; restated here
    assert metrics["items_in"] == 7 + 1 == metrics["items_out"] + metrics["rejected"]
    assert metrics["items_out"] == queries.num_rows == 2
    assert metrics["rejected_by_reason"] == {
        "event_too_few_articles": 3,
        "event_too_few_mentions": 2,
        "invalid_quad": 1,
    }
    assert "057: 3 of 3 URLs" in next(r.detail for r in ledger.rejects if "EGY" in r.detail)
    # admission any (one loud event with 5 texts suffices): G4 stays with 042 as its test event, so
    # articles remove 3 events (G3's, G4's 057, G7's) and 2 queries; sampling 2 of 3 drops 1
    _, anyone = build_month(table(rows), "2025-05", replace(config, admission="any"), REGIONS, texts=texts)
    assert anyone.extra["rules"][3:] == [
        _step("event_too_few_articles", "event", 3, 2, 3),
        _step("not_sampled", "group", 1, 1, 2),
    ]
    assert all(row["test_relations"] == ["042"] or row["subject"] == "BRA" for row in queries.to_pylist())
    details = {r.detail.split(" ")[1].rstrip(","): r.detail for r in ledger.rejects if r.id != "bad-code"}
    assert "042: 60, 057: 60" in details["FRA"] and ">= 100 daily mentions" in details["FRA"]
    assert "190: 4 of 5 URLs" in details["RUS"]
    assert "042: 3 of 3 URLs" in details["CAN"]


def test_relaxed_steps_add_up() -> None:
    rows = _accounting_month()
    config = replace(CONFIG, queries_per_month=2)
    queries, ledger = build_month(table(rows), "2025-05", config, REGIONS, recipe=RELAXED)
    # mentions: G6 (80) goes with its 1 event; URLs: G7 (4 URLs) goes with its 2 events; 5 groups of
    # 2 + 2 + 1 + 2 + 1 = 8 events remain (1 + 2 + 8 = 11), and 3 of the 5 are not sampled
    steps = ledger.extra["rules"]
    assert steps[:3] == [
        _step("invalid_quad", "event", 1, 0, 7),
        _step("group_too_few_mentions", "group", 1, 1, 6),
        _step("group_too_few_urls", "group", 2, 1, 5),
    ]
    assert [step["rule"] for step in steps] == [rule.reason for rule in rules_of(RELAXED)]
    assert steps[3]["queries_removed"] == 3 and steps[3]["queries_left"] == 2
    # whichever groups were sampled, their events and the unsampled ones' make up the 8
    sampled_events = sum(len(row["test_relations"]) for row in queries.to_pylist())
    assert sampled_events + steps[3]["events_removed"] == ledger.extra["test_events"] == 8
    metrics = ledger.metrics()
    assert metrics["items_in"] == 8 == metrics["items_out"] + metrics["rejected"]
    assert metrics["rejected_by_reason"] == {
        "group_too_few_mentions": 1,
        "group_too_few_urls": 1,
        "invalid_quad": 1,
        "not_sampled": 3,
    }
    jpn = next(r.detail for r in ledger.rejects if r.reason == "group_too_few_mentions")
    assert "num_daily_mentions=80, urls=10; need >= 100 mentions" in jpn


def test_a_month_without_quads_gives_an_empty_split_and_zero_steps() -> None:
    queries, ledger = _build([_strong("2025-06-01")])  # June only; May is asked
    assert queries.num_rows == 0 and queries.schema == QUERY_SCHEMA
    assert [(s["rule"], s["queries_removed"], s["queries_left"]) for s in ledger.extra["rules"]] == [
        ("invalid_quad", 0, 0),
        ("event_without_text", 0, 0),
        ("event_too_few_mentions", 0, 0),
        ("event_too_few_articles", 0, 0),
        ("not_sampled", 0, 0),
    ]
    assert ledger.extra["shortfall"] == 100 and ledger.extra["took_all_candidates"] is True
    assert ledger.metrics()["items_in"] == 0


def test_fewer_candidates_than_requested_are_all_taken_and_recorded() -> None:
    queries, ledger = _build([_strong(f"2025-05-0{i}") for i in range(1, 4)])
    assert queries.num_rows == 3
    assert ledger.extra["took_all_candidates"] is True
    assert ledger.extra["shortfall"] == 97 and ledger.extra["requested"] == 100


def test_not_sampled_candidates_are_rejects_and_nothing_is_lost() -> None:
    pairs = [("USA", "CHN"), ("FRA", "DEU"), ("RUS", "UKR"), ("JPN", "AUS"), ("BRA", "EGY")]
    rows = [_strong(f"2025-05-{d:02d}", s, o) for d in range(1, 11) for s, o in pairs]
    queries, ledger = _build(rows, config=replace(CONFIG, queries_per_month=12))
    metrics = ledger.metrics()
    assert queries.num_rows == 12
    assert metrics["items_in"] == 50 and metrics["rejected_by_reason"] == {"not_sampled": 38}
    assert metrics["candidates"] == 50 and metrics["sampled"] == 12 and not metrics["took_all_candidates"]
    assert sum(metrics["sample_distribution"]["date"].values()) == 12
    # 10 dates, 12 picks: every date once before any date twice
    assert sorted(metrics["sample_distribution"]["date"].values()) == [1] * 8 + [2] * 2
    # the subject's country only, as the authors' sampler reads it (balance_actors: subject)
    assert sum(metrics["sample_distribution"]["country"].values()) == 12


def test_malformed_quads_are_quarantined() -> None:
    good = _strong("2025-05-03")
    bad = [
        quad("2025-05-03", "USA", "42", "CHN", 200, urls("x", 6), quad_id="bad-code"),
        quad("2025-05-03", "USA", "042", "CHN", 200, urls("y", 6), quad_id="bad-root", relation_root="05"),
        quad("2025-05-03", "USA", "042", "USA", 200, urls("z", 6), quad_id="same-country"),
        quad("2025-05-03", "usa", "042", "CHN", 200, urls("w", 6), quad_id="lower-case"),
        {**good},  # the same quad twice
    ]
    queries, ledger = _build([good, *bad])
    assert queries.num_rows == 1 and queries.column("num_daily_mentions").to_pylist() == [120]
    invalid = sorted(r.id for r in ledger.rejects if r.reason == "invalid_quad")
    assert invalid == sorted(["bad-code", "bad-root", "same-country", "lower-case", str(good["quad_id"])])
    ledger.check_balance()


def test_country_without_region_is_kept_as_unknown() -> None:
    queries, ledger = _build([_strong("2025-05-04", "XKX", "USA")])
    assert queries.column("subject_region").to_pylist() == ["Unknown"]
    assert ledger.extra["countries_without_region"] == ["XKX"]


def _many_candidates() -> list[dict[str, Any]]:
    countries = sorted(REGIONS)
    rows = []
    for day in range(1, 29):
        for k in range(4):
            s, o = countries[(day + k) % 12], countries[(day * 5 + k + 1) % 12]
            if s != o:
                rows.append(_strong(f"2025-05-{day:02d}", s, o, relation=f"{(day + k) % 20 + 1:02d}{k}"))
    return rows


def test_same_seed_gives_an_identical_file_other_seed_a_different_one(tmp_path: Path) -> None:
    rows = _many_candidates()
    config = replace(CONFIG, queries_per_month=20)
    paths = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        queries, _ = _build(rows, config=replace(config, seed=seed))
        assert queries.num_rows == 20
        write_parquet(queries, tmp_path / f"{name}.parquet")
        paths.append(tmp_path / f"{name}.parquet")
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()
    # the order of rows in quads.parquet does not matter either
    shuffled, _ = _build(rows[::-1], config=config)
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
