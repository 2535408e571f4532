"""What a FutureSim or FutureX release ships besides its question tables, in the layouts their tools read.

FutureSim's agents browse the corpus as ``articles/YYYY/MM/DD/*.jsonl`` (one folder per day an article
became available) and search it with a date cap, so a FutureSim release holds that tree, the chunk table,
the BM25 index over the chunks (``index/``) and each question's retrieval context. A FutureX release holds
its four tiers plus ``scoring.json``: the paper's metric per tier (equations 1 and 2 with their
parameters, the k limit, the sigma rule) and the tier weights, so a scorer elsewhere needs nothing else.

Every sentence the card repeats about them (``notes``) is read from what was built (the index manifest,
the retrieval rows' backend, each Level-4 row's sigma source), never assumed.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from almanac.core.field_roles import Role, with_roles
from almanac.core.io import read_parquet, write_json
from almanac.core.layout import (
    foresight_retrieval_dir,
    futuresim_articles_dir,
    futuresim_chunks,
    futuresim_index_dir,
)
from almanac.core.lazy import lazy_module
from almanac.futuresim.dates import retrieval_cutoff
from almanac.futuresim.retrieval import NO_HIT_BACKEND
from almanac.futuresim.schema import RETRIEVAL_SCHEMA
from almanac.futurex.metrics import PARTIAL_CREDIT
from almanac.futurex.schema import TIER_NAMES
from almanac.reports.scope import ReportScope
from almanac.reports.styles import SPLIT_ORDER, DatasetStyle, TableKey

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

CORPUS = TableKey("corpus", "articles")  # the day folders, loaded as JSON lines
CHUNKS = TableKey("chunks", "corpus")
RETRIEVAL_CONFIG = "retrieval"
CORPUS_GLOB = "articles/*/*/*/*.jsonl"
INDEX_FOLDER = "index"
SCORING_FILE = "scoring.json"
# Configs that are material for the questions, not questions: kept out of the card's size category.
MATERIAL_CONFIGS = frozenset({"articles", CORPUS.config, CHUNKS.config, RETRIEVAL_CONFIG})

# What a forecaster may be shown of a retrieval row: the query and the retrieved passages (all available
# by the cut-off); the resolution date is the outcome's day, as in the question table.
RETRIEVAL_ROLES: dict[str, Role] = {
    "query": "prompt",
    "cutoff_date": "prompt",
    "text": "prompt",
    "available_date": "prompt",
    "resolution_date": "answer",
}
CHUNK_ROLES: dict[str, Role] = {"text": "prompt", "available_date": "prompt"}


@dataclass(frozen=True)
class ReleaseExtras:
    tables: dict[TableKey, pa.Table] = field(default_factory=dict)  # more Parquet configs under data/
    files: dict[TableKey, tuple[str, int]] = field(default_factory=dict)  # other configs: (glob, rows)
    notes: tuple[str, ...] = ()  # card sentences about the shipped material, read from the build
    write: Callable[[Path], None] = lambda folder: None  # copies the non-table files into the release


def release_extras(
    style: DatasetStyle,
    scope: ReportScope,
    tables: Mapping[TableKey, pa.Table],
    urls_only: bool,
    root: Path = Path("."),
) -> ReleaseExtras:
    if style.name == "futuresim":
        return _futuresim(scope, tables, urls_only, root)
    if style.name == "futurex":
        return _futurex(scope, tables)
    return ReleaseExtras()


# ---- FutureSim ----


def _futuresim(
    scope: ReportScope, tables: Mapping[TableKey, pa.Table], urls_only: bool, root: Path
) -> ReleaseExtras:
    cutoff_months = int(
        ((scope.params.get("futuresim") or {}).get("retrieval") or {}).get("cutoff_months", 1)
    )
    questions = [row for table in tables.values() for row in table.to_pylist()]
    chunk_files = [root / futuresim_chunks(month) for month in scope.months]
    chunks = [read_parquet(path) for path in chunk_files if path.is_file()]
    extra: dict[TableKey, pa.Table] = {}
    if chunks:
        table = pa.concat_tables(chunks)
        extra[CHUNKS] = with_roles(table.drop_columns(["text"]) if urls_only else table, CHUNK_ROLES)
    retrieval = question_contexts(questions, _retrieval_rows(root), cutoff_months)
    found = set(retrieval.column("retrieval_backend").to_pylist()) if retrieval.num_rows else set()
    backends = sorted(b for b in found if not str(b).startswith("none"))  # "none: ..." marks rank-0 rows
    for split in sorted({str(row["split"]) for row in questions}, key=_split_rank):
        part = retrieval.filter(pc.equal(retrieval["split"], split))
        if urls_only:
            part = part.drop_columns(["text"])
        extra[TableKey(RETRIEVAL_CONFIG, split)] = with_roles(part, RETRIEVAL_ROLES)
    day_files = _day_files(root, scope.months)
    articles = sum(_count_lines(path) for path in day_files)
    manifest_path = root / futuresim_index_dir() / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.is_file() else {}
    notes = [
        f"`articles/YYYY/MM/DD/articles.jsonl`: {articles} articles of {', '.join(scope.months)} in one "
        "folder per day each article became available (its last possible publish day), one JSON object "
        "per line; an agent replaying day D may read the folders up to D only."
        + (" Full text was omitted (`--urls-only`)." if urls_only else ""),
        f"`data/chunks/`: the {sum(t.num_rows for t in chunks)} chunks of those articles "
        f"({manifest.get('chunk_tokens', '?')} tokens each at most, tokenizer "
        f"`{manifest.get('tokenizer', '?')}`), each with the day it became available.",
    ]
    index_files = _index_files(root) if not urls_only else []
    if index_files:
        notes.append(
            f"`index/`: the search index as built (`{manifest.get('backend', 'unknown backend')}`, "
            f"{manifest.get('chunks', '?')} chunks of the months {', '.join(manifest.get('months', []))}); "
            "open it with `almanac.futuresim.search.search_chunks`, which caps every query at a day."
        )
    elif urls_only:
        notes.append("The search index stores chunk text, so a `--urls-only` release does not ship it.")
    else:
        notes.append("No search index was built, so none is shipped.")
    notes.append(
        "`data/retrieval/`: each question's retrieved chunks (rank 1 = best; rank 0: none under the "
        f"cut-off), made by {', '.join(f'`{b}`' for b in backends) or 'no retrieval backend'} for the "
        "released OpenForesight question and re-capped here at the FutureSim question's own (repaired) "
        f"resolution date: only chunks available by `cutoff_months` ({cutoff_months}) before it are kept."
    )

    def write(folder: Path) -> None:
        _write_day_folders(day_files, folder, urls_only)
        for source in index_files:
            target = folder / INDEX_FOLDER / source.relative_to(root / futuresim_index_dir())
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target, follow_symlinks=False)

    return ReleaseExtras(extra, {CORPUS: (CORPUS_GLOB, articles)} if day_files else {}, tuple(notes), write)


def _split_rank(split: str) -> tuple[int, str]:
    return (SPLIT_ORDER.index(split) if split in SPLIT_ORDER else len(SPLIT_ORDER), split)


def _retrieval_rows(root: Path) -> list[dict[str, Any]]:
    folder = root / foresight_retrieval_dir()
    paths = sorted(folder.glob("*/*.parquet")) if folder.is_dir() else []
    return [row for path in paths for row in read_parquet(path).to_pylist()]


def question_contexts(
    questions: list[dict[str, Any]], retrieved: list[dict[str, Any]], cutoff_months: int
) -> pa.Table:
    """Each FutureSim question's retrieval rows, capped at its own resolution date.

    The contexts were retrieved for the OpenForesight question; the date repair may move the resolution
    date earlier, so hits available after ``cutoff_months`` before the repaired date are dropped and the
    ranks renumbered; a question left without a hit keeps one rank-0 row (none goes missing).
    """
    by_question: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in retrieved:
        by_question[str(row["question_id"])].append(row)
    rows: list[dict[str, Any]] = []
    for question in sorted(questions, key=lambda q: (str(q["split"]), str(q["question_id"]))):
        found = sorted(by_question.get(str(question["question_id"]), []), key=lambda r: int(r["rank"]))
        resolution: date = question["resolution_date"]
        moved = question.get("resolution_date_original") not in (None, resolution)
        precision = "day" if moved or not found else str(found[0]["resolution_date_precision"])
        cutoff = retrieval_cutoff(resolution, precision, cutoff_months)
        if found and not moved:
            cutoff = min(cutoff, found[0]["cutoff_date"])
        base = {
            "question_id": question["question_id"],
            "split": question["split"],
            "resolution_date": resolution,
            "resolution_date_precision": precision,
            "cutoff_date": cutoff,
            "query": found[0]["query"] if found else "",
        }
        hits = [r for r in found if int(r["rank"]) > 0 and r["available_date"] <= cutoff]
        for rank, hit in enumerate(hits, start=1):
            rows.append({**hit, **base, "rank": rank})
        if not hits:
            rows.append({**base, "rank": 0, "retrieval_backend": NO_HIT_BACKEND})
    return pa.Table.from_pylist(rows, schema=RETRIEVAL_SCHEMA)


def _day_files(root: Path, months: tuple[str, ...]) -> list[Path]:
    """The corpus export's ``<YYYY-MM>/DD/*.jsonl`` files of ``months``, in order; links are skipped."""
    files = []
    for month in months:
        folder = root / futuresim_articles_dir(month)
        if folder.is_dir() and not folder.is_symlink():
            files += [p for p in sorted(folder.glob("*/*.jsonl")) if p.is_file() and not p.is_symlink()]
    return files


