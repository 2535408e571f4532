"""Read what a style released (and what its rows cite) from disk, and run that style's invariants."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.check.futuresim import check_futuresim
from almanac.check.futurex import Sources, check_futurex
from almanac.check.mirai import Thresholds, check_mirai, recorded_from_quads
from almanac.check.openforecast import OptionRules, Windows, check_openforecast
from almanac.check.openforesight import RetrievalContext, check_openforesight, split_months
from almanac.check.report import StyleReport
from almanac.check.retrieval import cutoff_months
from almanac.core import layout
from almanac.core.ids import content_id
from almanac.reports.visibility import prompt_fields

STYLES = ("openforesight", "openforecast", "mirai", "futuresim", "futurex")
ALL = "all"
SPLITS = ("train", "validation", "test")
ARTICLE_DATE_COLUMNS = ("url", "publish_date", "crawl_date", "date_precision", "date_source")


class NotBuiltError(RuntimeError):
    """A style's released files are missing: nothing to check is not a pass."""


def check_style(
    style: str,
    month: str,
    params: Mapping[str, Any],
    root: Path = Path("."),
    splits_dir: Path | None = None,
) -> StyleReport:
    """``splits_dir``: OpenForesight splits from elsewhere (``almanac import``); their rows carry their
    article's date and there is no corpus to trace them to."""
    if style == "openforesight":
        return _openforesight(root, month, params, splits_dir)
    if splits_dir is not None:
        raise ValueError("--splits applies to openforesight only")
    if style == "openforecast":
        return _openforecast(root, month, params)
    if style == "mirai":
        return _mirai(root, month, params)
    if style == "futuresim":
        return _futuresim(root, month, params)
    if style == "futurex":
        return _futurex(root, month, params)
    raise ValueError(f"unknown style {style!r}; one of {', '.join(STYLES)} or {ALL}")


def _rows(path: Path, columns: Sequence[str] | None = None, **extra: str) -> list[dict[str, Any]]:
    table = pq.read_table(path, columns=list(columns) if columns else None)
    return [{**row, **extra} for row in table.to_pylist()]


def _require(paths: Sequence[Path], what: str) -> None:
    if not paths:
        raise NotBuiltError(f"no {what} found: run `dvc repro` first")


def _openforesight(root: Path, month: str, params: Mapping[str, Any], splits_dir: Path | None) -> StyleReport:
    pattern = "*.parquet" if month == ALL else f"{month}.parquet"
    folder = splits_dir or root / layout.foresight_splits_dir()
    files = sorted(path for split in SPLITS for path in (folder / split).glob(pattern))
    if month == ALL:
        _require(files, f"OpenForesight split files under {folder}/")
    rows = [row for path in files for row in _rows(path, _split_dir=path.parent.name)]
    articles: dict[str, dict[str, Any]] | None = None
    if splits_dir is None:
        articles = {}
        for path in sorted((root / layout.articles_dir()).glob("*.parquet")):
            names = set(pq.read_schema(path).names)
            for article in _rows(path, [name for name in ARTICLE_DATE_COLUMNS if name in names]):
                articles[str(article["url"])] = article
    fields = prompt_fields("openforesight")
    retrieval = None if splits_dir is not None else _retrieval(root, pattern, params)
    return check_openforesight(rows, split_months(params), articles, fields, month, retrieval)


def _retrieval(root: Path, pattern: str, params: Mapping[str, Any]) -> RetrievalContext | None:
    """The FutureSim retrieval contexts beside the splits, when built (checked against the chunks)."""
    folder = root / layout.foresight_retrieval_dir()
    if not folder.is_dir():
        return None
    files = sorted(path for split in SPLITS for path in (folder / split).glob(pattern))
    rows = [row for path in files for row in _rows(path)]
    chunk_days = {
        str(row["chunk_id"]): row["available_date"]
        for path in sorted((root / layout.futuresim_chunks_dir()).glob("*.parquet"))
        for row in _rows(path, ["chunk_id", "available_date"])
    }
    return RetrievalContext(rows, chunk_days, cutoff_months(params))


def _openforecast(root: Path, month: str, params: Mapping[str, Any]) -> StyleReport:
    splits = root / layout.event_splits_dir()
    files = sorted(path for split in SPLITS for path in (splits / split).glob("*.parquet"))
    _require(files, "OpenForecast split files under data/events/splits/")
    rows = [row for path in files for row in _rows(path, _split_dir=path.parent.name)]
    if month != ALL:
        rows = [row for row in rows if str(row["cut_date"])[:7] == month]
    timelines = {row["ce_id"]: row["events"] for row in _rows(root / layout.timelines(), ["ce_id", "events"])}
    documents = {
        row["ce_id"]: {doc["doc_id"] for doc in row["documents"]}
        for row in _rows(root / layout.complex_events(), ["ce_id", "documents"])
    }
    rules = OptionRules.from_params(params)
    return check_openforecast(rows, Windows.from_params(params), timelines, documents, month, rules)


