"""The MIRAI recipe's stages in order: the one place that order is written.

Read by the report's funnel (almanac.reports.mirai) and tests/test_recipes.py (dvc.yaml's data deps, the docs'
order). The rules relation_split applies, and their variants, are in ``almanac.mirai.recipe``.
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import finals, mirai
from almanac.pipeline.recipe import Recipe, Step

STEPS: Final = (
    Step(
        declared=mirai.GDELT_DOWNLOAD,
        label="Download",
        does="the month's GDELT export (and mentions) files, verified by size and MD5",
        rejects="almanac.gdelt.download",
        unit="files",
        after=(),
    ),
    Step(
        declared=mirai.GDELT_INGEST,
        label="Ingest",
        does="tab-separated exports typed into Parquet, GDELT 1.0 rows mapped",
        rejects="almanac.gdelt.ingest",
        unit="rows",
    ),
    Step(
        declared=mirai.GDELT_CLEAN,
        label="Clean",
        does="MIRAI's cleaning rules, relation = EventBaseCode, daily mentions per quad",
        rejects="almanac.gdelt.clean",
        unit="events",
    ),
    Step(
        declared=mirai.GDELT_ARTICLES,
        label="Link articles",
        does="the text of each clean event URL (corpus, page archives, fetcher), OBELICS-style cleaning",
        rejects="almanac.gdelt.articles",
        unit="URLs",
    ),
    Step(
        declared=mirai.RELATION_SPLIT,
        label="Sample queries",
        does="day-pairs admitted by the recipe's rules (RULES), then a balanced seeded monthly sample",
        rejects="almanac.mirai.relation_split",
        unit="day-pair groups",
        after=(mirai.GDELT_CLEAN, mirai.GDELT_ARTICLES),
    ),
    Step(
        declared=finals.CHECK_MIRAI,
        label="Invariant check",
        does="the invariant checker over every released query; fails the build on any violation",
        rejects="almanac.check.mirai",
        unit="queries",
        after=(mirai.GDELT_CLEAN, mirai.GDELT_ARTICLES, mirai.RELATION_SPLIT),
        funnel=False,
    ),
)

# The stage table (not to be confused with almanac.mirai.recipe.RECIPES, the rule variants).
RECIPE: Final = Recipe("mirai", STEPS, report_stages=(mirai.GDELT_STATS, finals.MIRAI_REPORT))
