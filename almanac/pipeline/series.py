"""The series stages (issue 29): series files -> observations -> question splits -> check -> report."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.core.layout import series_paths as sp
from almanac.pipeline.declare import Stage

INGEST: Final = Stage(
    name="series_ingest",
    module="stages.series_ingest",
    function="almanac.series.ingest_stage:run",
    reads=("${series.ingest.inputs_dir}",),
    params=("series.ingest",),
    writes=(sp.series_observations(), sp.series_ingest_rejects(), p.metrics_path("series_ingest")),
    note="Questions that resolve themselves from published data series (docs/series.md): series files -> "
    "observations dated by when each value became known -> question splits -> check -> report.",
)
QUESTIONS: Final = Stage(
    name="series_questions",
    module="stages.series_questions",
    function="almanac.series.questions_stage:run",
    # the FutureSim index: each question's news context (almanac.series.context)
    reads=(sp.series_observations().as_posix(), p.futuresim_index_dir().as_posix()),
    params=(
        "series.questions",
        "series.split",
        "series.context",
        "futuresim.retrieval.k",
        "llm.roles.embedder",
    ),
    writes=(sp.series_splits_dir(), sp.series_question_rejects(), p.metrics_path("series_questions")),
)
CHECK: Final = Stage(
    name="check_series",
    module="stages.check",
    function="almanac.check.stage:run",
    args=("--style", "series"),
    # the chunk export and the corpus: a news chunk's date is traced to its article (news_context_*)
    reads=(
        sp.series_splits_dir().as_posix(),
        sp.series_observations().as_posix(),
        p.futuresim_chunks_dir().as_posix(),
        p.articles_dir().as_posix(),
    ),
    params=(
        "series.questions.allow_unvintaged",
        "series.split",
        "futuresim.retrieval.k",
        "futuresim.corpus.chunk_tokens",
    ),
    writes=(p.check_report("series"),),
    runs_in="check",  # a step of the one check stage (almanac.pipeline.finals.CHECK)
)
REPORT: Final = Stage(
    name="series_report",
    module="stages.series_report",
    function="almanac.reports.series_report_stage:run",
    reads=(
        sp.series_splits_dir().as_posix(),
        p.metrics_path(INGEST.name).as_posix(),
        p.metrics_path(QUESTIONS.name).as_posix(),
        p.check_report("series").as_posix(),
    ),
    params=("series",),
    writes=(p.report_dir("series", "all"),),
    note="One report of the whole series style (its months are its own, not `months`).",
)
# REPORT runs after the one ``check`` stage (almanac.pipeline.finals), so finals lists it with the reports.
STAGES: Final = (INGEST, QUESTIONS)
