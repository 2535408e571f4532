"""The OpenForecast recipe: its stages in order, the one place that order is written.

Not a single chain: Wikipedia and WCEP are two sources that meet at complex_events, so a step that reads
other steps than the one before it says which (``after``). Read by the report's funnel
(almanac.reports.openforecast) and tests/test_recipes.py (dvc.yaml's data deps, README's order).
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import events, finals
from almanac.pipeline.recipe import Recipe, Step

STEPS: Final = (
    Step(
        declared=events.WIKI_INGEST,
        label="Wikipedia ingest",
        does="pages-articles dumps -> plain-text sections of main-namespace articles",
        rejects="almanac.wiki.ingest",
        unit="pages",
        after=(),
    ),
    Step(
        declared=events.WCEP_INGEST,
        label="WCEP ingest",
        does="Current Events Portal day pages and WCEP-MDS JSONL -> one row per event",
        rejects="almanac.wcep.ingest",
        unit="day pages",
        after=(),
    ),
    Step(
        declared=events.WCEP_NEWS,
        label="WCEP news links",
        does="each event's source links resolved to article text (corpus first, then an opt-in fetcher)",
        rejects="almanac.wcep.news",
        unit="links",
    ),
    Step(
        declared=events.WIKI_FILTER,
        label="Wikipedia filter",
        does="event-evolution sections, article category and occurrence date keep the event articles",
        rejects="almanac.events.wiki_filter",
        unit="articles",
        after=(events.WIKI_INGEST,),
    ),
    Step(
        declared=events.COMPLEX_EVENTS,
        label="Event grouping",
        does="a Wikipedia event article, or WCEP events under one story heading, is one complex event",
        rejects="almanac.events.complex",
        unit="documents",
        after=(events.WCEP_INGEST, events.WCEP_NEWS, events.WIKI_FILTER),
    ),
    Step(
        declared=events.EVENT_TIMELINE,
        label="Timelines",
        does="annotator role: timeline extraction, complement, reorder and event arguments",
        rejects="almanac.events.timeline",
        unit="complex events",
    ),
    Step(
        declared=events.EVENT_TASKS,
        label="Task samples",
        does="seeded cut days per complex event; STF, LTF, AQA, MCAC, MCNC and VQA samples",
        rejects="almanac.events.tasks",
        unit="samples",
    ),
    Step(
        declared=events.EVENT_SPLIT,
        label="Split release",
        does="one Parquet per split and task after re-checking the leakage rules on the rows",
        rejects="almanac.events.split",
        unit="samples",
    ),
    Step(
        declared=finals.CHECK_OPENFORECAST,
        label="Invariant check",
        does="the invariant checker over every released sample; fails the build on any violation",
        rejects="almanac.check.openforecast",
        unit="samples",
        after=(events.COMPLEX_EVENTS, events.EVENT_TIMELINE, events.EVENT_SPLIT),
        funnel=False,
    ),
)

RECIPE: Final = Recipe("openforecast", STEPS, report_stages=(events.EVENT_STATS, finals.OPENFORECAST_REPORT))
