"""Which paths each DVC stage writes: one table, read by the stage code's tests and the ``dvc.yaml`` test.

``STAGES[name].outputs(month)`` gives the ``outs``, ``metrics`` and ``plots`` that ``dvc.yaml`` must declare
for stage ``name`` (``month`` is the foreach item of a per-month stage, ignored otherwise). A folder output
(the corpus, the splits, ``gdelt/clean``) stands for every file the stage writes inside it.

Only the three style summaries are DVC ``metrics`` and only their panels DVC ``plots`` (``DVC_METRICS`` and
``DVC_PLOTS``: dvc.yaml's top-level lists, files inside the ``<style>_report@all`` folder), so that
``dvc metrics show`` and ``dvc plots show`` stay readable; every stage's metrics file, report and check
count is an ``outs`` entry (``cache: false`` in dvc.yaml: git keeps them, as before).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from almanac.core import layout as p  # every path function, whichever module of the package has it
from almanac.foresight.recipe import RECIPE as FORESIGHT_RECIPE

# The ``*_report`` stages' plot series (reports/<style>/<month>/plots/<name>.csv), in the builders' order;
# each builder's SERIES is tested equal to its entry here.
REPORT_SERIES: dict[str, tuple[str, ...]] = {
    "openforesight": (
        "split_counts", "answer_types", "sources", "question_length", "answer_length", "horizon", "funnel"
    ),
    "openforecast": (
        "split_counts", "topics", "origins", "question_length", "answer_length", "horizon", "funnel"
    ),
    "mirai": (
        "relations", "quad_classes", "regions", "answers_per_query", "query_dates", "horizon", "funnel"
    ),
}  # fmt: skip
# Whole-dataset statistics CSVs under reports/plots/: tables and bar-chart series, for whoever wants them.
EVENT_STATS_CSVS = (
    "openforecast_splits.csv",
    "openforecast_atomic_events_per_ce.csv",
    "openforecast_topics.csv",
    "openforecast_origins.csv",
)
GDELT_STATS_CSVS = ("mirai_counts.csv", "mirai_regions.csv", "mirai_relations.csv", "mirai_quad_classes.csv")
# The panels of each ``<style>_report@all`` stage (reports/<style>/all/panels/<name>.png), the only DVC plots;
# each builder's PANELS is tested to name these. Numbered: `dvc plots show` orders images by name.
REPORT_PANELS: dict[str, tuple[str, ...]] = {
    style: ("1_overview", "2_content", "3_distributions") for style in REPORT_SERIES
}


@dataclass(frozen=True)
class Outputs:
    """What one stage (one month of a per-month stage) writes, by the kind ``dvc.yaml`` declares it as."""

    outs: tuple[Path, ...] = ()
    metrics: tuple[Path, ...] = ()
    plots: tuple[Path, ...] = ()

    def all(self) -> tuple[Path, ...]:
        return self.outs + self.metrics + self.plots


@dataclass(frozen=True)
class StageLayout:
    outputs: Callable[[str], Outputs]
    per_month: bool = False  # a foreach stage: outputs(month) for each month in scope


def _month(build: Callable[[str], Outputs]) -> StageLayout:
    return StageLayout(build, per_month=True)


def _whole(*outs: Path) -> StageLayout:
    return StageLayout(lambda _month: Outputs(outs))


def _foresight_step(step: str) -> StageLayout:
    stage = f"foresight_{step}"
    return _month(
        lambda m: Outputs((p.foresight_path(step, m), p.foresight_rejects(step, m), p.metrics_path(stage, m)))
    )


def _report(style: str, scope: str) -> Outputs:
    """``<style>_report@<scope>`` (a month, or "all" for the whole dataset) writes its folder whole."""
    return Outputs((p.report_dir(style, scope),))


def _check(style: str) -> StageLayout:
    return _whole(p.check_report(style))


# The per-month OpenForesight steps, named as in the recipe (almanac.foresight.recipe, the one place
# their order is written); each writes foresight/<step>/<month>.parquet, its rejects and metrics.
FORESIGHT_STEPS = tuple(
    step.stage.removeprefix("foresight_") for step in FORESIGHT_RECIPE.steps if step.per_month
)

STAGES: dict[str, StageLayout] = {
    "ccnews_ingest": _month(
        lambda m: Outputs((p.ingest_articles_dir(m), p.ingest_rejects(m), p.metrics_path("ccnews_ingest", m)))
    ),
    "dedup_signatures": _month(
        lambda m: Outputs((p.dedup_signatures(m), p.metrics_path("dedup_signatures", m)))
    ),
    "dedup": _whole(p.articles_dir(), p.dedup_rejects(), p.metrics_path("dedup")),
    "corpus_stats": _whole(p.stats_report("corpus_stats"), p.stats_report("corpus_stats", ".json")),
    **{f"foresight_{step}": _foresight_step(step) for step in FORESIGHT_STEPS},
    "foresight_question_dedup": _whole(
        p.question_dedup_dir(), p.question_dedup_rejects(), p.metrics_path("foresight_question_dedup")
    ),
    "foresight_split": _whole(
        p.foresight_splits_dir(), p.foresight_split_rejects(), p.metrics_path("foresight_split")
    ),
    "futuresim_retrieval": _whole(p.foresight_retrieval_dir()),
    "foresight_funnel": _whole(
        p.stats_report("foresight_funnel"), p.stats_report("foresight_funnel", ".json")
    ),
    "futuresim_corpus": _month(
        lambda m: Outputs(
            (
                p.futuresim_articles_dir(m),
                p.futuresim_chunks(m),
                p.futuresim_corpus_rejects(m),
                p.metrics_path("futuresim_corpus", m),
            )
        )
    ),
    "futuresim_index": _whole(p.futuresim_index_dir()),
    "wiki_ingest": _whole(p.wiki_articles(), p.wiki_rejects(), p.metrics_path("wiki_ingest")),
    "wcep_ingest": _whole(p.wcep_events(), p.wcep_rejects(), p.metrics_path("wcep_ingest")),
    "wcep_news": _whole(p.wcep_news(), p.wcep_news_rejects(), p.metrics_path("wcep_news")),
    "wiki_filter": _whole(p.wiki_events(), p.wiki_filter_rejects(), p.metrics_path("wiki_filter")),
    "complex_events": _whole(
        p.complex_events(), p.complex_events_rejects(), p.metrics_path("complex_events")
    ),
    "event_timeline": _whole(p.timelines(), p.timeline_rejects(), p.metrics_path("event_timeline")),
    "event_tasks": _whole(p.samples_dir(), p.tasks_rejects(), p.metrics_path("event_tasks")),
    "event_split": _whole(p.event_splits_dir(), p.event_split_rejects(), p.metrics_path("event_split")),
    "event_stats": _whole(
        p.stats_report("openforecast_stats"),
        *map(p.plot_file, EVENT_STATS_CSVS),
        p.metrics_path("event_stats"),
    ),
    "gdelt_download": _month(lambda m: Outputs((p.gdelt_raw_dir(m), p.metrics_path("gdelt_download", m)))),
    "gdelt_ingest": _month(
        lambda m: Outputs(
            (
                p.gdelt_events(m),
                p.gdelt_mentions(m),
                p.gdelt_ingest_rejects(m),
                p.metrics_path("gdelt_ingest", m),
            )
        )
    ),
    "gdelt_clean": _whole(p.gdelt_clean_dir(), p.metrics_path("gdelt_clean")),
    "gdelt_articles": _whole(
        p.gdelt_articles(), p.gdelt_articles_rejects(), p.metrics_path("gdelt_articles")
    ),
    "relation_split": _month(
        lambda m: Outputs((p.mirai_queries(m), p.mirai_rejects(m), p.metrics_path("relation_split", m)))
    ),
    "gdelt_stats": _whole(
        p.stats_report("mirai_stats"), *map(p.plot_file, GDELT_STATS_CSVS), p.metrics_path("gdelt_stats")
    ),
    "futuresim_repair": _whole(
        p.futuresim_repair_dir(), p.futuresim_repair_rejects(), p.metrics_path("futuresim_repair")
    ),
    "futuresim_answerability": _whole(
        p.futuresim_questions_dir(),
        p.futuresim_answerability_rejects(),
        p.metrics_path("futuresim_answerability"),
    ),
    "check_futuresim": _check("futuresim"),
    "futuresim_funnel": _whole(
        p.stats_report("futuresim_funnel"), p.stats_report("futuresim_funnel", ".json")
    ),
    "futurex_events": _whole(
        p.futurex_events(), p.futurex_events_rejects(), p.metrics_path("futurex_events")
    ),
    "futurex_filter": _whole(
        p.futurex_filtered(), p.futurex_filter_rejects(), p.metrics_path("futurex_filter")
    ),
    "futurex_tiers": _whole(
        p.futurex_tiers_dir(),
        p.futurex_tiers_rejects(),
        p.metrics_path("futurex_tiers"),
    ),
    "futurex_stats": _whole(p.stats_report("futurex_stats"), p.stats_report("futurex_stats", ".json")),
    **{f"check_{style}": _check(style) for style in (*REPORT_SERIES, "futurex", "cross_style")},
    **{f"{style}_report": _month(partial(_report, style)) for style in REPORT_SERIES},
}
# dvc.yaml's top-level ``metrics`` and ``plots``: files of the ``<style>_report@all`` folders.
DVC_METRICS: tuple[Path, ...] = tuple(p.report_summary(style) for style in REPORT_SERIES)
DVC_PLOTS: tuple[Path, ...] = tuple(
    p.report_panel(style, name) for style in REPORT_SERIES for name in REPORT_PANELS[style]
)


def stage_outputs(stage: str, month: str = "") -> Outputs:
    """What ``stage`` (for ``month`` when it runs per month) writes; KeyError for a stage not listed."""
    return STAGES[stage].outputs(month)