def _count_lines(path: Path) -> int:
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def _write_day_folders(day_files: list[Path], folder: Path, urls_only: bool) -> None:
    """Each article line under ``articles/YYYY/MM/DD/`` of its own ``available_date`` (the export's month
    folder is the build month, which a crawl-dated upper bound may leave); one source file at a time."""
    for source in day_files:
        by_day: dict[str, list[str]] = defaultdict(list)
        with source.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                record = json.loads(line)
                if urls_only:
                    record.pop("text", None)
                    line = json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n"
                by_day[str(record["available_date"])].append(line if line.endswith("\n") else line + "\n")
        for day, lines in sorted(by_day.items()):
            year, month, dd = day.split("-")
            target = folder / "articles" / year / month / dd / source.name
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("a", encoding="utf-8") as out:
                out.writelines(lines)


def _index_files(root: Path) -> list[Path]:
    """The index folder's regular files (tantivy's segment files, meta, manifest); lock files and links
    are left out: a lock is the writer's, not the index's."""
    folder = root / futuresim_index_dir()
    if not folder.is_dir():
        return []
    found = []
    for parent, dirs, names in os.walk(folder):  # does not descend into linked folders
        dirs.sort()
        for name in sorted(names):
            path = Path(parent) / name
            if path.is_file() and not path.is_symlink() and not name.endswith(".lock"):
                found.append(path)
    return found


