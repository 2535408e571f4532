"""``almanac publish``: a self-contained release folder per style and month (or all months).

The folder holds the data (one Parquet file per config and split), the cited articles (full text or
URLs only), what a style's tools read beside it (FutureSim's day-folder corpus, chunks, index and
retrieval contexts; FutureX's scoring configuration: ``almanac.reports.release_extras``), the
statistics with their figures, the dataset card, the params and ``dvc.lock`` entries that produced it,
and a manifest with a SHA-256 checksum of every file. It is written to a staging folder beside the
target and swapped in whole (never over a folder it did not create, see
``almanac.reports.release_folder``), and the same inputs give the same bytes (no timestamps anywhere).
Every published field carries its role (what a forecaster sees, ``almanac.reports.visibility``).
"""

from __future__ import annotations

import importlib
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from tqdm import tqdm

from almanac.core.io import write_json, write_parquet, write_text
from almanac.foresight.release import newsplease_articles, released_questions
from almanac.reports.articles import cited_articles
from almanac.reports.card import CardInputs, render_card
from almanac.reports.card_text import CARD_TEXTS
from almanac.reports.model import Report
from almanac.reports.release_extras import release_extras
from almanac.reports.release_folder import (
    check_replaceable,
    checked_target,
    sha256_file,
    share_modes,
    staging_folder,
    swap_in,
    verify_folder,
    write_marker,
)
from almanac.reports.scope import ReportScope, report_scope
from almanac.reports.styles import DatasetStyle, TableKey, get_style, read_split_tables
from almanac.reports.visibility import with_roles
from almanac.reports.write import write_report

ARTICLES = TableKey("articles", "cited")


@dataclass(frozen=True)
class PublishConfig:
    out_dir: str = "publish"
    urls_only: bool = False
    licenses: dict[str, str] = field(default_factory=dict)
    maintainers: str = "the Almanac maintainers"
    hub_repo_ids: dict[str, str] = field(default_factory=dict)
    hub_token_env: str = "HF_TOKEN"
    hub_private: bool = True


def release_name(style: str, month: str) -> str:
    return f"{style}-{month}"


def build_style_report(style: DatasetStyle, scope: ReportScope) -> Report:
    module = importlib.import_module(f"almanac.reports.{style.name}")
    build: Callable[[ReportScope], Report] = module.build_report
    return build(scope)


def publish(
    style_name: str,
    month: str,
    params: Mapping[str, Any],
    config: PublishConfig,
    out_dir: Path | None = None,
    urls_only: bool | None = None,
    repo: Path = Path("."),
    force: bool = False,
) -> Path:
    """Assemble the release folder of ``style_name`` for ``month`` ("YYYY-MM" or "all"); returns it.

    ``force`` publishes over a folder that is not an earlier publish of the same style and scope,
    after moving it aside (``<name>.before-publish``); nothing is ever deleted but our own release.
    """
    style = get_style(style_name)
    scope = report_scope(month, params)
    omit_text = config.urls_only if urls_only is None else urls_only
    target = checked_target(out_dir or Path(config.out_dir) / release_name(style.name, month), repo)
    check_replaceable(target, style.name, scope.label, force)  # before minutes of work, and at the swap
    months = None if scope.whole and style.month_column else list(scope.months)
    tables = read_split_tables(style, months)
    if not tables:
        raise ValueError(
            f"nothing is built for {style.name} {month}: run `dvc repro` first (see `almanac status`)"
        )
    steps = tqdm(total=5, desc=f"publish {style.name} {month}", unit="step", disable=None)  # a TTY only
    report = build_style_report(style, scope)
    steps.update()
    articles = cited_articles(style.name, tables, scope.months, omit_text)
    all_tables = released_tables(style, tables)
    if articles is not None:
        all_tables[ARTICLES] = released_articles(style, articles)
    extras = release_extras(style, scope, tables, omit_text)  # FutureSim's corpus, FutureX's scoring
    all_tables.update(extras.tables)
    with staging_folder(target) as staging:
        data_files = _write_tables(all_tables, staging)
        extras.write(staging)
        data_files.update({key: path for key, (path, _) in extras.files.items()})
        steps.update()
        write_report(report, staging / "report")
        figures = [
            (series.title, f"report/figures/{series.name}.png")
            for series in report.series
            if (staging / "report" / "figures" / f"{series.name}.png").is_file()
        ]
        steps.update()
        commit = _git_commit(repo)
        _write_provenance(staging / "provenance", style, scope, params, repo, commit)
        card = CardInputs(
            style=style,
            scope_label=scope.label,
            report=report,
            params=params,
            data_files=data_files,
            row_counts={
                **{key: table.num_rows for key, table in all_tables.items()},
                **{key: rows for key, (_, rows) in extras.files.items()},
            },
            figures=figures,
            urls_only=omit_text,
            commit=commit,
            license=config.licenses.get(style.name, "other"),
            maintainers=config.maintainers,
            release_notes=extras.notes,
        )
        write_text(render_card(card), staging / "README.md")
        write_marker(staging, style.name, scope.label)
        steps.update()
        write_json(manifest(staging, style, scope, commit, omit_text), staging / "manifest.json")
        share_modes(staging)
        steps.update()
        swap_in(staging, target, style.name, scope.label, force)
    steps.close()
    return target


