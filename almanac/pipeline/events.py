"""The OpenForecast stages: Wikipedia and WCEP sources, then filter -> group -> timelines -> six tasks ->
splits -> statistics."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import Stage

# Whole-dataset statistics CSVs under reports/plots/: tables and bar-chart series, for whoever wants them.
EVENT_STATS_CSVS: Final = (
    "openforecast_splits.csv",
    "openforecast_atomic_events_per_ce.csv",
    "openforecast_topics.csv",
    "openforecast_origins.csv",
)

WIKI_INGEST: Final = Stage(
    name="wiki_ingest",
    module="stages.wiki_ingest",
    function="almanac.wiki.ingest_stage:run",
    reads=("${wiki_ingest.raw_dir}",),
    params=("wiki_ingest",),
    writes=(p.wiki_articles(), p.wiki_rejects(), p.metrics_path("wiki_ingest")),
    note="OpenForecast-style complex events: sources (timelines and tasks follow).",
)
WCEP_INGEST: Final = Stage(
    name="wcep_ingest",
    module="stages.wcep_ingest",
    function="almanac.wcep.ingest_stage:run",
    reads=("${wcep_ingest.dump_dir}",),
    params=("wcep_ingest",),
    writes=(p.wcep_events(), p.wcep_rejects(), p.metrics_path("wcep_ingest")),
)
WCEP_NEWS: Final = Stage(
    name="wcep_news",
    module="stages.wcep_news",
    function="almanac.wcep.news_stage:run",
    reads=(p.wcep_events().as_posix(), p.articles_dir().as_posix()),
    params=("months", "wcep_news"),
    writes=(p.wcep_news(), p.wcep_news_rejects(), p.metrics_path("wcep_news")),
)
WIKI_FILTER: Final = Stage(
    name="wiki_filter",
    module="stages.wiki_filter",
    function="almanac.events.wiki_filter_stage:run",
    reads=(p.wiki_articles().as_posix(),),
    params=("wiki_filter", "llm.roles.classifier"),
    tasks=("article_category", "occurrence_date"),
    writes=(p.wiki_events(), p.wiki_filter_rejects(), p.metrics_path("wiki_filter")),
    note="OpenForecast-style complex events: filter -> group -> timelines -> six tasks -> splits "
    "-> statistics.",
)
COMPLEX_EVENTS: Final = Stage(
    name="complex_events",
    module="stages.complex_events",
    function="almanac.events.complex_events_stage:run",
    reads=(p.wiki_events().as_posix(), p.wcep_events().as_posix(), p.wcep_news().as_posix()),
    params=("complex_events",),
    writes=(p.complex_events(), p.complex_events_rejects(), p.metrics_path("complex_events")),
)
EVENT_TIMELINE: Final = Stage(
    name="event_timeline",
    module="stages.event_timeline",
    function="almanac.events.timeline_stage:run",
    reads=(p.complex_events().as_posix(),),
    params=("event_timeline", "llm.roles.annotator"),
    tasks=("timeline_extract", "timeline_complement", "timeline_reorder", "event_arguments"),
    writes=(p.timelines(), p.timeline_rejects(), p.metrics_path("event_timeline")),
)
EVENT_TASKS: Final = Stage(
    name="event_tasks",
    module="stages.event_tasks",
    function="almanac.events.tasks_stage:run",
    reads=(p.timelines().as_posix(),),
    params=("event_tasks", "llm.roles.annotator"),
    tasks=("argument_question", "event_negatives"),
    writes=(p.samples_dir(), p.tasks_rejects(), p.metrics_path("event_tasks")),
)
EVENT_SPLIT: Final = Stage(
    name="event_split",
    module="stages.event_split",
    function="almanac.events.split_stage:run",
    reads=(p.samples_dir().as_posix(),),
    params=("event_tasks.split",),
    writes=(p.event_splits_dir(), p.event_split_rejects(), p.metrics_path("event_split")),
)
EVENT_STATS: Final = Stage(
    name="event_stats",
    module="stages.openforecast_stats_report",
    function="almanac.reports.event_stats_stage:run",
    reads=(p.timelines().as_posix(), p.event_splits_dir().as_posix()),
    writes=(
        p.stats_report("openforecast_stats"),
        p.plot_file(EVENT_STATS_CSVS[0]),
        p.metrics_path("event_stats"),
        *map(p.plot_file, EVENT_STATS_CSVS[1:]),
    ),
    runs_in="openforecast_stats_report",  # a step of the report stage (almanac.pipeline.finals)
)
STAGES: Final = (
    WIKI_INGEST,
    WCEP_INGEST,
    WCEP_NEWS,
    WIKI_FILTER,
    COMPLEX_EVENTS,
    EVENT_TIMELINE,
    EVENT_TASKS,
    EVENT_SPLIT,
)
