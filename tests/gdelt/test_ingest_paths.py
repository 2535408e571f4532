"""gdelt_ingest's two paths agree (pyarrow fast path, row path), a month is combined, the stage runs."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.io import read_parquet
from almanac.gdelt.ingest import FileResult, FileTask, combine, file_kind, ingest_file
from almanac.gdelt.schema import EXPORT_SCHEMA, MENTIONS_SCHEMA
from tests.gdelt.test_ingest import (
    REALDATA,
    SAMPLE,
    V1_FIELDS,
    ingest,
    needs_realdata,
    reasons,
    v2_fields,
    write_lines,
)

# -- a month: combine and the stage ---------------------------------------------------------------


def test_combine_sorts_by_event_id_and_merges_ledgers(tmp_path: Path) -> None:
    late = write_lines(
        tmp_path / "20250512013000.export.CSV", [v2_fields(GlobalEventID="5", DATEADDED="20250512013000")]
    )
    early = write_lines(
        tmp_path / "20250512011500.export.CSV", [v2_fields(GlobalEventID="9"), v2_fields(GlobalEventID="5")]
    )
    month = combine([ingest(late), ingest(early)], files=2)
    assert month.events.column("source").to_pylist() == [
        "20250512011500.export.CSV:2",  # id 5, added 01:15
        "20250512013000.export.CSV:1",  # id 5 again, added 01:30
        "20250512011500.export.CSV:1",  # id 9
    ]
    assert (month.ledger.items_in, month.ledger.items_out, month.ledger.extra["files"]) == (3, 3, 2)
    assert month.ledger.extra["rows_by_kind"] == {"export": 3}


def test_stage_on_the_bundled_sample_month(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from almanac.gdelt import ingest_stage as gdelt_ingest

    raw = tmp_path / "data/gdelt/raw/2025-05"
    raw.mkdir(parents=True)
    for path in SAMPLE.glob("202505*"):
        shutil.copy(path, raw / path.name)
    (raw / "MANIFEST.json").write_text("{}")
    (tmp_path / "params.yaml").write_text(
        yaml.safe_dump({"months": ["2025-05"], "ray": {"executor": "serial"}})
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["gdelt_ingest", "--month", "2025-05"])
    assert gdelt_ingest.run() == 0
    events = read_parquet(tmp_path / "data/gdelt/events/2025-05.parquet", EXPORT_SCHEMA)
    mentions = read_parquet(tmp_path / "data/gdelt/mentions/2025-05.parquet", MENTIONS_SCHEMA)
    rejects = pq.read_table(tmp_path / "data/gdelt/ingest_rejects/2025-05.parquet")
    metrics = json.loads((tmp_path / "reports/metrics/gdelt_ingest/2025-05.json").read_text())
    assert pq.read_schema(tmp_path / "data/gdelt/events/2025-05.parquet").names == EXPORT_SCHEMA.names
    assert metrics["items_in"] == metrics["items_out"] + metrics["rejected"]
    assert metrics["items_out"] == events.num_rows + mentions.num_rows and metrics["files"] == 16
    # The sample's planted damage (scripts/build_gdelt_sample.py): a 44-field row, NumMentions "1O",
    # a 15-field mentions row, and one URL with a Latin-1 byte that is kept.
    assert metrics["rejected_by_reason"] == {"bad_value": 1, "wrong_field_count": 2}
    assert sorted(rejects.column("reason").to_pylist()) == [
        "bad_value",
        "wrong_field_count",
        "wrong_field_count",
    ]
    details = rejects.column("detail").to_pylist()
    assert any(detail.startswith("NumMentions: '1O' is not an integer") for detail in details)
    assert metrics["invalid_utf8_lines"] == {"export": 1}
    assert sum("\ufffd" in url for url in events.column("SOURCEURL").to_pylist()) == 1
    ids = events.column("GlobalEventID").to_pylist()
    assert ids == sorted(ids) and len(ids) - len(set(ids)) == 1  # the planted re-exported event


# -- the fast path (pyarrow) must agree with the row path (the reference) ---------------------------

TRICKY = ["", "-", "+5", " 5", "5 ", "1_0", "\u0663", "1e5", "1E-3", "1e999", ".5", "5.", "-.5", "nan", "inf",
          "0x10", "99999999999999999999", "9223372036854775807", "-9223372036854775808", "127", "128", "-128",
          "-129", "2147483648", "20250230", "20240229", "00010101", "00000101", "99991231", "2025051",
          "202505120115", "20250512240000", "20250512235959", "0", "1", "2", "\u00e9", "3.14159265358979323846264"]  # fmt: skip
TRICKY_FIELDS = ["GlobalEventID", "Day", "Year", "FractionDate", "Actor1Code", "IsRootEvent", "QuadClass",
                 "GoldsteinScale", "NumMentions", "Actor1Geo_Lat", "Actor1Geo_Type", "DATEADDED"]  # fmt: skip


def assert_paths_agree(path: Path) -> FileResult:
    task = FileTask(str(path), path.name, file_kind(path.name))
    fast, slow = ingest_file(task), ingest_file(task, fast=False)
    assert "files_read_by_rows" not in fast.ledger.extra  # the fast path really ran
    assert fast.events.equals(slow.events) and fast.mentions.equals(slow.mentions)
    assert fast.ledger.rejects == slow.ledger.rejects  # same lines, reasons and details, in line order
    assert (fast.ledger.items_in, fast.ledger.items_out) == (slow.ledger.items_in, slow.ledger.items_out)
    assert fast.ledger.extra == slow.ledger.extra
    return fast


def test_fast_and_row_paths_agree_on_every_tricky_value(tmp_path: Path) -> None:
    lines = [v2_fields(GlobalEventID="1")]
    for field in TRICKY_FIELDS:
        lines += [v2_fields(**{"GlobalEventID": "2", field: value}) for value in TRICKY]
    lines.append(V1_FIELDS)  # a GDELT 1.0 row among 2.0 rows: row path, mapped
    path = write_lines(tmp_path / "20250512011500.export.CSV", lines)
    result = assert_paths_agree(path)
    kept = result.events.num_rows
    assert 1 + len(TRICKY_FIELDS) < kept < len(lines)  # some tricky values are fine, many are not
    assert result.ledger.extra["rows_by_version"]["1.0"] == 1


@needs_realdata
def test_fast_and_row_paths_agree_on_real_and_sample_files(tmp_path: Path) -> None:
    for path in [REALDATA / "20190121220000.export.CSV.zip", REALDATA / "20151027220000.export.CSV"]:
        assert_paths_agree(path)
    for path in sorted(SAMPLE.glob("202505*.zip")):  # includes the planted bad lines and a Latin-1 byte
        assert_paths_agree(path)


def test_non_utf8_bytes_in_a_short_row_fall_back_to_the_row_path(tmp_path: Path) -> None:
    path = tmp_path / "20250512011500.export.CSV"
    first, second = ("\t".join(v2_fields(GlobalEventID=n)).encode() for n in ("1", "2"))
    path.write_bytes(first + b"\n" + b"caf\xe9\tshort row\n" + second + b"\n")
    result = ingest(path)
    assert result.ledger.extra["files_read_by_rows"] == {"export": 1}  # pyarrow cannot report that row
    assert result.events.column("GlobalEventID").to_pylist() == [1, 2]
    assert reasons(result) == [(f"{path.name}:2", "wrong_field_count")]


def test_fast_and_row_paths_agree_on_a_gdelt_1_daily_file(tmp_path: Path) -> None:
    rows = [[str(255244181 + n), *V1_FIELDS[1:]] for n in range(5)]
    rows[2][30] = "high"  # GoldsteinScale: rejected by both paths
    rows.append(v2_fields(GlobalEventID="7"))  # a 2.0 row in a 1.0 file: read as 2.0 by the row path
    path = write_lines(tmp_path / "20130401.export.CSV", rows)
    result = assert_paths_agree(path)
    assert result.ledger.extra["rows_by_version"] == {"1.0": 4, "2.0": 1}
    assert reasons(result) == [(f"{path.name}:3", "bad_value")]
    assert result.events.column("Actor1Geo_ADM2Code").to_pylist() == [None] * 5
    assert result.events.column("ActionGeo_ADM2Code").to_pylist() == [None] * 4 + ["40001"]
    assert result.events.column("ActionGeo_ADM1Code").to_pylist() == ["RS48"] * 5
