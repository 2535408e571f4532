"""The MIRAI report's rules and balance tables, from hand-written relation_split metrics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from almanac.core.io import write_json
from almanac.reports.mirai_rules import rules_section
from almanac.reports.model import Table


def _steps(invalid: int, mentions: int, articles: int, unsampled: int, groups: int) -> list[dict[str, Any]]:
    left = groups
    steps = [{"rule": "invalid_quad", "unit": "event", "events_removed": invalid, "queries_removed": 0}]
    steps[0]["queries_left"] = left
    for rule, removed in (("event_too_few_mentions", mentions), ("event_too_few_articles", articles)):
        left -= removed
        steps.append(
            {"rule": rule, "unit": "event", "events_removed": 2 * removed, "queries_removed": removed}
        )
        steps[-1]["queries_left"] = left
    steps.append(
        {"rule": "not_sampled", "unit": "group", "events_removed": unsampled, "queries_removed": unsampled}
    )
    steps[-1]["queries_left"] = left - unsampled
    return steps


def _balance() -> dict[str, Any]:
    # Two dates offered 1 and 5 candidates; a sample of 4 takes the first whole (1) and 3 of the second:
    # target 1 and 3, achieved 1 and 3 -> 0 queries off target.
    return {
        "date": {
            "weight": 1.0,
            "values_in_candidates": 2,
            "values_in_sample": 2,
            "deviation": 0.0,
            "values": {
                "2025-05-01": {"candidates": 1.0, "target": 1.0, "achieved": 1.0},
                "2025-05-02": {"candidates": 5.0, "target": 3.0, "achieved": 3.0},
            },
        },
        "region": {
            "weight": 0.0,
            "values_in_candidates": 1,
            "values_in_sample": 1,
            "deviation": 0.0,
            "values": {"Eastern Asia": {"candidates": 6.0, "target": 4.0, "achieved": 4.0}},
        },
    }


def _write(folder: Path, month: str, recipe: str, steps: list[dict[str, Any]]) -> None:
    metrics = {"recipe": recipe, "rules": steps, "requested": 100, "sampled": steps[-1]["queries_left"]}
    write_json({**metrics, "balance": _balance()}, folder / "relation_split" / f"{month}.json")


def _table(tables: list[Table], start: str) -> Table:
    return next(table for table in tables if table.title.startswith(start))


def test_rules_are_summed_over_months_in_their_order(tmp_path: Path) -> None:
    _write(tmp_path, "2025-04", "paper", _steps(1, 10, 5, 0, 20))  # 20 groups -> 10 -> 5 left
    _write(tmp_path, "2025-05", "paper", _steps(0, 3, 2, 1, 10))  # 10 -> 7 -> 5 -> 4 left
    metrics: dict[str, Any] = {}
    tables: list[Table] = []
    notes = rules_section(["2025-04", "2025-05"], metrics, tables, tmp_path)
    rules = _table(tables, "MIRAI rules applied")
    assert rules.title == "MIRAI rules applied (recipe `paper`)"
    # (rule, unit, params, events removed, queries removed, queries left), months added up by hand
    assert [row[:1] + row[3:] for row in rules.rows] == [
        ("invalid_quad", 1, 0, 30),
        ("event_too_few_mentions", 26, 13, 17),
        ("event_too_few_articles", 14, 7, 10),
        ("not_sampled", 1, 1, 9),
    ]
    assert rules.rows[1][2] == "relation_split.min_daily_mentions"
    assert metrics["recipe"] == "paper"
    assert notes[0].startswith("Recipe `paper`")
    assert any("event_too_few_articles" in note for note in notes)
    assert notes[-1] == "9 queries sampled of 200 requested over 2 month(s)."


def test_balance_table_shows_target_and_achieved_and_skips_unweighted_regions(tmp_path: Path) -> None:
    _write(tmp_path, "2025-05", "paper", _steps(0, 0, 0, 0, 4))
    tables: list[Table] = []
    rules_section(["2025-05"], {}, tables, tmp_path)
    balance = _table(tables, "Balance")
    assert balance.rows == (("2025-05", "date", 1.0, 2, 2, "3", "1-3", 0.0),)


def test_relaxed_recipe_says_it_is_not_the_paper(tmp_path: Path) -> None:
    steps = _steps(0, 0, 0, 0, 4)
    for step in steps[1:3]:
        step["rule"] = step["rule"].replace("event_too_few_mentions", "group_too_few_mentions")
        step["rule"] = step["rule"].replace("event_too_few_articles", "group_too_few_urls")
    _write(tmp_path, "2025-05", "relaxed", steps)
    notes = rules_section(["2025-05"], {}, [], tmp_path)
    assert "NOT the paper's test split" in notes[0]
    assert not any("event_too_few" in note for note in notes)


def test_mixed_recipes_and_missing_metrics_are_said(tmp_path: Path) -> None:
    assert rules_section(["2025-05"], {}, [], tmp_path)[0].startswith("relation_split metrics are missing")
    _write(tmp_path, "2025-04", "paper", _steps(0, 0, 0, 0, 4))
    _write(tmp_path, "2025-05", "relaxed", _steps(0, 0, 0, 0, 4))
    metrics: dict[str, Any] = {}
    notes = rules_section(["2025-04", "2025-05"], metrics, [], tmp_path)
    assert metrics["recipe"] == "mixed"
    assert notes == ["The months were built with different MIRAI recipes (paper, relaxed): rebuild them."]


def _write_settings(folder: Path, month: str, **changes: Any) -> None:
    metrics = {
        "recipe": "paper",
        "rules": _steps(0, 0, 0, 0, 4),
        "requested": 100,
        "sampled": 4,
        "balance": _balance(),
        "thresholds": {"answers_need_text": True, "admission": "every"},
        "balance_weights": {"date": 1.0, "root": 1.0, "continent": 0.4, "region": 0.0, "country": 0.2},
        "balance_actors": "subject",
        "balance_objective": "variance",
    }
    metrics.update(changes)
    write_json(metrics, folder / "relation_split" / f"{month}.json")


def test_paper_says_it_is_the_authors_construction_only_with_their_settings(tmp_path: Path) -> None:
    _write_settings(tmp_path, "2025-05")
    [lead, *_] = rules_section(["2025-05"], {}, [], tmp_path)
    assert lead.startswith("Recipe `paper`: as the authors' released construction")
    assert "Remaining differences: cleaning measures are this project's" in lead
    assert "departs" not in lead
    # one month built with admission any: the report no longer claims the authors' construction
    _write_settings(tmp_path, "2025-06", thresholds={"answers_need_text": True, "admission": "any"})
    [lead, *_] = rules_section(["2025-05", "2025-06"], {}, [], tmp_path)
    assert lead.startswith("Recipe `paper`: NOT as the authors built it")
    assert "relation_split.admission = 'any' (authors: 'every')" in lead
