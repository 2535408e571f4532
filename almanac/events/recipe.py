"""The OpenForecast recipe: its stages in order, the one place that order is written.

Not a single chain: Wikipedia and WCEP are two sources that meet at complex_events, so a step that reads
other steps than the one before it says which (``after``). Read by the report's funnel
(almanac.reports.openforecast) and tests/test_recipes.py (dvc.yaml's data deps, README's order).
"""

from __future__ import annotations

from typing import Final

from almanac.core.recipe import Recipe, Step

STEPS: Final = (
    Step(
        stage="wiki_ingest",
        label="Wikipedia ingest",
        does="pages-articles dumps -> plain-text sections of main-namespace articles",
        rejects="almanac.wiki.ingest",
        unit="pages",
        per_month=False,
        after=(),
    ),
    Step(
        stage="wcep_ingest",
        label="WCEP ingest",
        does="Current Events Portal day pages and WCEP-MDS JSONL -> one row per event",
        rejects="almanac.wcep.ingest",
        unit="day pages",
        per_month=False,
        after=(),
    ),
    Step(
        stage="wcep_news",
        label="WCEP news links",
        does="each event's source links resolved to article text (corpus first, then an opt-in fetcher)",
        rejects="almanac.wcep.news",
        unit="links",
        per_month=False,
    ),
    Step(
        stage="wiki_filter",
        label="Wikipedia filter",
        does="event-evolution sections, article category and occurrence date keep the event articles",
        rejects="almanac.events.wiki_filter",
        unit="articles",
        per_month=False,
        after=("wiki_ingest",),
    ),
    Step(
        stage="complex_events",
        label="Event grouping",
        does="a Wikipedia event article, or WCEP events under one story heading, is one complex event",
        rejects="almanac.events.complex",
        unit="documents",
        per_month=False,
        after=("wcep_ingest", "wcep_news", "wiki_filter"),
    ),
    Step(
        stage="event_timeline",
        label="Timelines",
        does="annotator role: timeline extraction, complement, reorder and event arguments",
        rejects="almanac.events.timeline",
        unit="complex events",
        per_month=False,
    ),
    Step(
        stage="event_tasks",
        label="Task samples",
        does="seeded cut days per complex event; STF, LTF, AQA, MCAC, MCNC and VQA samples",
        rejects="almanac.events.tasks",
        unit="samples",
        per_month=False,
    ),
    Step(
        stage="event_split",
        label="Split release",
        does="one Parquet per split and task after re-checking the leakage rules on the rows",
        rejects="almanac.events.split",
        unit="samples",
        per_month=False,
    ),
    Step(
        stage="check_openforecast",
        label="Invariant check",
        does="the invariant checker over every released sample; fails the build on any violation",
        rejects="almanac.check.openforecast",
        unit="samples",
        per_month=False,
        after=("complex_events", "event_timeline", "event_split"),
        funnel=False,
    ),
)

RECIPE: Final = Recipe("openforecast", STEPS, reports=("event_stats", "openforecast_report"))