def released_tables(style: DatasetStyle, tables: Mapping[TableKey, pa.Table]) -> dict[TableKey, pa.Table]:
    """The split tables as published: every field tagged with its role (prompt / answer / provenance).

    OpenForesight records also take the released record shape (string dates, forecaster prompts), so
    tools written for that release read them unchanged; the split files under ``data/`` stay typed.
    """
    if style.name == "openforesight":
        return {key: released_questions(table) for key, table in tables.items()}
    return {key: with_roles(table, style.name) for key, table in tables.items()}


def released_articles(style: DatasetStyle, articles: pa.Table) -> pa.Table:
    if style.name == "openforesight":
        return newsplease_articles(articles)
    return articles


def _write_tables(tables: Mapping[TableKey, pa.Table], folder: Path) -> dict[TableKey, str]:
    paths: dict[TableKey, str] = {}
    for key, table in tables.items():
        relative = f"data/{key.config}/{key.split}.parquet"
        write_parquet(table, folder / relative)
        paths[key] = relative
    return paths


def _git_commit(repo: Path) -> str:
    """HEAD's commit, with "-dirty" when tracked files differ from it ("" outside a git checkout)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return head + ("-dirty" if dirty else "")


def _write_provenance(
    folder: Path, style: DatasetStyle, scope: ReportScope, params: Mapping[str, Any], repo: Path, commit: str
) -> None:
    text = CARD_TEXTS[style.name]
    sections = {"months"} | {name.split(".")[0] for name in text.params_sections}
    if text.roles:
        sections.add("llm")
    excerpt = {key: params[key] for key in params if key in sections}
    write_text(yaml.safe_dump(excerpt, sort_keys=True, allow_unicode=True), folder / "params.yaml")
    write_text(
        yaml.safe_dump(_lock_excerpt(repo / "dvc.lock", text.stages, scope), sort_keys=True),
        folder / "dvc.lock",
    )
    write_json({"git_commit": commit, "style": style.name, "scope": scope.label}, folder / "source.json")


def _lock_excerpt(lock_path: Path, stages: tuple[str, ...], scope: ReportScope) -> dict[str, Any]:
    """The ``dvc.lock`` entries of the style's stages (per-month ones for the scope's months only)."""
    if not lock_path.is_file():
        return {"schema": "2.0", "stages": {}}
    lock = yaml.safe_load(lock_path.read_text(encoding="utf-8")) or {}
    kept = {}
    for name, entry in (lock.get("stages") or {}).items():
        base, _, item = str(name).partition("@")
        if base in stages and (not item or item in scope.months):
            kept[name] = entry
    return {"schema": lock.get("schema", "2.0"), "stages": kept}


def manifest(
    folder: Path, style: DatasetStyle, scope: ReportScope, commit: str, urls_only: bool
) -> dict[str, Any]:
    files = []
    top = folder / "manifest.json"  # the manifest itself; an index's own manifest.json is listed
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and p != top):
        relative = path.relative_to(folder).as_posix()
        entry: dict[str, Any] = {"path": relative, "bytes": path.stat().st_size, "sha256": sha256_file(path)}
        if path.suffix == ".parquet":
            entry["rows"] = pq.read_metadata(path).num_rows
        files.append(entry)
    return {
        "style": style.name,
        "scope": scope.label,
        "months": list(scope.months),
        "git_commit": commit,
        "urls_only": urls_only,
        "files": files,
    }


def verify_manifest(folder: Path) -> list[str]:
    """Problems of ``folder`` against ``manifest.json`` ("path: reason" each; [] when every file matches)."""
    return verify_folder(folder)


def upload_to_hub(folder: Path, repo_id: str, token: str, private: bool) -> str:
    """Create (if needed) the dataset repo ``repo_id`` and upload ``folder``; returns the commit URL."""
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    info = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset")
    return str(getattr(info, "commit_url", info))
