"""The FutureSim stages: the corpus as day folders and chunks, one BM25 index, and the question set (the
released OpenForesight splits, dates repaired and answerability-filtered, written beside them)."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import ITEM, Stage

# Both question-set filters ask the same two tasks (answer from the search results, match the gold).
ASKING: Final = ("futuresim_answer", "futuresim_answer_match")
ROLES: Final = ("llm.roles.editor", "llm.roles.validator", "llm.roles.embedder")

CORPUS: Final = Stage(
    name="futuresim_corpus",
    module="stages.futuresim_corpus",
    function="almanac.futuresim.corpus_stage:run",
    foreach="months",
    reads=(p.articles_path(ITEM).as_posix(),),
    params=("futuresim.corpus",),
    writes=(
        p.futuresim_articles_dir(ITEM),
        p.futuresim_chunks(ITEM),
        p.futuresim_corpus_rejects(ITEM),
        p.metrics_path("futuresim_corpus", ITEM),
    ),
    note="FutureSim: the corpus as day folders and chunks, and one BM25 index over the chunks.",
)
INDEX: Final = Stage(
    name="futuresim_index",
    module="stages.futuresim_index",
    function="almanac.futuresim.index_stage:run",
    reads=(p.futuresim_chunks_dir().as_posix(),),
    params=("months", "futuresim.corpus", "llm.roles.embedder"),
    writes=(p.futuresim_index_dir(),),
)
RETRIEVAL: Final = Stage(
    name="futuresim_retrieval",
    module="stages.futuresim_retrieval",
    function="almanac.futuresim.retrieval_stage:run",
    # the articles: a question's own source article is never its context (retrieval_not_own_article)
    reads=(
        p.articles_dir().as_posix(),
        p.foresight_splits_dir().as_posix(),
        p.futuresim_index_dir().as_posix(),
    ),
    params=("futuresim.retrieval", "llm.roles.embedder"),
    writes=(p.foresight_retrieval_dir(),),
    note="FutureSim retrieval context: each released question's top-k chunks under its cut-off, "
    "beside the splits.",
)
REPAIR: Final = Stage(
    name="futuresim_repair",
    module="stages.futuresim_repair",
    function="almanac.futuresim.repair_stage:run",
    reads=(p.foresight_splits_dir().as_posix(), p.futuresim_index_dir().as_posix()),
    params=("futuresim.repair", "foresight.split", *ROLES),
    tasks=ASKING,
    writes=(p.futuresim_repair_dir(), p.futuresim_repair_rejects(), p.metrics_path("futuresim_repair")),
    note="FutureSim question set: the released OpenForesight splits, dates repaired and "
    "answerability-filtered, "
    "written beside them (data/futuresim/); the OpenForesight splits are never rewritten.",
)
ANSWERABILITY: Final = Stage(
    name="futuresim_answerability",
    module="stages.futuresim_answerability",
    function="almanac.futuresim.answerability_stage:run",
    reads=(p.futuresim_repair_dir().as_posix(), p.futuresim_index_dir().as_posix()),
    params=("futuresim.answerability", *ROLES),
    tasks=ASKING,
    writes=(
        p.futuresim_questions_dir(),
        p.futuresim_answerability_rejects(),
        p.metrics_path("futuresim_answerability"),
    ),
)
FUNNEL: Final = Stage(
    name="futuresim_funnel",
    module="stages.futuresim_funnel",
    function="almanac.reports.futuresim_funnel_stage:run",
    reads=(
        p.futuresim_questions_dir().as_posix(),
        p.metrics_path(REPAIR.name).as_posix(),
        p.metrics_path(ANSWERABILITY.name).as_posix(),
    ),
    writes=(p.stats_report("futuresim_funnel"), p.stats_report("futuresim_funnel", ".json")),
)
STAGES: Final = (CORPUS, INDEX, RETRIEVAL, REPAIR, ANSWERABILITY, FUNNEL)
