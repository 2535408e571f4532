"""gdelt_ingest reads a file as a stream: a line cap, chunked typing, one line's fault is its reject."""

from __future__ import annotations

import tracemalloc
import zipfile
from pathlib import Path

import pytest

from almanac.gdelt.ingest import FileTask, ingest_file
from tests.gdelt.test_ingest import REALDATA, needs_realdata, reasons, v2_fields


def _row(event_id: int) -> bytes:
    return "\t".join(v2_fields(GlobalEventID=str(event_id))).encode()


def test_a_line_over_the_cap_is_rejected_with_its_size_and_the_rest_kept(tmp_path: Path) -> None:
    long_line = b"x" * 5_000
    data = b"\r\n".join([_row(1), long_line, _row(3), b"", _row(5)]) + b"\r\n"
    path = tmp_path / "20250512011500.export.CSV"
    path.write_bytes(data)
    result = ingest_file(FileTask(str(path), path.name, "export", max_line_bytes=4_999))
    assert result.events.column("GlobalEventID").to_pylist() == [1, 3, 5]
    assert result.events.column("source").to_pylist() == [f"{path.name}:{n}" for n in (1, 3, 5)]
    [reject] = result.ledger.rejects
    assert (reject.reason, reject.source) == ("line_too_long", f"{path.name}:2")
    assert reject.detail == "5000 bytes > max_line_bytes 4999"
    assert (result.ledger.items_in, result.ledger.items_out) == (4, 3)
    fits = ingest_file(FileTask(str(path), path.name, "export", max_line_bytes=5_000))
    assert reasons(fits) == [(f"{path.name}:2", "wrong_field_count")]  # at the cap it is read as a row


def test_a_zipped_line_bomb_is_never_held(tmp_path: Path) -> None:
    path = tmp_path / "20250512011500.export.CSV.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, archive.open("x.CSV", "w") as member:
        member.write(_row(1) + b"\n")
        for _ in range(30):
            member.write(b"y" * 1_000_000)
        member.write(b"\n" + _row(3) + b"\n")
    assert path.stat().st_size < 100_000
    tracemalloc.start()
    try:
        result = ingest_file(FileTask(str(path), path.name, "export", max_line_bytes=1_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000  # the 30 MB line is counted, never held
    assert result.events.column("GlobalEventID").to_pylist() == [1, 3]
    assert [(r.reason, r.detail) for r in result.ledger.rejects] == [
        ("line_too_long", "30000000 bytes > max_line_bytes 1000000")
    ]


def test_small_chunks_give_the_same_rows_and_rejects(tmp_path: Path) -> None:
    lines = [_row(n) for n in range(1, 41)]
    lines[6] = "\t".join(v2_fields(GlobalEventID="7", NumMentions="-3")).encode()  # bad_value
    lines[20] = b"short\trow"  # wrong_field_count
    lines[33] = "\t".join(v2_fields(GlobalEventID="34", Actor1Name="caf\xe9")).encode("latin-1")  # not UTF-8
    path = tmp_path / "20250512011500.export.CSV"
    path.write_bytes(b"\n".join(lines) + b"\n")
    whole = ingest_file(FileTask(str(path), path.name, "export"))
    chunked = ingest_file(FileTask(str(path), path.name, "export", chunk_bytes=3_000))
    assert whole.events.num_rows == 38 and whole.events.equals(chunked.events)
    assert (
        reasons(whole)
        == reasons(chunked)
        == [(f"{path.name}:21", "wrong_field_count"), (f"{path.name}:7", "bad_value")]
    )
    assert whole.ledger.extra == chunked.ledger.extra


@needs_realdata
def test_real_export_in_small_chunks_reads_as_whole() -> None:
    path = REALDATA / "20151027220000.export.CSV"
    whole = ingest_file(FileTask(str(path), path.name, "export"))
    chunked = ingest_file(FileTask(str(path), path.name, "export", chunk_bytes=20_000))
    assert whole.events.num_rows == 2116 and whole.events.equals(chunked.events)


def test_whatever_one_line_raises_is_that_lines_reject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import almanac.gdelt.ingest as gdelt_ingest

    real = gdelt_ingest.parse_row  # type: ignore[attr-defined]

    def fragile(fields, kind):  # type: ignore[no-untyped-def]
        if fields[0] == "2":
            raise OverflowError("date value out of range")
        return real(fields, kind)

    monkeypatch.setattr(gdelt_ingest, "parse_row", fragile)
    path = tmp_path / "20250512011500.export.CSV"
    path.write_bytes(b"\n".join(_row(n) for n in (1, 2, 3)) + b"\n")
    result = ingest_file(FileTask(str(path), path.name, "export"), fast=False)
    assert result.events.column("GlobalEventID").to_pylist() == [1, 3]
    [reject] = result.ledger.rejects
    assert (reject.reason, reject.source) == ("unreadable_line", f"{path.name}:2")
    assert reject.detail.startswith("OverflowError: date value out of range | line: '2\\t")


def test_an_unforeseen_fast_path_error_sends_the_chunk_to_the_row_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import almanac.gdelt.ingest as gdelt_ingest

    def broken(*_args: object) -> None:
        raise TypeError("an Arrow error nobody foresaw")

    monkeypatch.setattr(gdelt_ingest, "read_fast", broken)
    path = tmp_path / "20250512011500.export.CSV"
    path.write_bytes(b"\n".join(_row(n) for n in (1, 2, 3)) + b"\n")
    result = ingest_file(FileTask(str(path), path.name, "export"))
    assert result.events.column("GlobalEventID").to_pylist() == [1, 2, 3]
    assert result.ledger.extra["files_read_by_rows"] == {"export": 1}
