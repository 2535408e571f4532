"""GDELT export reading: the csv module (what gdelt_ingest uses) against pyarrow.csv, on the real file.

    .venv/bin/python -m bench.gdelt_ingest [--copies 20] [--out bench/results/gdelt_ingest.json]

Input: ``../shared/realdata/gdelt/20151027220000.export.CSV`` (2,116 real GDELT 2.0 rows) repeated
``--copies`` times, with one row in a hundred cut to 40 fields so that every reader has ragged rows to
deal with. Timed, each best of three in this process on one core:

* ``split_csv_module``: csv.reader (tab, QUOTE_NONE) rows of strings, ragged rows seen with line numbers.
* ``split_pyarrow_csv``: pyarrow.csv into 61 string columns, ragged rows through invalid_row_handler
  (single-threaded, the only mode in which pyarrow reports their line numbers).
* ``typed_pyarrow_csv``: pyarrow.csv straight into typed columns: the fastest reading there is, but one
  bad value fails the whole file, which is why it is not how gdelt_ingest reads.
* ``gdelt_ingest``: almanac.gdelt.ingest.ingest_file as the stage runs it: pyarrow.csv splitting, Arrow
  kernels typing every value they can prove valid, the row path for the rest (here the ragged rows).
* ``gdelt_ingest_row_path``: the same with ``fast=False``: the csv-module-style row path alone
  (str.split per line, a Python parser per field), the reference the fast path is tested against.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from almanac.core.io import write_json
from almanac.gdelt.ingest import FileTask, ingest_file
from almanac.gdelt.schema import EXPORT_FIELDS_V2, EXPORT_SCHEMA

REAL = Path(__file__).resolve().parents[2] / "shared/realdata/gdelt/20151027220000.export.CSV"


def best_of(runs: int, work: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(runs):
        started = time.perf_counter()
        result = work()
        best = min(best, time.perf_counter() - started)
    return best, result


def make_input(path: Path, copies: int) -> tuple[int, int]:
    lines = REAL.read_text(encoding="utf-8").splitlines()
    out, ragged = [], 0
    for copy in range(copies):
        for number, line in enumerate(lines):
            if (copy * len(lines) + number) % 100 == 99:
                line = "\t".join(line.split("\t")[:40])
                ragged += 1
            out.append(line)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return len(out), ragged


def split_csv_module(path: Path) -> tuple[int, int]:
    good = bad = 0
    with open(path, "rb") as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", newline="")
        for fields in csv.reader(text, delimiter="\t", quoting=csv.QUOTE_NONE):
            if len(fields) == 61:
                good += 1
            else:
                bad += 1
    return good, bad


def split_pyarrow_csv(path: Path) -> tuple[int, int]:
    ragged: list[int | None] = []

    def handler(row: Any) -> str:
        ragged.append(row.number)
        return "skip"

    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=list(EXPORT_FIELDS_V2), use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, invalid_row_handler=handler),
        convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(EXPORT_FIELDS_V2, pa.string())),
    )
    if any(number is None for number in ragged):
        raise AssertionError("pyarrow did not report a ragged row's line number")
    return table.num_rows, len(ragged)


def typed_pyarrow_csv(path: Path) -> tuple[int, int]:
    types = {field.name: field.type for field in EXPORT_SCHEMA if field.name in EXPORT_FIELDS_V2}
    types["Day"] = pa.string()  # YYYYMMDD and YYYYMMDDHHMMSS are not formats pyarrow infers
    types["DATEADDED"] = pa.string()
    skipped: list[Any] = []

    def skip(row: Any) -> str:
        skipped.append(row)
        return "skip"

    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=list(EXPORT_FIELDS_V2), use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, invalid_row_handler=skip),
        convert_options=pacsv.ConvertOptions(
            column_types=types,
            null_values=[""],
            strings_can_be_null=True,
            true_values=["1"],
            false_values=["0"],
        ),
    )
    return table.num_rows, len(skipped)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=20, help="times the real file is repeated")
    parser.add_argument("--out", default="bench/results/gdelt_ingest.json")
    args = parser.parse_args()
    if not REAL.exists():  # as the tests that read it: a clone without ../shared skips, in one line
        print(f"bench.gdelt_ingest: skipped: the real GDELT sample {REAL} is not present in this checkout")
        return
    seconds: dict[str, float] = {}
    counts: dict[str, tuple[int, int]] = {}
    with TemporaryDirectory() as scratch:
        path = Path(scratch) / "20151027220000.export.CSV"
        rows, ragged = make_input(path, args.copies)
        for name, reader in (
            ("split_csv_module", split_csv_module),
            ("split_pyarrow_csv", split_pyarrow_csv),
            ("typed_pyarrow_csv", typed_pyarrow_csv),
        ):
            seconds[name], counts[name] = best_of(3, lambda reader=reader: reader(path))  # type: ignore[misc]
        task = FileTask(str(path), path.name, "export")
        seconds["gdelt_ingest"], fast = best_of(3, lambda: ingest_file(task))
        seconds["gdelt_ingest_row_path"], slow = best_of(3, lambda: ingest_file(task, fast=False))
        if not fast.events.equals(slow.events):
            raise AssertionError("the fast path and the row path disagree")
        counts["gdelt_ingest"] = (fast.events.num_rows, len(fast.ledger.rejects))
        counts["gdelt_ingest_row_path"] = (slow.events.num_rows, len(slow.ledger.rejects))
    for name, (good, bad) in counts.items():
        if (good, bad) != (rows - ragged, ragged):
            raise AssertionError(
                f"{name} read {good} rows and {bad} ragged, expected {rows - ragged} and {ragged}"
            )
    report = {
        "input": {"rows": rows, "ragged_rows": ragged, "copies_of": REAL.name},
        "seconds": {name: round(value, 4) for name, value in seconds.items()},
        "rows_per_second": {name: round(rows / value) for name, value in seconds.items()},
        "ratios": {
            "pyarrow_split_vs_csv_split": round(
                seconds["split_csv_module"] / seconds["split_pyarrow_csv"], 2
            ),
            "typed_pyarrow_vs_csv_split": round(
                seconds["split_csv_module"] / seconds["typed_pyarrow_csv"], 2
            ),
            "gdelt_ingest_fast_vs_row_path": round(
                seconds["gdelt_ingest_row_path"] / seconds["gdelt_ingest"], 2
            ),
            "gdelt_ingest_seconds_vs_csv_split": round(
                seconds["gdelt_ingest"] / seconds["split_csv_module"], 2
            ),
        },
    }
    write_json(report, args.out)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
