"""The FutureX report for ``almanac report`` / ``almanac publish``: questions per tier and origin, and the
filter funnel of the ``futurex_stats`` stage (``reports/futurex_stats.json``, over the whole build)."""

from __future__ import annotations

from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import stats_report
from almanac.futurex.schema import TIER_NAMES
from almanac.reports.authorship import authorship_statement, role_authors
from almanac.reports.model import Report, Series, Table
from almanac.reports.scope import ReportScope
from almanac.reports.styles import get_style, read_split_tables

STATS_STAGE = "futurex_stats"


def build_report(scope: ReportScope) -> Report:
    style = get_style("futurex")
    tables = read_split_tables(style, None if scope.whole else scope.months)
    by_level: dict[str, dict[str, int]] = {}
    for key, table in tables.items():
        origins = by_level.setdefault(key.config, {})
        for origin in table.column("origin").to_pylist():
            origins[str(origin)] = origins.get(str(origin), 0) + 1
    levels = [f"level{level}" for level in TIER_NAMES]
    counts = {level: sum(by_level.get(level, {}).values()) for level in levels}
    path = stats_report(STATS_STAGE, ".json")
    stats = read_json(path) if path.is_file() else {}
    metrics: dict[str, Any] = {"questions": sum(counts.values()), "by_level": counts, "by_origin": by_level}
    tier_rows = tuple(
        (
            level,
            TIER_NAMES[index + 1],
            counts[level],
            ", ".join(f"{o} {n}" for o, n in by_level.get(level, {}).items()),
        )
        for index, level in enumerate(levels)
    )
    funnel = tuple((row["step"], row["in"], row["out"]) for row in stats.get("funnel", []))
    judges = stats.get("judge_roles", [])
    authors = role_authors(scope.params, ("generator", *judges), {})
    origin_names = sorted({origin for counted in by_level.values() for origin in counted})
    return Report(
        style="futurex",
        months=() if scope.whole else scope.months,
        metrics=metrics,
        series=(
            Series(
                "questions_per_tier",
                "Questions per tier",
                "tier",
                "questions",
                tuple({"tier": level, "questions": counts[level]} for level in levels),
            ),
        ),
        tables=(
            Table("Questions per tier", ("Config", "Tier", "Questions", "By origin"), tier_rows),
            Table(
                "Event funnel",
                ("Step", "In", "Out"),
                funnel,
                note="Candidate events through each filter to the tiers, over every month of the build.",
            ),
        ),
        notes=(
            "Tier questions are made from OpenForesight questions (Levels 1 and 3), MIRAI GDELT day-pairs "
            "(Level 2, templated) and numeric answers the OpenForesight filters set aside (Level 4); "
            f"origins in this release: {', '.join(origin_names) or 'none'}.",
            "The funnel counts run once over every month of the build (`reports/futurex_stats.json`)."
            if stats
            else "No funnel counts: the `futurex_stats` stage has not run.",
        ),
        authorship=authorship_statement(authors) if tables else "",
    )
