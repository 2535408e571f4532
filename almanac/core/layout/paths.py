"""Every path a stage reads or writes, as a function of style, month and stage.

All paths are relative to the project root (DVC runs each stage there). ``dvc.yaml`` names the same paths;
each stage's declaration in ``almanac/pipeline/`` says which of them it writes (``dvc.yaml`` is rendered from
the declarations), and tests/test_layout_dvc.py checks every stage of ``dvc.yaml`` against them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from almanac.core.io import read_parquet
from almanac.core.lazy import lazy_module
from almanac.core.schemas import ARTICLE_SCHEMA

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # one sort below needs it; every stage imports this module (~0.1 s of start-up)
    pc = lazy_module("pyarrow.compute")

DATA = Path("data")
REPORTS = Path("reports")
METRICS = REPORTS / "metrics"
PLOTS = REPORTS / "plots"  # plot series and tables of the whole-dataset statistics stages
# Wall-clock seconds of each stage run: git-ignored and no DVC out, so a rerun changes no tracked file.
TIMINGS = Path("metrics") / "timings"
RAW = DATA / "raw"
FLAGGED_WORDS = Path("almanac/gdelt/flagged_words.txt")  # the bundled list, when gdelt_articles names none

# ---- metrics, reports, check reports ----


def metrics_path(stage: str, month: str | None = None) -> Path:
    """``reports/metrics/<stage>.json``, or ``reports/metrics/<stage>/<month>.json`` of a per-month stage."""
    return METRICS / stage / f"{month}.json" if month else METRICS / f"{stage}.json"


def timings_path(label: str) -> Path:
    """``metrics/timings/<stage>[@<month>].json``: the last run's seconds (untracked; see TIMINGS)."""
    return TIMINGS / f"{label}.json"


def ray_cluster_file() -> Path:
    """``.ray/cluster.json``: the project's running Ray cluster (``make ray-up``); git-ignored, mode 0600."""
    return Path(".ray") / "cluster.json"


def metrics_dir(stage: str) -> Path:
    """The per-month metrics files of one stage."""
    return METRICS / stage


def report_style_dir(style: str) -> Path:
    """``reports/<style>/``: the ``<style>_report`` stage's one output, a folder per month and ``all``."""
    return REPORTS / style


def report_dir(style: str, month: str) -> Path:
    """``reports/<style>/<month or all>/``: metrics.json, report.md, plots/*.csv, figures/*.png (and for all,
    summary.json and panels/*.png)."""
    return report_style_dir(style) / month


def report_summary(style: str) -> Path:
    """The style's summary of its whole dataset: the only DVC metrics (almanac.reports.summary)."""
    return report_dir(style, "all") / "summary.json"


def report_panel(style: str, name: str) -> Path:
    """One panel (related series, one figure) of the style's whole dataset: the only DVC plots."""
    return report_dir(style, "all") / "panels" / f"{name}.png"


def check_report(style: str) -> Path:
    """Counts of the ``check`` stage of one style (rows checked, violations per invariant)."""
    return REPORTS / "check" / f"{style}.json"


def stats_report(name: str, suffix: str = ".md") -> Path:
    """``reports/<name><suffix>`` of a whole-dataset statistics stage (corpus_stats, foresight_funnel)."""
    return REPORTS / f"{name}{suffix}"


def plot_file(name: str) -> Path:
    """A CSV series or table of a whole-dataset statistics stage, ``reports/plots/<name>``."""
    return PLOTS / name


# ---- CC-News corpus ----


def ccnews_raw_dir(raw_dir: str, crawl_month: str) -> Path:
    """The WARC / JSONL files of one crawl month under ``ccnews_ingest.raw_dir``."""
    return Path(raw_dir) / crawl_month


def ingest_dir(crawl_month: str) -> Path:
    """``articles/<publish month>.parquet`` and ``rejects.parquet`` of one CC-News crawl month."""
    return DATA / "ingest" / crawl_month


def ingest_articles_dir(crawl_month: str) -> Path:
    return ingest_dir(crawl_month) / "articles"


