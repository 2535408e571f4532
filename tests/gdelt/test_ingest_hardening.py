"""gdelt_ingest on inputs as users have them: negative counts, zip bombs, unzipped and GDELT 1.0 files."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from almanac.gdelt.ingest import FileTask, discover_files, file_kind, ingest_file
from almanac.gdelt.reader import FileRejected, split_lines
from tests.gdelt.test_ingest import (
    MENTION,
    REALDATA,
    V1_FIELDS,
    ingest,
    needs_realdata,
    reasons,
    v2_fields,
    write_lines,
    zip_of,
)
from tests.gdelt.test_ingest_paths import assert_paths_agree

# -- negative counts ----------------------------------------------------------------------------------


def test_negative_counts_are_bad_values_naming_the_field(tmp_path: Path) -> None:
    lines = [
        v2_fields(GlobalEventID="1"),
        v2_fields(GlobalEventID="2", NumMentions="-3"),
        v2_fields(GlobalEventID="3", NumSources="-1"),
        v2_fields(GlobalEventID="4", NumArticles="-7"),
        v2_fields(GlobalEventID="5", NumMentions="0", GoldsteinScale="-10", AvgTone="-4.5"),  # fine
        v2_fields(GlobalEventID="6", NumMentions="-0"),  # minus zero is zero
    ]
    path = write_lines(tmp_path / "20250512011500.export.CSV", lines)
    result = assert_paths_agree(path)  # the fast path must not prove what the row path rejects
    assert result.events.column("GlobalEventID").to_pylist() == [1, 5, 6]
    assert reasons(result) == [(f"{path.name}:{n}", "bad_value") for n in (2, 3, 4)]
    details = [r.detail for r in sorted(result.ledger.rejects, key=lambda r: r.source)]
    assert details[0].startswith("NumMentions: -3 is negative")
    assert details[1].startswith("NumSources: -1 is negative")
    assert details[2].startswith("NumArticles: -7 is negative")
    assert (result.ledger.items_in, result.ledger.items_out) == (6, 3)


def test_negative_mention_doc_length_is_rejected_but_offset_minus_one_is_kept(tmp_path: Path) -> None:
    bad = list(MENTION)
    bad[12] = "-4521"  # MentionDocLen
    path = tmp_path / "20250512011500.mentions.CSV"
    path.write_bytes(("\t".join(MENTION) + "\n" + "\t".join(bad) + "\n").encode())
    result = assert_paths_agree(path)
    assert result.mentions.column("Actor2CharOffset").to_pylist() == [-1]  # -1: actor not in the text
    [reject] = result.ledger.rejects
    assert (reject.reason, reject.source) == ("bad_value", f"{path.name}:2")
    assert reject.detail.startswith("MentionDocLen: -4521 is negative")


# -- size caps ----------------------------------------------------------------------------------------


def _bomb(size: int) -> bytes:
    """A zip whose one member inflates to ``size`` bytes of valid-looking rows (deflate: ~1000:1)."""
    row = ("\t".join(v2_fields()) + "\n").encode()
    out = io.BytesIO()
    with (
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("20250512011500.export.CSV", "w") as member,
    ):
        block = row * (1_000_000 // len(row))
        written = 0
        while written < size:
            member.write(block)
            written += len(block)
    return out.getvalue()


def test_zip_bomb_is_rejected_without_being_inflated(tmp_path: Path) -> None:
    path = tmp_path / "20250512011500.export.CSV.zip"
    path.write_bytes(_bomb(300_000_000))
    assert path.stat().st_size < 2_000_000  # under 2 MB on disk, 300 MB inflated
    tracemalloc.start()
    try:
        result = ingest_file(FileTask(str(path), path.name, "export", max_member_bytes=10_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20_000_000  # nowhere near the 300 MB it inflates to
    [reject] = result.ledger.rejects
    assert (reject.reason, reject.source) == ("member_too_large", path.name)
    assert "inflates to" in reject.detail and "max_member_bytes 10000000" in reject.detail
    assert (result.ledger.items_in, result.ledger.items_out, result.events.num_rows) == (1, 0, 0)


def test_capped_read_stops_at_the_cap_whatever_the_directory_says() -> None:
    class Endless(io.RawIOBase):
        """A member that never ends (a zip directory can claim any size)."""

        served = 0

        def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
            buffer[:] = b"x" * len(buffer)
            self.served += len(buffer)
            return len(buffer)

        def readable(self) -> bool:
            return True

    stream = Endless()
    with pytest.raises(FileRejected) as caught:
        list(split_lines(stream, 3_000_000, 1000, "endless.CSV"))  # type: ignore[arg-type]
    assert caught.value.reason == "member_too_large"
    assert stream.served == 3_000_001  # read up to one byte past the cap, then stopped
    assert list(split_lines(io.BytesIO(b"abc"), 3, 10, "small")) == [(1, b"abc")]  # the cap is fine


def test_plain_csv_over_the_cap_is_one_file_reject(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "20250512011500.export.CSV", [v2_fields()] * 50)
    size = path.stat().st_size
    result = ingest_file(FileTask(str(path), path.name, "export", max_member_bytes=size - 1))
    assert [(r.reason, r.source) for r in result.ledger.rejects] == [("member_too_large", path.name)]
    fits = ingest_file(FileTask(str(path), path.name, "export", max_member_bytes=size))
    assert fits.events.num_rows == 50


def test_discover_files_passes_the_cap(tmp_path: Path) -> None:
    (tmp_path / "20250512011500.export.CSV.zip").write_bytes(zip_of("x.CSV", b"\n"))
    [task] = discover_files(tmp_path, max_member_bytes=1234)
    assert task.max_member_bytes == 1234


# -- GDELT as users have it: unzipped, GDELT 1.0 daily and backfile ----------------------------------


@needs_realdata
def test_real_unzipped_export_reads_like_its_zip(tmp_path: Path) -> None:
    plain = REALDATA / "20151027220000.export.CSV"
    zipped = tmp_path / "20151027220000.export.CSV.zip"
    zipped.write_bytes(zip_of(plain.name, plain.read_bytes()))
    a, b = ingest(plain), ingest(zipped)
    assert a.events.num_rows == 2116 and a.ledger.rejects == []
    assert a.events.drop_columns(["source"]).equals(b.events.drop_columns(["source"]))


def test_backfile_names_are_exports() -> None:
    assert [file_kind(n) for n in ("1979.zip", "200601.zip", "20130401.export.CSV.zip", "201301.csv")] == [
        "export"
    ] * 4
    assert [file_kind(n) for n in ("GDELT.MASTERREDUCEDV2.1979-2013.zip", "1979.txt", "19790.zip")] == [
        "unknown"
    ] * 3


def test_gdelt_1_backfile_zip_maps_57_fields_on_both_paths(tmp_path: Path) -> None:
    # A March 2013 event as a backfile row: DATEADDED is the backfile's day, after the event's Day.
    rows = [
        [str(100 + n), "20130315", "201303", "2013", "2013.2027", *V1_FIELDS[5:56], "20130402"]
        for n in range(3)
    ]
    rows[1][31] = "-2"  # NumMentions
    assert len(rows[0]) == 57
    text = ("\n".join("\t".join(r) for r in rows) + "\n").encode()
    path = tmp_path / "201303.zip"
    path.write_bytes(zip_of("201303.csv", text))
    result = assert_paths_agree(path)
    assert result.events.column("GlobalEventID").to_pylist() == [100, 102]
    first = result.events.to_pylist()[0]
    assert (first["Day"], first["DATEADDED"]) == (date(2013, 3, 15), datetime(2013, 4, 2, tzinfo=UTC))
    assert first["SOURCEURL"] is None and first["ActionGeo_ADM2Code"] is None
    assert (first["ActionGeo_FeatureID"], first["gdelt_version"]) == ("-2960561", "1.0")
    assert reasons(result) == [(f"{path.name}:2", "bad_value")]
    assert result.ledger.extra["rows_by_version"] == {"1.0": 2}
