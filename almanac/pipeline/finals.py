"""The last stages: the invariant check of every style (it fails ``dvc repro`` on any leaking row) and the
reports (one stage per style, writing a folder per month of ``months`` and one for "all")."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from almanac.core import layout as p
from almanac.pipeline import events, foresight, mirai, series
from almanac.pipeline.declare import Stage, steps_stage

SPLITS: Final = p.foresight_splits_dir().as_posix()
ARTICLES: Final = p.articles_dir().as_posix()
QUADS: Final = p.gdelt_quads().as_posix()
FUTURESIM_QUESTIONS: Final = p.futuresim_questions_dir().as_posix()
EVENT_SPLITS: Final = p.event_splits_dir().as_posix()
MIRAI_QUERIES: Final = p.mirai_queries_dir().as_posix()
FUTUREX_TIERS: Final = p.futurex_tiers_dir().as_posix()

# The ``*_report`` stages' plot series (reports/<style>/<month>/plots/<name>.csv), in the builders' order;
# each builder's SERIES is tested equal to its entry here.
REPORT_SERIES: Final[dict[str, tuple[str, ...]]] = {
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
# The whole-dataset panels of each ``<style>_report`` (reports/<style>/all/panels/<name>.png), the DVC plots;
# each builder's PANELS is tested to name these. Numbered: `dvc plots show` orders images by name.
REPORT_PANELS: Final[dict[str, tuple[str, ...]]] = {
    style: ("1_overview", "2_content", "3_distributions") for style in REPORT_SERIES
}
# dvc.yaml's top-level ``metrics`` and ``plots``: files of the ``<style>_report`` stages' all/ folders.
DVC_METRICS: Final[tuple[Path, ...]] = tuple(p.report_summary(style) for style in REPORT_SERIES)
DVC_PLOTS: Final[tuple[Path, ...]] = tuple(
    p.report_panel(style, name) for style in REPORT_SERIES for name in REPORT_PANELS[style]
)


def _check(style: str, reads: tuple[str, ...], params: tuple[str, ...]) -> Stage:
    """The check of one style: a step of the ``check`` stage (``python -m stages.check --style <style>`` runs
    it alone)."""
    return Stage(
        name=f"check_{style}",
        module="stages.check",
        function="almanac.check.stage:run",
        args=("--style", style),
        reads=reads,
        params=params,
        writes=(p.check_report(style),),
        runs_in="check",
    )


def _union(*parts: tuple[str, ...]) -> tuple[str, ...]:
    """Every item of ``parts`` once, in first-seen order; a dotted params key is left out where a section
    that holds it is there already (``futuresim.retrieval.k`` under ``futuresim.retrieval``)."""
    items = tuple(dict.fromkeys(item for part in parts for item in part))
    return tuple(item for item in items if not any(item.startswith(f"{other}.") for other in items))


CHECK_FUTURESIM: Final = _check(
    "futuresim", (FUTURESIM_QUESTIONS, ARTICLES), ("foresight.split", "futuresim.answerability")
)
CHECK_OPENFORESIGHT: Final = _check(
    "openforesight",
    (SPLITS, ARTICLES, p.foresight_retrieval_dir().as_posix(), p.futuresim_chunks_dir().as_posix()),
    ("foresight.split", "futuresim.retrieval"),
)
CHECK_OPENFORECAST: Final = _check(
    "openforecast",
    (EVENT_SPLITS, p.timelines().as_posix(), p.complex_events().as_posix()),
    (
        "event_tasks.split",
        "event_tasks.negatives.fuzzy_threshold",
        "event_tasks.hindsight_words",
        "event_tasks.shortcut_audit",
    ),
)
CHECK_MIRAI: Final = _check(
    "mirai",
    (MIRAI_QUERIES, QUADS, p.gdelt_articles().as_posix()),
    (
        "months",
        "relation_split.min_daily_mentions",
        "relation_split.min_articles",
        "relation_split.answers_need_text",
        "relation_split.admission",
    ),
)
CHECK_FUTUREX: Final = _check(
    "futurex",
    (
        FUTUREX_TIERS,
        SPLITS,
        "data/foresight/leakage",
        "data/foresight/answer_type",
        "data/foresight/qgen",
        "data/foresight/validate",
        QUADS,
        "data/series/splits",  # Level-4 rows from series questions
    ),
    ("months", "foresight.split", "futurex"),
)
CHECK_CROSS_STYLE: Final = _check(
    "cross_style",
    (SPLITS, FUTURESIM_QUESTIONS, EVENT_SPLITS, MIRAI_QUERIES, FUTUREX_TIERS),
    ("check.cross_style",),
)
# The checks in the order the stage runs them (almanac.check.stage.CHECKS): each style's, then cross-style.
CHECK_STEPS: Final = (
    CHECK_OPENFORESIGHT,
    CHECK_FUTURESIM,
    CHECK_OPENFORECAST,
    CHECK_MIRAI,
    CHECK_FUTUREX,
    series.CHECK,
    CHECK_CROSS_STYLE,
)
CHECK: Final = Stage(
    name="check",
    module="stages.check",
    function="almanac.check.stage:run",
    reads=_union(*(step.reads for step in CHECK_STEPS)),
    params=_union(*(step.params for step in CHECK_STEPS)),
    writes=tuple(path for step in CHECK_STEPS for path in step.writes),
    note="The invariant checker, one stage for every style (one process, not seven): each style's invariants "
    "over its released rows, then cross-style contamination (an evaluation row of one style repeating a "
    "training row of another). It fails `dvc repro` on any leaking row; reports/check/<style>.json per "
    "style.",
)


def _metrics(*stages: str) -> tuple[str, ...]:
    return tuple(p.metrics_path(stage).as_posix() for stage in stages)


def _report(style: str, reads: tuple[str, ...], params: tuple[str, ...], note: str = "") -> Stage:
    """``<style>_report`` writes reports/<style>/ whole: a folder per month of ``months``, then ``all``. A
    step of ``<style>_stats_report``, after the style's statistics (one process for both)."""
    return Stage(
        name=f"{style}_report",
        module=f"stages.{style}_stats_report",
        function=f"almanac.reports.{style}_stats_report_stage:report",
        runs_in=f"{style}_stats_report",
        # read by the whole dataset's summary only
        reads=(*reads, p.check_report(style).as_posix()),
        params=("months", *params),
        writes=(p.report_style_dir(style),),
        note=note,
    )


