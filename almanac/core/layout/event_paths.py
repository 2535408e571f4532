"""Paths of the event-based styles: OpenForecast (Wikipedia, WCEP, complex events), MIRAI (GDELT queries)
and FutureX (tiered question sets). Part of the layout package's interface like ``paths`` (the package
re-exports both), kept apart so that neither module passes 400 lines.
"""

from __future__ import annotations

from pathlib import Path

from almanac.core.layout.paths import DATA

# ---- Wikipedia, WCEP and OpenForecast-style complex events ----

WIKI = DATA / "wiki"
WCEP = DATA / "wcep"
EVENTS = DATA / "events"


def wiki_articles() -> Path:
    return WIKI / "articles.parquet"


def wiki_rejects() -> Path:
    return WIKI / "rejects.parquet"


def wcep_events() -> Path:
    return WCEP / "events.parquet"


def wcep_rejects() -> Path:
    return WCEP / "rejects.parquet"


def wcep_news() -> Path:
    return WCEP / "news.parquet"


def wcep_news_rejects() -> Path:
    return WCEP / "news_rejects.parquet"


def wiki_events() -> Path:
    """Wikipedia articles that describe an event (wiki_filter)."""
    return EVENTS / "wiki_events.parquet"


def wiki_filter_rejects() -> Path:
    return EVENTS / "wiki_filter_rejects.parquet"


def complex_events() -> Path:
    return EVENTS / "complex_events.parquet"


def complex_events_rejects() -> Path:
    return EVENTS / "complex_events_rejects.parquet"


def timelines() -> Path:
    return EVENTS / "timelines.parquet"


def timeline_rejects() -> Path:
    return EVENTS / "timeline_rejects.parquet"


def samples_dir() -> Path:
    return EVENTS / "samples"


def samples_path(task: str) -> Path:
    """All samples of one task, every split, with a ``split`` column (event_tasks output)."""
    return samples_dir() / f"{task}.parquet"


def tasks_rejects() -> Path:
    return EVENTS / "tasks_rejects.parquet"


def event_splits_dir() -> Path:
    """``<split>/<task>.parquet`` of the released OpenForecast-style tasks."""
    return EVENTS / "splits"


def event_split_path(split: str, task: str) -> Path:
    """The released file of one task in one split (event_split output)."""
    return event_splits_dir() / split / f"{task}.parquet"


def event_split_rejects() -> Path:
    return EVENTS / "split_rejects.parquet"


# ---- GDELT and MIRAI-style queries ----

GDELT = DATA / "gdelt"
MIRAI = DATA / "mirai"


def gdelt_raw_dir(month: str) -> Path:
    """``<name>.zip`` files of one month and their ``MANIFEST.json`` (gdelt_download)."""
    return GDELT / "raw" / month


def gdelt_events_dir() -> Path:
    return GDELT / "events"


def gdelt_events(month: str) -> Path:
    return gdelt_events_dir() / f"{month}.parquet"


def gdelt_mentions(month: str) -> Path:
    return GDELT / "mentions" / f"{month}.parquet"


def gdelt_ingest_rejects(month: str) -> Path:
    return GDELT / "ingest_rejects" / f"{month}.parquet"


def gdelt_clean_dir() -> Path:
    """gdelt_clean's folder (one DVC output): events.parquet, quads.parquet and rejects.parquet."""
    return GDELT / "clean"


def gdelt_clean_events() -> Path:
    return gdelt_clean_dir() / "events.parquet"


def gdelt_quads() -> Path:
    """The (date, subject, relation, object) quads every month's queries and the baseline read."""
    return gdelt_clean_dir() / "quads.parquet"


def gdelt_clean_rejects() -> Path:
    return gdelt_clean_dir() / "rejects.parquet"


def gdelt_articles() -> Path:
    """One row per canonical URL whose cleaned text survived (gdelt_articles)."""
    return GDELT / "articles.parquet"


def gdelt_articles_rejects() -> Path:
    return GDELT / "articles_rejects.parquet"


def mirai_queries_dir() -> Path:
    return MIRAI / "queries"


def mirai_queries(month: str) -> Path:
    return mirai_queries_dir() / f"{month}.parquet"


def mirai_rejects(month: str) -> Path:
    return MIRAI / "rejects" / f"{month}.parquet"


# ---- FutureX-style tiered question sets ----

FUTUREX = DATA / "futurex"


def futurex_events() -> Path:
    """Candidate events from the released OpenForesight and MIRAI rows and the numeric answer-type rejects."""
    return FUTUREX / "events.parquet"


def futurex_events_rejects() -> Path:
    return FUTUREX / "events_rejects.parquet"


def futurex_filtered() -> Path:
    """The events the harmful, subjective, yes/no and per-source-day filters kept."""
    return FUTUREX / "filtered.parquet"


def futurex_filter_rejects() -> Path:
    return FUTUREX / "filter_rejects.parquet"


def futurex_tiers_dir() -> Path:
    """``level<1..4>.parquet``: the four tiers, the released rows of the futurex style."""
    return FUTUREX / "tiers"


def futurex_tier(level: int) -> Path:
    return futurex_tiers_dir() / f"level{level}.parquet"


def futurex_tiers_rejects() -> Path:
    return FUTUREX / "tiers_rejects.parquet"
