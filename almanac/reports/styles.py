"""The three dataset styles and where their released splits live.

A style's released data is a set of tables, each named by a (config, split) pair as on the Hugging Face
Hub: OpenForesight has one config with train/validation/test, OpenForecast one config per task, MIRAI one
config with a test split per month. The same reader serves the working tree and old git revisions, since
it takes any fsspec filesystem (local, or ``dvc.api.DVCFileSystem`` at a revision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

import fsspec
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.layout import event_splits_dir, foresight_splits_dir, mirai_queries_dir
from almanac.core.layout import series_paths as sp

Layout = Literal["split/month", "split/config", "month"]


class TableKey(NamedTuple):
    config: str
    split: str


@dataclass(frozen=True)
class DatasetStyle:
    name: str  # as typed on the command line and used under reports/<name>/
    pretty_name: str
    splits_dir: str  # repository-relative folder of the released Parquet files
    # split/month: <split>/<month>.parquet; split/config: <split>/<config>.parquet; month: <month>.parquet
    layout: Layout
    id_column: str  # the stable content-hash id of one released item
    month_column: str | None = None  # split/config: a date column whose month selects rows
    default_config: str = "default"
    month_split: str = "test"  # layout "month": every month file belongs to this split
    config_order: tuple[str, ...] = ()  # configs listed first, in this order (the rest alphabetically)


STYLES: dict[str, DatasetStyle] = {
    style.name: style
    for style in (
        DatasetStyle(
            "openforesight",
            "Almanac OpenForesight-style forecasting questions",
            foresight_splits_dir().as_posix(),
            "split/month",
            "question_id",
        ),
        DatasetStyle(
            "openforecast",
            "Almanac OpenForecast-style complex-event forecasting tasks",
            event_splits_dir().as_posix(),
            "split/config",
            "sample_id",
            month_column="cut_date",
            config_order=("stf", "ltf", "aqa", "mcnc", "mcac", "vqa"),  # the paper's task order
        ),
        DatasetStyle(
            "mirai",
            "Almanac MIRAI-style relational forecasting queries",
            mirai_queries_dir().as_posix(),
            "month",
            "query_id",
        ),
        DatasetStyle(
            "series",
            "Almanac data-series forecasting questions",
            sp.series_splits_dir().as_posix(),
            "split/month",
            "question_id",
            month_column="resolution_date",  # its own months (series.split), not the news months
        ),
    )
}


def get_style(name: str) -> DatasetStyle:
    if name not in STYLES:
        raise ValueError(f"unknown dataset style {name!r}; choose one of {sorted(STYLES)}")
    return STYLES[name]


def split_files(
    style: DatasetStyle, months: Sequence[str] | None, fs: fsspec.AbstractFileSystem
) -> dict[TableKey, list[str]]:
    """The Parquet files of each (config, split) that hold rows of ``months`` (None: every month).

    In ``table_order``; paths sorted within a key. For the ``split/config`` layout every file is listed;
    its rows are filtered by month when read.
    """
    root = style.splits_dir.rstrip("/")
    if not fs.exists(root):
        return {}

    def wanted(stem: str) -> bool:
        return months is None or stem in months

    found: dict[TableKey, list[str]] = {}
    for path in sorted(str(p) for p in fs.find(root) if str(p).endswith(".parquet")):
        parts = path[len(root) + 1 :].split("/") if path.startswith(root + "/") else _tail(path, root)
        stem = parts[-1].removesuffix(".parquet")
        if style.layout == "month" and len(parts) == 1 and wanted(stem):
            found.setdefault(TableKey(style.default_config, style.month_split), []).append(path)
        elif style.layout == "split/month" and len(parts) == 2 and wanted(stem):
            found.setdefault(TableKey(style.default_config, parts[0]), []).append(path)
        elif style.layout == "split/config" and len(parts) == 2:
            found.setdefault(TableKey(stem, parts[0]), []).append(path)
    return dict(sorted(found.items(), key=lambda item: table_order(style, item[0])))


SPLIT_ORDER = ("train", "validation", "test")


def table_order(style: DatasetStyle, key: TableKey) -> tuple[int, str, int, str]:
    """Sort key: configs in the style's order, splits as train, validation, test, then others by name."""
    config_rank = (
        style.config_order.index(key.config) if key.config in style.config_order else len(style.config_order)
    )
    split_rank = SPLIT_ORDER.index(key.split) if key.split in SPLIT_ORDER else len(SPLIT_ORDER)
    return (config_rank, key.config, split_rank, key.split)


def _tail(path: str, root: str) -> list[str]:
    # DVCFileSystem may return absolute-looking paths ("/data/..."); cut at the root folder.
    index = path.find(root + "/")
    return path[index + len(root) + 1 :].split("/") if index >= 0 else [path.rsplit("/", 1)[-1]]


def read_split_tables(
    style: DatasetStyle, months: Sequence[str] | None, fs: fsspec.AbstractFileSystem | None = None
) -> dict[TableKey, pa.Table]:
    """Each (config, split) table restricted to ``months`` (None: all rows); empty tables are omitted."""
    filesystem = fs or fsspec.filesystem("file")
    tables: dict[TableKey, pa.Table] = {}
    for key, paths in split_files(style, months, filesystem).items():
        parts = []
        for path in paths:
            with filesystem.open(path, "rb") as handle:
                # Not pq.read_table: on a Python file object it leaves reader work on Arrow's thread pool
                # that may run during interpreter shutdown and abort the process (apache/arrow#33975);
                # ParquetFile.read finishes all of it before returning.
                parts.append(pq.ParquetFile(handle).read())
        table = pa.concat_tables(parts, promote_options="default")
        if style.month_column is not None and months is not None:
            table = filter_months(table, style.month_column, months)
        if table.num_rows:
            tables[key] = table
    return tables


def filter_months(table: pa.Table, date_column: str, months: Sequence[str]) -> pa.Table:
    """Rows whose ``date_column`` falls in one of ``months`` (YYYY-MM), in their original order."""
    month_of_row = pc.strftime(table[date_column], format="%Y-%m")
    return table.filter(pc.is_in(month_of_row, value_set=pa.array(list(months), type=pa.string())))
