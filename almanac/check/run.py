"""Read what a style released (and what its rows cite) from disk, and run that style's invariants."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.check.cross_style import check_cross_style
from almanac.check.dates import article_last_day
from almanac.check.futuresim import check_futuresim
from almanac.check.futurex import Sources, check_futurex
from almanac.check.mirai import Thresholds, check_mirai, recorded_from_quads
from almanac.check.openforecast import OptionRules, Windows, check_openforecast
from almanac.check.openforesight import RetrievalContext, check_openforesight, source_disjoint, split_months
from almanac.check.report import StyleReport
from almanac.check.retrieval import corpus_chunk_days, cutoff_months, own_article_containment
from almanac.check.series import check_series
from almanac.check.series_context import NewsContextRules
from almanac.core import layout
from almanac.core.field_roles import prompt_fields
from almanac.core.ids import content_id
from almanac.core.io import read_parquet
from almanac.core.layout import series_paths as sp
from almanac.crossstyle.near_duplicates import MARK_COLUMN, ReleasedRow, parse_cross_style
from almanac.crossstyle.released_rows import foresight_row, futurex_row, mirai_row, openforecast_row
from almanac.foresight.schema import FIELD_ROLES as OPENFORESIGHT_ROLES

STYLES = ("openforesight", "openforecast", "mirai", "futuresim", "futurex", "series")
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
    if style == "series":
        return _series(root, month, params)
    raise ValueError(f"unknown style {style!r}; one of {', '.join(STYLES)} or {ALL}")


def _rows(path: Path, columns: Sequence[str] | None = None, **extra: str) -> list[dict[str, Any]]:
    table = read_parquet(path, columns=list(columns) if columns else None)
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
        cited = sorted({str(row["url"]) for row in rows if row.get("url")})
        for path in layout.corpus_files(root):
            names = set(pq.read_schema(path).names)
            for article in _rows(path, [name for name in ARTICLE_DATE_COLUMNS if name in names]):
                articles[str(article["url"])] = article
            if "text" in names and cited:  # the cited articles' text, for numbers a title took from it
                texts = pq.read_table(path, columns=["url", "text"], filters=[("url", "in", cited)])
                for url, text in zip(
                    texts.column("url").to_pylist(), texts.column("text").to_pylist(), strict=True
                ):
                    articles[str(url)]["text"] = text
    fields = prompt_fields(OPENFORESIGHT_ROLES)
    retrieval = None if splits_dir is not None else _retrieval(root, pattern, params)
    return check_openforesight(
        rows, split_months(params), articles, fields, month, retrieval, source_disjoint(params)
    )


def _retrieval(root: Path, pattern: str, params: Mapping[str, Any]) -> RetrievalContext | None:
    """The FutureSim retrieval contexts beside the splits, when built (checked against the chunks)."""
    folder = root / layout.foresight_retrieval_dir()
    if not folder.is_dir():
        return None
    files = sorted(path for split in SPLITS for path in (folder / split).glob(pattern))
    rows = [row for path in files for row in _rows(path)]
    shown = {str(row["chunk_id"]) for row in rows if row.get("chunk_id")}
    chunks = [
        row
        for path in sorted((root / layout.futuresim_chunks_dir()).glob("*.parquet"))
        for row in _rows(path, ["chunk_id", "article_id", "ordinal", "text"])
        if str(row["chunk_id"]) in shown
    ]
    days, problems = corpus_chunk_days(chunks, _corpus_dates(root))
    return RetrievalContext(rows, days, cutoff_months(params), problems, own_article_containment(params))


def _corpus_dates(root: Path) -> dict[str, dict[str, Any]]:
    """Article id -> its publish date and precision, from the corpus files (not from any export)."""
    return {
        str(row["id"]): row
        for path in layout.corpus_files(root)
        for row in _rows(path, ["id", "publish_date", "date_precision"])
    }


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
    # An article without a last day (unknown precision) is left out: its evidence is then untraceable.
    articles = {
        article_id: day
        for article_id, row in _corpus_dates(root).items()
        if (day := article_last_day(row["publish_date"], row["date_precision"])) is not None
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
        for row in _rows(
            path, ["question_id", "answer", "question_start_date", "resolution_date", "split", "url"]
        )
    }
    day_pairs: dict[str, set[str]] = {}
    for quad in _rows(root / layout.gdelt_quads(), ["date", "subject", "relation", "object"]):
        pair = content_id(quad["date"].isoformat(), str(quad["subject"]), str(quad["object"]))
        day_pairs.setdefault(pair, set()).add(str(quad["relation"]))
    section = params.get("futurex") or {}
    reasons = set((section.get("events") or {}).get("numeric_reasons") or ("answer_class_numeric",))
    numeric: dict[str, dict[str, Any]] = {}
    for name in (str(month) for month in params.get("months") or ()):
        # the validator's numeric drops are read from the generated rows, the answer-type filter's
        # from the leakage output (as futurex_events reads them)
        for stage, source in (("validate", "qgen"), ("answer_type", "leakage")):
            rejects = root / layout.foresight_rejects(stage, name)
            if not rejects.is_file():
                continue
            wanted = {row["id"] for row in _rows(rejects, ["id", "reason"]) if row["reason"] in reasons}
            if wanted:
                rows_in = _rows(root / layout.foresight_path(source, name))
                numeric.update({row["question_id"]: row for row in rows_in if row["question_id"] in wanted})
    candidates = {
        str(row["question_id"]): row
        for name in (str(month) for month in params.get("months") or ())
        if (root / layout.foresight_path("qgen", name)).is_file()
        for row in _rows(
            root / layout.foresight_path("qgen", name), ["question_id", "answer", "article_publish_date"]
        )
    }
    test_months = frozenset(str(m) for m in split_months(params)["test"])
    cap = int((section.get("filter") or {}).get("max_per_source_day", 0))
    per_template = int((section.get("filter") or {}).get("max_per_template", 0))
    series_rows = [row for row in _series_questions(root) if row["kind"] == "numeric"]
    series = {str(row["question_id"]): row for row in series_rows}
    sources = Sources(questions, day_pairs, numeric, candidates, test_months, series)
    return check_futurex(rows, sources, cap, scope=month, max_per_template=per_template)


def _series_questions(root: Path) -> list[dict[str, Any]]:
    folder = root / sp.series_splits_dir()
    files = sorted(path for split in SPLITS for path in (folder / split).glob("*.parquet"))
    return [row for path in files for row in _rows(path)]


def _series(root: Path, month: str, params: Mapping[str, Any]) -> StyleReport:
    """Series questions against the observations table they came from (``month``: a resolution month)."""
    rows = _series_questions(root)
    if not rows:
        raise NotBuiltError("no series questions found under data/series/splits/: run `dvc repro` first")
    if month != ALL:
        rows = [row for row in rows if str(row["resolution_date"])[:7] == month]
    observations = _rows(root / sp.series_observations())
    section = params.get("series") or {}
    splits = {split: list((section.get("split") or {}).get(f"{split}_months") or ()) for split in SPLITS}
    allowed = bool((section.get("questions") or {}).get("allow_unvintaged", False))
    news = _news_rules(root, rows, params)
    return check_series(rows, observations, splits, allowed, scope=month, news=news)


def _news_rules(root: Path, rows: Sequence[Mapping[str, Any]], params: Mapping[str, Any]) -> NewsContextRules:
    """The retrieval cap and, for the chunks shown, their articles' last days read from the corpus."""
    futuresim = params.get("futuresim") or {}
    shown = {str(chunk["chunk_id"]) for row in rows for chunk in row.get("news_context") or ()}
    chunks = [
        row
        for path in (sorted((root / layout.futuresim_chunks_dir()).glob("*.parquet")) if shown else ())
        for row in _rows(path, ["chunk_id", "article_id", "ordinal", "text"])
        if str(row["chunk_id"]) in shown
    ]
    days, problems = corpus_chunk_days(chunks, _corpus_dates(root) if chunks else {})
    return NewsContextRules(
        k=int((futuresim.get("retrieval") or {}).get("k", 5)),
        chunk_tokens=int((futuresim.get("corpus") or {}).get("chunk_tokens", 512)),
        corpus_days=days,
        corpus_problems=problems,
    )


