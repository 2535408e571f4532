"""``almanac status``: what is built for which months, from dvc.lock, the splits and ``dvc status``.

Two tables: per style and month of ``months``, the stages locked and the report; then the released rows by
split and by the month each row belongs to, which is the month the style files or dates it under (MIRAI's
query month, OpenForesight's split month file, OpenForecast's cut date). A row may belong to a month
outside ``months`` (OpenForecast cuts train and validation before the first month): those months are listed
too, marked, rather than the rows going uncounted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import yaml

from almanac.core.layout import report_dir, stats_report
from almanac.core.markdown import markdown_table
from almanac.events.recipe import RECIPE as OPENFORECAST
from almanac.foresight.recipe import RECIPE as OPENFORESIGHT
from almanac.futuresim.recipe import RECIPE as FUTURESIM
from almanac.futurex.recipe import RECIPE as FUTUREX
from almanac.mirai.steps import RECIPE as MIRAI
from almanac.pipeline.corpus import CCNEWS_INGEST, DEDUP
from almanac.pipeline.dag import dvc_stage
from almanac.pipeline.declare import Stage
from almanac.reports.styles import SPLIT_ORDER, STYLES, DatasetStyle, read_parquet_file, split_files
from almanac.series.recipe import RECIPE as SERIES


# Each style's stages, from its recipe (the declarations in order): the corpus stages, its steps, its reports.
# A step run inside another stage (the OpenForesight steps, the checks) counts as the stage running it, once.
def _dvc_stages(declared: tuple[Stage, ...]) -> tuple[Stage, ...]:
    return tuple({stage.name: stage for stage in map(dvc_stage, declared)}.values())


STYLE_STAGES: dict[str, tuple[Stage, ...]] = {
    recipe.style: _dvc_stages((CCNEWS_INGEST, DEDUP, *recipe.declarations()))
    for recipe in (OPENFORESIGHT, OPENFORECAST, MIRAI, FUTURESIM, FUTUREX)
}
# Styles reported once over the whole build (no per-month report stage): the report stage's metrics file.
WHOLE_BUILD_REPORTS: dict[str, tuple[str, ...]] = {
    recipe.style: tuple(stage.name for stage in recipe.report_stages) for recipe in (FUTURESIM, FUTUREX)
}
STYLE_STAGES["series"] = _dvc_stages(SERIES.declarations())  # its own series files, no news corpus


@dataclass(frozen=True)
class MonthStatus:
    style: str
    month: str
    locked: int  # stages of the style with a dvc.lock entry for this month (or global)
    expected: int
    changed: tuple[str, ...]  # of those, stages dvc status reports as changed (empty when not checked)
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
            rows.append(
                MonthStatus(
                    style=style.name,
                    month=month,
                    locked=sum(name in locked for name in expected),
                    expected=len(expected),
                    changed=tuple(sorted(name for name in expected if changed and name in changed)),
                    report=_has_report(repo, style.name, month),
                )
            )
    return rows


def _has_report(repo: Path, style: str, month: str) -> bool:
    if style == "series":  # its months are the series' own (series.split): one report over all of them
        return (repo / report_dir(style, "all") / "metrics.json").is_file()
    if style in WHOLE_BUILD_REPORTS:  # one report over every month (reports/<stage>.json)
        return all((repo / stats_report(stage, ".json")).is_file() for stage in WHOLE_BUILD_REPORTS[style])
    return (repo / report_dir(style, month) / "metrics.json").is_file()


def released_rows(style: DatasetStyle, repo: Path = Path(".")) -> dict[str, dict[str, int]]:
    """split -> month the row belongs to -> released rows, over every file of the style (every month).

    A style whose configs share one split (FutureX's tiers, all test) is counted per config instead.
    """
    import fsspec
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    fs = fsspec.filesystem("dir", path=str(repo.resolve()), fs=fsspec.filesystem("file"))
    counts: dict[str, dict[str, int]] = {}
    for key, paths in split_files(style, None, fs).items():
        by_month = counts.setdefault(key.config if style.layout == "config" else key.split, {})
        for path in paths:
            if style.month_column is None:  # the file is the month: its name
                month = PurePosixPath(path).stem
                rows = pq.read_metadata(repo.resolve() / path).num_rows
                by_month[month] = by_month.get(month, 0) + rows
                continue
            dates = read_parquet_file(path, fs, [style.month_column])[style.month_column]
            months = pc.fill_null(pc.strftime(dates, format="%Y-%m"), "(no date)")
            for item in pc.value_counts(months).to_pylist():
                month = str(item["values"])
                by_month[month] = by_month.get(month, 0) + int(item["counts"])
    order = {split: index for index, split in enumerate(SPLIT_ORDER)}
    return {
        split: dict(sorted(counts[split].items()))
        for split in sorted(counts, key=lambda split: (order.get(split, len(order)), split))
    }


OUTSIDE = "*"  # marks a month that is not in `months`


def rows_markdown(rows: Mapping[str, Mapping[str, Mapping[str, int]]], months: Sequence[str]) -> str:
    """style -> split -> month -> rows as one table: a column per month (those outside ``months`` marked),
    then the split's total."""
    found = sorted({month for splits in rows.values() for by_month in splits.values() for month in by_month})
    columns = sorted(set(found) | set(months))
    headers = ["Style", "Split", *(m if m in months else f"{m} {OUTSIDE}" for m in columns), "All"]
    table_rows = []
    for style, splits in rows.items():
        if not splits:
            table_rows.append([style, "nothing built", *("-" for _ in columns), 0])
        for split, by_month in splits.items():
            cells = [by_month.get(month) or "-" for month in columns]
            table_rows.append([style, split, *cells, sum(by_month.values())])
    outside = [m for m in columns if m not in months]
    note = (
        f"\n\n{OUTSIDE} not in `months` ({', '.join(outside)}): rows dated there by the style"
        " (e.g. OpenForecast's train and validation cut before the first month)."
        if outside
        else ""
    )
    return markdown_table(headers, table_rows) + note


def status_markdown(
    rows: Sequence[MonthStatus],
    checked: bool,
    released: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
    months: Sequence[str] = (),
) -> str:
    table = markdown_table(
        ["Style", "Month", "Stages locked", "Changed since lock", "Report"],
        [
            (
                row.style,
                row.month,
                f"{row.locked}/{row.expected}",
                (", ".join(row.changed) or "none") if checked else "not checked",
                "yes" if row.report else "no",
            )
            for row in rows
        ],
    )
    if released is not None:
        table += "\n\nReleased rows by split and by the month each row belongs to:\n\n"
        table += rows_markdown(released, months)
    hint = (
        ""
        if checked
        else "\n\n(`almanac status --check` also asks `dvc status` which stages are out of date.)"
    )
    return table + hint + "\n"
