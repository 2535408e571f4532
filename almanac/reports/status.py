"""``almanac status``: what is built for which months, from dvc.lock, the splits and ``dvc status``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from almanac.core.layout import report_dir
from almanac.core.markdown import markdown_table
from almanac.events.recipe import RECIPE as OPENFORECAST
from almanac.foresight.recipe import RECIPE as OPENFORESIGHT
from almanac.mirai.steps import RECIPE as MIRAI
from almanac.pipeline.corpus import CCNEWS_INGEST, DEDUP
from almanac.pipeline.declare import Stage
from almanac.reports.styles import STYLES, read_split_tables

# Each style's stages, from its recipe (the declarations in order): the corpus stages, its steps, its reports.
STYLE_STAGES: dict[str, tuple[Stage, ...]] = {
    recipe.style: (CCNEWS_INGEST, DEDUP, *recipe.declarations())
    for recipe in (OPENFORESIGHT, OPENFORECAST, MIRAI)
}


@dataclass(frozen=True)
class MonthStatus:
    style: str
    month: str
    locked: int  # stages of the style with a dvc.lock entry for this month (or global)
    expected: int
    changed: tuple[str, ...]  # of those, stages dvc status reports as changed (empty when not checked)
    rows_by_split: dict[str, int]
    report: bool  # reports/<style>/<month>/metrics.json exists


def locked_stages(lock_path: Path) -> set[str]:
    if not lock_path.is_file():
        return set()
    lock = yaml.safe_load(lock_path.read_text(encoding="utf-8")) or {}
    return set((lock.get("stages") or {}).keys())


def dvc_changed_stages(repo: Path) -> set[str]:
    """Stage names ``dvc status`` reports as changed (deps, params or outs differ from dvc.lock)."""
    from dvc.repo import Repo

    with Repo(str(repo)) as dvc_repo:
        return set(dvc_repo.status().keys())


def month_status(
    months: Sequence[str], repo: Path = Path("."), changed: set[str] | None = None
) -> list[MonthStatus]:
    locked = locked_stages(repo / "dvc.lock")
    rows = []
    for style in STYLES.values():
        for month in months:
            expected = [
                f"{stage.name}@{month}" if stage.per_month else stage.name
                for stage in STYLE_STAGES[style.name]
            ]
            counts: dict[str, int] = {}
            for key, table in read_split_tables(style, [month]).items():
                counts[key.split] = counts.get(key.split, 0) + table.num_rows
            rows.append(
                MonthStatus(
                    style=style.name,
                    month=month,
                    locked=sum(name in locked for name in expected),
                    expected=len(expected),
                    changed=tuple(sorted(name for name in expected if changed and name in changed)),
                    rows_by_split=dict(sorted(counts.items())),
                    report=(repo / report_dir(style.name, month) / "metrics.json").is_file(),
                )
            )
    return rows


def status_markdown(rows: Sequence[MonthStatus], checked: bool) -> str:
    table = markdown_table(
        ["Style", "Month", "Stages locked", "Changed since lock", "Rows per split", "Report"],
        [
            (
                row.style,
                row.month,
                f"{row.locked}/{row.expected}",
                (", ".join(row.changed) or "none") if checked else "not checked",
                ", ".join(f"{split} {count}" for split, count in row.rows_by_split.items())
                or "nothing built",
                "yes" if row.report else "no",
            )
            for row in rows
        ],
    )
    hint = (
        ""
        if checked
        else "\n\n(`almanac status --check` also asks `dvc status` which stages are out of date.)"
    )
    return table + hint + "\n"