def ingest_rejects(crawl_month: str) -> Path:
    return ingest_dir(crawl_month) / "rejects.parquet"


def articles_dir() -> Path:
    """The deduplicated corpus, one folder per publish month (:func:`articles_path`), the input of every
    per-month dataset stage."""
    return DATA / "articles"


def articles_path(month: str) -> Path:
    """The deduplicated articles published in ``month``: a folder of parts ``<crawl month>.parquet``
    (the kept articles of that publish month read from that CC-News crawl month, in storage order), so
    adding a crawl month writes new parts and leaves the others; a month without articles holds one empty
    part, ``empty.parquet``. Read a month with :func:`read_month_articles` or :func:`month_files`."""
    return articles_dir() / month


def article_part(month: str, crawl_month: str) -> Path:
    return articles_path(month) / f"{crawl_month}.parquet"


EMPTY_PART = "empty"  # the part name of a month without articles (a folder DVC and git can track)


def month_files(month: str, root: Path = Path()) -> list[Path]:
    """The Parquet files of ``month``'s corpus below ``root``: its parts, or the single file
    ``<month>.parquet`` of a hand-made corpus (a test's, an old build's); none when the month is absent."""
    folder = root / articles_path(month)
    single = folder.with_name(f"{month}.parquet")
    if single.is_file():
        return [single]
    return sorted(path for path in folder.glob("*.parquet") if not path.name.startswith("."))


def corpus_files(root: Path = Path()) -> list[Path]:
    """Every corpus file below ``root``, month by month (sorted), then part by part."""
    folder = root / articles_dir()
    names = {path.name.removesuffix(".parquet") for path in folder.glob("*")} if folder.is_dir() else set()
    months = sorted(name for name in names if not name.startswith("."))  # temporaries skipped
    return [path for month in months for path in month_files(month, root)]


def read_month_articles(month: str, root: Path = Path()) -> pa.Table:
    """The deduplicated articles of ``month`` as one table in (publish date, id) order (the order the
    dedup stage decides in; ids are unique in a month), whichever parts hold them. A single-file month
    is taken in its own order."""
    files = month_files(month, root)
    if not files:
        raise FileNotFoundError(f"no corpus for {month} under {root / articles_dir()}: run `dvc repro dedup`")
    table = pa.concat_tables([read_parquet(path, ARTICLE_SCHEMA) for path in files])
    if files[0].parent != root / articles_path(month):  # one hand-made file: rows in the order written
        return table
    keys = pa.table({"date": table.column("publish_date"), "id": table.column("id")})
    return table.take(pc.sort_indices(keys, [("date", "ascending"), ("id", "ascending")]))


def read_corpus(months: Sequence[str]) -> pa.Table:
    """The deduplicated articles of ``months``, one table (for stages that look articles up by URL)."""
    return pa.concat_tables([read_month_articles(month) for month in months])


def dedup_rejects() -> Path:
    return DATA / "dedup" / "rejects.parquet"


def dedup_signatures_dir() -> Path:
    """One MinHash signature file per CC-News crawl month (almanac.dedup.signature_store)."""
    return DATA / "dedup" / "signatures"


def dedup_signatures(crawl_month: str) -> Path:
    """The signatures of every article ingested from ``crawl_month`` (any publish month)."""
    return dedup_signatures_dir() / f"{crawl_month}.parquet"


def dedup_index_dir() -> Path:
    """dedup's persistent state (band index, verified pairs, manifest): almanac.dedup.incremental."""
    return DATA / "dedup" / "index"


# ---- OpenForesight ----

FORESIGHT = DATA / "foresight"


def foresight_path(stage: str, month: str) -> Path:
    """Questions of one month after an OpenForesight step (qgen, validate, select, ...)."""
    return FORESIGHT / stage / f"{month}.parquet"


def foresight_rejects(stage: str, month: str) -> Path:
    return FORESIGHT / stage / f"{month}.rejects.parquet"