# ---- FutureX ----


def scoring_config(params: Mapping[str, Any], level4: pa.Table | None) -> dict[str, Any]:
    """The scorer's configuration for the four tiers, as ``almanac score futurex`` applies it."""
    section = params.get("futurex") or {}
    tiers, score = section.get("tiers") or {}, section.get("score") or {}
    sources = Counter(level4.column("sigma_source").to_pylist()) if level4 is not None else Counter()
    return {
        "levels": {
            "1": {
                "tier": TIER_NAMES[1],
                "metric": "exact_match",
                "formula": "score = 1 if the chosen option equals the answer else 0",
                "options": int(tiers.get("level1_options", 3)),
            },
            "2": {
                "tier": TIER_NAMES[2],
                "metric": "f1",
                "formula": "F1 of the chosen option set against the set of correct options",
                "options": int(tiers.get("level2_options", 8)),
                "min_correct": int(tiers.get("level2_min_correct", 2)),
            },
            "3": {
                "tier": TIER_NAMES[3],
                "metric": "ranking (equation 1)",
                "formula": "1 if all k positions match, else partial_credit * |{y} & {y_hat}| / k",
                "partial_credit": PARTIAL_CREDIT,
                "k": "len(answers); a longer prediction is cut to its first k items before scoring",
                "judge_role": str(score.get("judge_role", "validator")),
            },
            "4": {
                "tier": TIER_NAMES[4],
                "metric": "clipped squared error (equation 2)",
                "formula": "max(0, 1 - ((Y - Y_hat) / sigma)^2), sigma taken from the row's `sigma` column",
                "sigma_rule": "the outcome's recent variation where a series exists; otherwise "
                f"level4_sigma_relative x |answer| (level4_sigma_relative = "
                f"{tiers.get('level4_sigma_relative', 0.1)}); each row names its rule in `sigma_source`",
                "sigma_sources": dict(sorted((str(k), v) for k, v in sources.items())),
            },
        },
        "weights": [float(w) for w in score.get("weights", [0.1, 0.2, 0.3, 0.4])],
        "overall": "sum of weight x tier mean over all four tiers; a tier without a score counts 0",
    }


def _futurex(scope: ReportScope, tables: Mapping[TableKey, pa.Table]) -> ReleaseExtras:
    level4 = next((table for key, table in tables.items() if key.config == "level4"), None)
    config = scoring_config(scope.params, level4)
    sigma = config["levels"]["4"]["sigma_sources"]
    notes = (
        f"`{SCORING_FILE}`: how each tier is scored (`almanac score futurex`): Level 1 exact match, Level 2 "
        "F1, Level 3 equation 1 (partial credit "
        f"{PARTIAL_CREDIT}, predictions cut to the answer's length k), Level 4 equation 2 with each row's "
        f"`sigma` (sources in this release: {', '.join(f'{k} {v}' for k, v in sigma.items()) or 'none'}); "
        f"overall weights {config['weights']}.",
    )
    return ReleaseExtras(notes=notes, write=lambda folder: write_json(config, folder / SCORING_FILE))
