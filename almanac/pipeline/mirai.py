"""The MIRAI stages: GDELT download -> ingest -> clean -> articles -> monthly relational queries -> stats."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import ITEM, Stage, steps_stage

GDELT_STATS_CSVS: Final = (
    "mirai_counts.csv",
    "mirai_regions.csv",
    "mirai_relations.csv",
    "mirai_quad_classes.csv",
)

MONTH_STAGE: Final = "gdelt_month"  # the DVC stage that runs a month's download, then its ingest
GDELT_DOWNLOAD: Final = Stage(
    name="gdelt_download",
    module=f"stages.{MONTH_STAGE}",
    function="almanac.gdelt.download_stage:run",
    foreach="months",
    # The sample's list and mirror; for a real download set both params to "" (docs/operations.md).
    reads=("${gdelt_download.masterfilelist_file}", "${gdelt_download.mirror_dir}"),
    params=("gdelt_download",),
    writes=(p.gdelt_raw_dir(ITEM), p.metrics_path("gdelt_download", ITEM)),
    # verified files are kept between runs; the stage removes what the list no longer names
    persist=(p.gdelt_raw_dir(ITEM),),
    runs_in=MONTH_STAGE,
)
GDELT_INGEST: Final = Stage(
    name="gdelt_ingest",
    module=f"stages.{MONTH_STAGE}",
    function="almanac.gdelt.ingest_stage:run",
    foreach="months",
    reads=(p.gdelt_raw_dir(ITEM).as_posix(),),
    params=("gdelt_ingest", "empty_months.gdelt"),
    writes=(
        p.gdelt_events(ITEM),
        p.gdelt_mentions(ITEM),
        p.gdelt_ingest_rejects(ITEM),
        p.metrics_path("gdelt_ingest", ITEM),
    ),
    runs_in=MONTH_STAGE,
)
# The steps gdelt_month runs, in order (almanac.gdelt.month_stage.STEPS).
MONTH_STEPS: Final = (GDELT_DOWNLOAD, GDELT_INGEST)
GDELT_MONTH: Final = steps_stage(
    MONTH_STAGE,
    "almanac.gdelt.month_stage:run",
    MONTH_STEPS,
    note="MIRAI-style relational queries from GDELT: download -> ingest -> clean -> articles -> monthly "
    "queries -> stats. A month's download and ingest run in one process (gdelt_month), each step with its "
    "own outputs and metrics as before; the verified downloads persist, so a rerun for an ingest change "
    "lists the month again and re-verifies its kept files (MD5) without fetching them.",
)
GDELT_CLEAN: Final = Stage(
    name="gdelt_clean",
    module="stages.gdelt_clean",
    function="almanac.gdelt.clean_stage:run",
    reads=(p.gdelt_events_dir().as_posix(),),
    params=("months", "gdelt_clean"),
    writes=(p.gdelt_clean_dir(), p.metrics_path("gdelt_clean")),
)
GDELT_ARTICLES: Final = Stage(
    name="gdelt_articles",
    module="stages.gdelt_articles",
    function="almanac.gdelt.articles_stage:run",
    # The sample's page archive; a page_archives folder of your own must be added here too.
    reads=("data/raw/sample/gdelt/pages", p.gdelt_clean_events().as_posix(), p.articles_dir().as_posix()),
    params=("months", "gdelt_articles"),
    writes=(p.gdelt_articles(), p.gdelt_articles_rejects(), p.metrics_path("gdelt_articles")),
)
RELATION_SPLIT: Final = Stage(
    name="relation_split",
    module="stages.relation_split",
    function="almanac.mirai.relation_split_stage:run",
    foreach="months",
    reads=(p.gdelt_quads().as_posix(), p.gdelt_articles().as_posix()),
    params=("mirai", "relation_split"),
    writes=(p.mirai_queries(ITEM), p.mirai_rejects(ITEM), p.metrics_path("relation_split", ITEM)),
)
GDELT_STATS: Final = Stage(
    name="gdelt_stats",
    module="stages.mirai_stats_report",
    function="almanac.reports.gdelt_stats_stage:run",
    reads=(
        p.gdelt_events_dir().as_posix(),
        p.gdelt_clean_dir().as_posix(),
        p.gdelt_articles().as_posix(),
        p.mirai_queries_dir().as_posix(),
    ),
    params=("months", "gdelt_stats"),
    writes=(
        p.stats_report("mirai_stats"),
        p.plot_file(GDELT_STATS_CSVS[0]),
        p.plot_file(GDELT_STATS_CSVS[1]),
        p.metrics_path("gdelt_stats"),
        *map(p.plot_file, GDELT_STATS_CSVS[2:]),
    ),
    runs_in="mirai_stats_report",  # a step of the report stage (almanac.pipeline.finals)
)
STAGES: Final = (GDELT_MONTH, GDELT_CLEAN, GDELT_ARTICLES, RELATION_SPLIT)