def question_dedup_dir() -> Path:
    """``<month>.parquet`` of the questions that survive question dedup across months."""
    return FORESIGHT / "question_dedup" / "questions"


def question_dedup_rejects() -> Path:
    return FORESIGHT / "question_dedup" / "rejects.parquet"


def foresight_splits_dir() -> Path:
    """``<split>/<resolution month>.parquet`` of the released question splits."""
    return FORESIGHT / "splits"


def foresight_split_rejects() -> Path:
    return FORESIGHT / "split_rejects.parquet"


def foresight_retrieval_dir() -> Path:
    """``<split>/<resolution month>.parquet``: each released question's top-k chunks under its cut-off."""
    return FORESIGHT / "retrieval"


# ---- FutureSim: the date-gated corpus export and its search index ----

FUTURESIM = DATA / "futuresim"


def futuresim_articles_dir(month: str) -> Path:
    """``DD/articles.jsonl`` of one month's days, FutureSim's ``articles/YYYY/MM/DD/`` with the month folder
    named ``YYYY-MM``: DVC's foreach can name an output only after the month item as written."""
    return FUTURESIM / "corpus" / "articles" / month


def futuresim_chunks_dir() -> Path:
    return FUTURESIM / "corpus" / "chunks"


def futuresim_chunks(month: str) -> Path:
    """The chunks of the articles of ``month`` (almanac.futuresim.schema.CHUNK_SCHEMA)."""
    return futuresim_chunks_dir() / f"{month}.parquet"


def futuresim_corpus_rejects(month: str) -> Path:
    return FUTURESIM / "corpus" / "rejects" / f"{month}.parquet"


def futuresim_index_dir() -> Path:
    """The BM25 index over every month's chunks: ``tantivy/`` and ``manifest.json``."""
    return FUTURESIM / "index"


# The FutureSim question set: the released OpenForesight splits, dates repaired, answerability-filtered.


def futuresim_repair_dir() -> Path:
    """``<split>.parquet`` after the date repair loop, and ``evidence.parquet`` (what searches returned)."""
    return FUTURESIM / "repair"


def futuresim_repair_rejects() -> Path:
    return FUTURESIM / "repair_rejects.parquet"


def futuresim_questions_dir() -> Path:
    """The FutureSim question set: ``<split>.parquet`` after the answerability filter, and evidence."""
    return FUTURESIM / "questions"


def futuresim_answerability_rejects() -> Path:
    return FUTURESIM / "answerability_rejects.parquet"


# ---- raw inputs, as params.yaml configures them ----


def raw_inputs(params: Mapping[str, Any], month: str) -> dict[str, tuple[Path, ...]]:
    """The raw files and folders each source stage reads (``month`` for the per-month ones).

    They are params (a build points them at its own copies), so ``dvc.yaml`` names them as ``${...}`` or,
    for list params, as the sample's paths; the layout test checks those against this table.
    """

    def section(name: str) -> Mapping[str, Any]:
        return params.get(name) or {}

    def paths(*values: str) -> tuple[Path, ...]:
        return tuple(Path(value) for value in values if value)

    download, articles = section("gdelt_download"), section("gdelt_articles")
    wcep = section("wcep_ingest")
    return {
        "ccnews_ingest": (ccnews_raw_dir(str(section("ccnews_ingest").get("raw_dir", "")), month),),
        "wiki_ingest": paths(str(section("wiki_ingest").get("raw_dir", ""))),
        "wcep_ingest": paths(
            str(wcep.get("dump_dir", "")), str(wcep.get("portal_dir", "")), *wcep.get("mds_files") or []
        ),
        "gdelt_download": paths(
            str(download.get("masterfilelist_file", "")),
            str(download.get("mirror_dir", "")),
            str(download.get("local_dir", "")),
        ),
        "gdelt_articles": paths(
            *(articles.get("page_archives") or []), str(articles.get("flagged_words") or FLAGGED_WORDS)
        ),
        "series_ingest": paths(str((section("series").get("ingest") or {}).get("inputs_dir", ""))),
    }