OPENFORESIGHT_REPORT: Final = _report(
    "openforesight",
    (
        SPLITS,
        *(p.metrics_dir(f"foresight_{step}").as_posix() for step in ("qgen", "validate", "select")),
        *(p.metrics_dir(f"foresight_{step}").as_posix() for step in ("leakage", "answer_type", "dates")),
        *_metrics("foresight_question_dedup", "foresight_split", "dedup"),
    ),
    ("foresight.split", "llm.roles.generator", "llm.roles.validator", "llm.roles.editor"),
    "Reports: one stage per style (one process, not one per month): it writes reports/<style>/<month>/ for "
    "every month of `months` and reports/<style>/all/ for the whole dataset, so it depends on the style's "
    "whole metrics folders and splits, and its one output is the folder reports/<style>/.",
)
MIRAI_REPORT: Final = _report(
    "mirai",
    (
        MIRAI_QUERIES,
        p.gdelt_events_dir().as_posix(),
        p.gdelt_clean_rejects().as_posix(),
        QUADS,  # the frequency baseline's history
        p.metrics_dir("gdelt_download").as_posix(),
        p.metrics_dir("gdelt_ingest").as_posix(),
        *_metrics("gdelt_clean", "gdelt_articles"),
        p.metrics_dir("relation_split").as_posix(),
    ),
    ("scorer", "gdelt_clean"),
)
OPENFORECAST_REPORT: Final = _report(
    "openforecast",
    (
        EVENT_SPLITS,
        *_metrics("wiki_ingest", "wcep_ingest", "wcep_news", "wiki_filter", "complex_events"),
        *_metrics("event_timeline", "event_tasks", "event_split"),
    ),
    # the card says which backend wrote timelines and tasks
    ("llm.roles.classifier", "llm.roles.annotator", "event_tasks.shortcut_audit"),
)


def _stats_report(stats: Stage, report: Stage, note: str) -> Stage:
    """The style's statistics, then its reports, in one stage (``<style>_stats_report``)."""
    return steps_stage(report.runs_in, f"almanac.reports.{report.runs_in}_stage:run", (stats, report), note)


BOTH: Final = (
    "The style's statistics (< 1 s of work), then its reports, in one process; each step writes its "
)
OPENFORESIGHT_STATS_REPORT: Final = _stats_report(
    foresight.FUNNEL,
    OPENFORESIGHT_REPORT,
    BOTH + "own outputs as before: reports/foresight_funnel.{md,json}, then reports/openforesight/.",
)
OPENFORECAST_STATS_REPORT: Final = _stats_report(
    events.EVENT_STATS,
    OPENFORECAST_REPORT,
    BOTH
    + "own outputs as before: reports/openforecast_stats.md and its plot CSVs, then reports/openforecast/.",
)
MIRAI_STATS_REPORT: Final = _stats_report(
    mirai.GDELT_STATS,
    MIRAI_REPORT,
    BOTH + "own outputs as before: reports/mirai_stats.md and its plot CSVs, then reports/mirai/.",
)
# The steps the three run: each style's statistics, then its report (reports/<style>_stats_report_stage.py)
STATS_REPORT_STEPS: Final = (
    foresight.FUNNEL,
    OPENFORESIGHT_REPORT,
    events.EVENT_STATS,
    OPENFORECAST_REPORT,
    mirai.GDELT_STATS,
    MIRAI_REPORT,
)
STAGES: Final = (
    CHECK,
    OPENFORESIGHT_STATS_REPORT,
    OPENFORECAST_STATS_REPORT,
    MIRAI_STATS_REPORT,
    series.REPORT,
)
