"""The FutureX funnel and tier counts: ``reports/futurex_stats.{json,md}`` (the ``futurex_stats`` stage).

The funnel reads the metrics of ``futurex_events`` and ``futurex_filter`` (each filter step's own counts)
and the tiers' ledger; it refuses counts that do not chain (each step's input is the previous output).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from almanac.futurex.schema import TIER_NAMES


def funnel_rows(
    events: Mapping[str, Any], filtered: Mapping[str, Any], tiers: Mapping[str, Any]
) -> list[dict[str, Any]]:
    rows = [{"step": "candidate events", "in": events["items_in"], "out": events["items_out"]}]
    rows += [{"step": step["step"], "in": step["in"], "out": step["out"]} for step in filtered["steps"]]
    rows.append({"step": "tiers", "in": tiers["items_in"], "out": tiers["items_out"]})
    for previous, row in itertools.pairwise(rows):
        if previous["out"] != row["in"]:
            raise ValueError(
                f"FutureX funnel: {row['step']} read {row['in']}, {previous['step']} gave {previous['out']}"
            )
    return rows


def tier_stats(
    rows: Sequence[Mapping[str, Any]],
    events: Mapping[str, Any],
    filtered: Mapping[str, Any],
    tiers: Mapping[str, Any],
) -> dict[str, Any]:
    by_level = {
        str(level): {
            "tier": name,
            "questions": sum(1 for row in rows if row["level"] == level),
            "by_origin": dict(
                sorted(
                    (origin, sum(1 for row in rows if row["level"] == level and row["origin"] == origin))
                    for origin in {row["origin"] for row in rows if row["level"] == level}
                )
            ),
        }
        for level, name in TIER_NAMES.items()
    }
    return {
        "funnel": funnel_rows(events, filtered, tiers),
        "levels": by_level,
        "rejected_by_reason": {
            "futurex_events": events["rejected_by_reason"],
            "futurex_filter": filtered["rejected_by_reason"],
            "futurex_tiers": tiers["rejected_by_reason"],
        },
        "level1_without_distractors": tiers.get("level1_without_distractors", 0),
        "level1_gold_is_released_answer": tiers.get("level1_gold_is_released_answer", 0),
        "cross_style_marked": events.get("cross_style_marked", 0),
        "judge_roles": filtered.get("judge_roles", []),
        "judges": filtered.get("judges", {}),
        "vote": filtered.get("vote", ""),
    }


def stats_markdown(stats: Mapping[str, Any]) -> str:
    lines = ["# FutureX-style tiers", "", "| step | in | out |", "|---|---:|---:|"]
    lines += [f"| {row['step']} | {row['in']} | {row['out']} |" for row in stats["funnel"]]
    lines += ["", "| level | tier | questions | by origin |", "|---:|---|---:|---|"]
    for level, entry in stats["levels"].items():
        origins = ", ".join(f"{origin} {count}" for origin, count in entry["by_origin"].items()) or "-"
        lines.append(f"| {level} | {entry['tier']} | {entry['questions']} | {origins} |")
    lines += ["", "| stage | reason | rejected |", "|---|---|---:|"]
    for stage, reasons in stats["rejected_by_reason"].items():
        lines += [f"| {stage} | {reason} | {count} |" for reason, count in reasons.items()]
    lines += [
        "",
        f"Judge roles: {', '.join(f'{r} ({b})' for r, b in stats['judges'].items())} (vote: {stats['vote']})."
        " OpenForesight questions"
        " drawn for Level 1 kept open-ended: no unreleased candidate of their class public by the cut-off"
        f" {stats['level1_without_distractors']}, their answer another released question's"
        f" {stats.get('level1_gold_is_released_answer', 0)}. Candidates marked as repeating another"
        f" style's training row: {stats.get('cross_style_marked', 0)}.",
        "",
    ]
    return "\n".join(lines)
