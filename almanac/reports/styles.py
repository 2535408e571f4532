"""The dataset styles and where their released splits live.

A style's released data is a set of tables, each named by a (config, split) pair as on the Hugging Face
Hub: OpenForesight has one config with train/validation/test, OpenForecast one config per task, MIRAI one
config with a test split per month, FutureSim one config with train/validation/test (one file per split),
FutureX one config per tier (a test split each). The same reader serves the working tree and old git
revisions, since it takes any fsspec filesystem (local, or ``dvc.api.DVCFileSystem`` at a revision).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, NamedTuple

import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.io import read_parquet
from almanac.core.layout import (
    event_splits_dir,
    foresight_splits_dir,
    futuresim_questions_dir,
    futurex_tiers_dir,
    mirai_queries_dir,
)
from almanac.core.layout import series_paths as sp
from almanac.core.lazy import lazy_module

if TYPE_CHECKING:
    import fsspec
else:  # ~0.1-0.2 s (with asyncio): read where a report reads its files, not at every importer's start-up
    fsspec = lazy_module("fsspec")

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

Layout = Literal["split/month", "split/config", "month", "split", "config"]


class TableKey(NamedTuple):
    config: str
    split: str


@dataclass(frozen=True)
class DatasetStyle:
    name: str  # as typed on the command line and used under reports/<name>/
    pretty_name: str
    splits_dir: str  # repository-relative folder of the released Parquet files
    # split/month: <split>/<month>.parquet; split/config: <split>/<config>.parquet; month: <month>.parquet;
    # split: <split>.parquet (train, validation, test only); config: <config>.parquet (all in month_split)
    layout: Layout
    id_column: str  # the stable content-hash id of one released item
    month_column: str | None = None  # split/config, split, config: a date column whose month selects rows
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
        DatasetStyle(
            "futuresim",
            "Almanac FutureSim-style date-gated forecasting questions and news corpus",
            futuresim_questions_dir().as_posix(),
            "split",
            "question_id",
            month_column="resolution_date",
        ),
        DatasetStyle(
            "futurex",
            "Almanac FutureX-style tiered forecasting questions",
            futurex_tiers_dir().as_posix(),
            "config",
            "question_id",
            month_column="resolution_date",
            config_order=("level1", "level2", "level3", "level4"),  # the paper's tiers, easiest first
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
        elif style.layout == "split" and len(parts) == 1 and stem in SPLIT_ORDER:
            found.setdefault(TableKey(style.default_config, stem), []).append(path)
        elif style.layout == "config" and len(parts) == 1:
            found.setdefault(TableKey(stem, style.month_split), []).append(path)
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
        table = pa.concat_tables(
            [read_parquet_file(path, filesystem) for path in paths], promote_options="default"
        )
        if style.month_column is not None and months is not None:
            table = filter_months(table, style.month_column, months)
        if table.num_rows:
            tables[key] = table
    return tables


def local_path(path: str, fs: fsspec.AbstractFileSystem) -> str | None:
    """The operating-system path of ``path`` on ``fs`` when ``fs`` is the local disk (also seen through a
    ``DirFileSystem``), else None (a DVC revision, a remote)."""
    from fsspec.implementations.dirfs import DirFileSystem
    from fsspec.implementations.local import LocalFileSystem

    if isinstance(fs, LocalFileSystem):
        return str(fs._strip_protocol(path))
    if isinstance(fs, DirFileSystem) and isinstance(fs.fs, LocalFileSystem):
        return str(fs.fs._strip_protocol(fs._join(path)))
    return None


def read_parquet_file(
    path: str, fs: fsspec.AbstractFileSystem, columns: Sequence[str] | None = None
) -> pa.Table:
    """One Parquet file of ``fs``, whole (or ``columns``).

    A local file is read by its path, so Arrow opens and closes it itself: read through a Python file
    object (fsspec's), Arrow may still hold reader work for that object when the interpreter shuts down
    and abort the process (SIGABRT at exit, apache/arrow#33975). Only other filesystems go through
    fsspec, with ``ParquetFile.read``, which finishes all its work before returning.
    """
    wanted = list(columns) if columns is not None else None
    on_disk = local_path(path, fs)
    if on_disk is not None:
        return read_parquet(on_disk, columns=wanted)
    with fs.open(path, "rb") as handle:
        return pq.ParquetFile(handle).read(columns=wanted, use_threads=False)


def filter_months(table: pa.Table, date_column: str, months: Sequence[str]) -> pa.Table:
    """Rows whose ``date_column`` falls in one of ``months`` (YYYY-MM), in their original order."""
    month_of_row = pc.strftime(table[date_column], format="%Y-%m")
    return table.filter(pc.is_in(month_of_row, value_set=pa.array(list(months), type=pa.string())))