def cross_style(params: Mapping[str, Any], root: Path = Path(".")) -> StyleReport:
    """Every released row of every built style, compared across styles (``almanac check all``)."""
    rows: list[ReleasedRow] = []
    marks: dict[tuple[str, str], str | None] = {}

    def add(row: ReleasedRow | None, record: Mapping[str, Any]) -> None:
        if row is not None:
            rows.append(row)
            marks[(row.style, row.row_id)] = record.get(MARK_COLUMN)

    splits = root / layout.foresight_splits_dir()
    for path in sorted(path for split in SPLITS for path in (splits / split).glob("*.parquet")):
        for record in _rows(path):
            add(foresight_row(record), record)
    futuresim = root / layout.futuresim_questions_dir()
    for split in SPLITS:
        if (futuresim / f"{split}.parquet").is_file():
            for record in _rows(futuresim / f"{split}.parquet"):
                add(foresight_row({**record, "split": record.get("split") or split}, "futuresim"), record)
    events = root / layout.event_splits_dir()
    for path in sorted(path for split in SPLITS for path in (events / split).glob("*.parquet")):
        for record in _rows(path):
            add(openforecast_row(record), record)
    for path in sorted((root / layout.mirai_queries_dir()).glob("*.parquet")):
        for record in _rows(path):
            add(mirai_row(record), record)
    for path in sorted((root / layout.futurex_tiers_dir()).glob("level*.parquet")):
        for record in _rows(path):
            add(futurex_row(record), record)
    return check_cross_style(rows, marks, parse_cross_style(params))


def run_checks(
    styles: Sequence[str],
    month: str,
    params: Mapping[str, Any],
    root: Path = Path("."),
    splits_dir: Path | None = None,
) -> list[StyleReport]:
    """Each style's report; with every style asked for (``check all``), the cross-style report last."""
    reports = [check_style(style, month, params, root, splits_dir) for style in styles]
    if set(styles) == set(STYLES) and splits_dir is None:
        reports.append(cross_style(params, root))
    return reports