def _mirai(root: Path, month: str, params: Mapping[str, Any]) -> StyleReport:
    queries = root / layout.mirai_queries_dir()
    files = sorted(queries.glob("*.parquet" if month == ALL else f"{month}.parquet"))
    _require(files, f"MIRAI query files under {queries}/ for {month}")
    rows = [row for path in files for row in _rows(path, _file_month=path.stem)]
    quads = _rows(
        root / layout.gdelt_quads(),
        ["date", "subject", "relation", "object", "urls", "num_daily_mentions"],
    )
    articles = root / layout.gdelt_articles()
    if any(row.get("recipe") == "paper" for row in rows):
        # The paper recipe counts only articles whose cleaned text survived: without the list, say so.
        _require([articles] if articles.is_file() else [], f"article texts {articles} (mirai.recipe: paper)")
    texts = {str(row["url"]) for row in _rows(articles, ["url"])} if articles.is_file() else set()
    months = [str(month) for month in params.get("months") or ()]
    return check_mirai(
        rows, recorded_from_quads(quads), months, month, Thresholds.from_params(params), frozenset(texts)
    )


def _futuresim(root: Path, month: str, params: Mapping[str, Any]) -> StyleReport:
    folder = root / layout.futuresim_questions_dir()
    files = [folder / f"{split}.parquet" for split in SPLITS if (folder / f"{split}.parquet").is_file()]
    _require(files, f"FutureSim question files under {folder}/")
    rows = [row for path in files for row in _rows(path, _split_dir=path.stem)]
    evidence_path = folder / "evidence.parquet"
    evidence = _rows(evidence_path) if evidence_path.is_file() else []
    if month != ALL:
        rows = [row for row in rows if str(row["resolution_date"])[:7] == month]
        kept = {row["question_id"] for row in rows}
        evidence = [row for row in evidence if row["question_id"] in kept]
    articles = {
        str(row["id"]): row["publish_date"].date()
        for path in sorted((root / layout.articles_dir()).glob("*.parquet"))
        for row in _rows(path, ["id", "publish_date"])
        if row["publish_date"] is not None
    }
    return check_futuresim(rows, evidence, split_months(params), articles, scope=month)


def _futurex(root: Path, month: str, params: Mapping[str, Any]) -> StyleReport:
    files = sorted((root / layout.futurex_tiers_dir()).glob("level*.parquet"))
    _require(files, "FutureX tier files under data/futurex/tiers/")
    rows = [row for path in files for row in _rows(path, _file_level=path.stem.removeprefix("level"))]
    for row in rows:
        row["_file_level"] = int(row["_file_level"])
    if month != ALL:
        rows = [row for row in rows if str(row["resolution_date"])[:7] == month]
    folder = root / layout.foresight_splits_dir()
    questions = {
        str(row["question_id"]): row
        for split in SPLITS
        for path in sorted((folder / split).glob("*.parquet"))
        for row in _rows(path, ["question_id", "answer", "question_start_date", "resolution_date"])
    }
    day_pairs: dict[str, set[str]] = {}
    for quad in _rows(root / layout.gdelt_quads(), ["date", "subject", "relation", "object"]):
        pair = content_id(quad["date"].isoformat(), str(quad["subject"]), str(quad["object"]))
        day_pairs.setdefault(pair, set()).add(str(quad["relation"]))
    section = params.get("futurex") or {}
    reasons = set((section.get("events") or {}).get("numeric_reasons") or ("answer_class_numeric",))
    numeric: dict[str, dict[str, Any]] = {}
    for name in (str(month) for month in params.get("months") or ()):
        rejects = root / layout.foresight_rejects("answer_type", name)
        if not rejects.is_file():
            continue
        wanted = {row["id"] for row in _rows(rejects, ["id", "reason"]) if row["reason"] in reasons}
        if wanted:
            leakage = _rows(root / layout.foresight_path("leakage", name))
            numeric.update({row["question_id"]: row for row in leakage if row["question_id"] in wanted})
    cap = int((section.get("filter") or {}).get("max_per_source_day", 0))
    return check_futurex(rows, Sources(questions, day_pairs, numeric), cap, scope=month)


def run_checks(
    styles: Sequence[str],
    month: str,
    params: Mapping[str, Any],
    root: Path = Path("."),
    splits_dir: Path | None = None,
) -> list[StyleReport]:
    return [check_style(style, month, params, root, splits_dir) for style in styles]
