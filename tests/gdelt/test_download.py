"""gdelt_download against a loopback HTTP server and from a local mirror: MD5 checks, retries, resume, skip."""

from __future__ import annotations

import hashlib
import io
import json
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from almanac.core.io import read_json
from almanac.gdelt.download import GdeltDownloadConfig, download_metrics, download_month, download_run_counts
from tests.support.downloads import SleepRecorder, put, server, sleep
from tests.support.http_fixture_server import FixtureServer

__all__ = ["server", "sleep"]  # pytest fixtures used by name

A_EXPORT = "20250512011500.export.CSV.zip"
A_MENTIONS = "20250512011500.mentions.CSV.zip"
B_EXPORT = "20250512013000.export.CSV.zip"
NAMES = (A_EXPORT, A_MENTIONS, B_EXPORT)
FAST = GdeltDownloadConfig(retries=2, timeout_s=5.0, backoff_initial_s=0.5, backoff_max_s=1.0)


def fixture_zip(name: str, rows: int) -> bytes:
    """A small zip like GDELT's, with enough incompressible-ish text to cut in the middle."""
    body = "".join(f"{1000 + i}\t20250512\trow {i} {hashlib.sha256(name.encode() + bytes([i])).hexdigest()}\n"
                   for i in range(rows))  # fmt: skip
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name.removesuffix(".zip"), body)
    return out.getvalue()


def md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def publish(server: FixtureServer, wrong_md5: str | None = None) -> dict[str, bytes]:
    """Serve three May files, a GKG file and an April file, plus the masterfilelist naming them."""
    files = {name: fixture_zip(name, 40 + index) for index, name in enumerate(NAMES)}
    others = {"20250512011500.gkg.csv.zip": b"gkg", "20250430234500.export.CSV.zip": b"april"}
    lines = []
    for name, data in {**files, **others}.items():
        put(server, f"/gdeltv2/{name}", data)
        listed_md5 = "0" * 32 if name == wrong_md5 else md5(data)
        lines.append(f"{len(data)} {listed_md5} {server.url(f'/gdeltv2/{name}')}")
    put(server, "/gdeltv2/masterfilelist.txt", ("\n".join(lines) + "\n").encode())
    return files


def config_for(server: FixtureServer, **changes: object) -> GdeltDownloadConfig:
    return replace(FAST, masterfilelist_url=server.url("/gdeltv2/masterfilelist.txt"), **changes)  # type: ignore[arg-type]


def zip_gets(server: FixtureServer) -> dict[str, int]:
    return {name: server.count(f"/gdeltv2/{name}") for name in NAMES}


def test_month_download_verifies_and_records_every_file(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    files = publish(server)
    result = download_month("2025-05", tmp_path, config_for(server), sleep=sleep)
    assert [(o.file.name, o.status) for o in result.outcomes] == [
        (A_EXPORT, "fetched"),
        (A_MENTIONS, "fetched"),
        (B_EXPORT, "fetched"),
    ]
    for name, data in files.items():
        assert (tmp_path / "2025-05" / name).read_bytes() == data
    assert sorted(p.name for p in (tmp_path / "2025-05").iterdir()) == sorted([*NAMES, "MANIFEST.json"])
    manifest = read_json(tmp_path / "2025-05" / "MANIFEST.json")
    assert manifest["failed"] == [] and manifest["masterfilelist_problems"] == []
    assert manifest["files"] == [
        {"file": n, "kind": n.split(".")[1], "size": len(files[n]), "md5": md5(files[n]),
         "url": server.url(f"/gdeltv2/{n}")}
        for n in sorted(NAMES)
    ]  # fmt: skip
    assert server.count("/gdeltv2/20250512011500.gkg.csv.zip") == 0
    assert server.count("/gdeltv2/20250430234500.export.CSV.zip") == 0
    assert sleep.calls == []


def test_wrong_md5_fails_that_file_only_after_retries(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    publish(server, wrong_md5=A_MENTIONS)
    result = download_month("2025-05", tmp_path, config_for(server), sleep=sleep)
    assert [(o.file.name, o.status, o.reason) for o in result.outcomes] == [
        (A_EXPORT, "fetched", ""),
        (A_MENTIONS, "failed", "md5_mismatch"),
        (B_EXPORT, "fetched", ""),
    ]
    assert zip_gets(server) == {A_EXPORT: 1, A_MENTIONS: 3, B_EXPORT: 1}  # 1 + retries=2
    assert len(sleep.calls) == 2
    month_dir = tmp_path / "2025-05"
    assert not (month_dir / A_MENTIONS).exists() and not (month_dir / (A_MENTIONS + ".part")).exists()
    manifest = read_json(month_dir / "MANIFEST.json")
    assert [entry["file"] for entry in manifest["files"]] == [A_EXPORT, B_EXPORT]
    [failed] = manifest["failed"]
    assert failed["file"] == A_MENTIONS and failed["reason"] == "md5_mismatch"
    assert "gave up after 3 attempts" in failed["detail"] and "!= listed 000" in failed["detail"]
    metrics = download_metrics(result)
    assert (metrics["items_in"], metrics["items_out"], metrics["rejected"]) == (3, 2, 1)
    assert metrics["rejected_by_reason"] == {"md5_mismatch": 1}
    assert [f["file"] for f in metrics["failed"]] == [A_MENTIONS]


def test_connection_cut_mid_file_resumes_from_the_received_bytes(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    files = publish(server)
    server.cut_after(f"/gdeltv2/{A_EXPORT}", 1000)
    result = download_month("2025-05", tmp_path, config_for(server), sleep=sleep)
    first = result.outcomes[0]
    assert (first.status, first.attempts, first.resumed) == ("fetched", 2, True)
    assert [r.range for r in server.requests(f"/gdeltv2/{A_EXPORT}")] == [None, "bytes=1000-"]
    assert (tmp_path / "2025-05" / A_EXPORT).read_bytes() == files[A_EXPORT]
    assert download_run_counts(result)["files_resumed"] == 1
    assert "files_resumed" not in download_metrics(result)  # how this run got the file is not tracked


def test_short_body_is_fetched_again(server: FixtureServer, tmp_path: Path, sleep: SleepRecorder) -> None:
    files = publish(server)
    server.serve_body(f"/gdeltv2/{B_EXPORT}", files[B_EXPORT][:-40])  # a complete response, too short
    result = download_month("2025-05", tmp_path, config_for(server), sleep=sleep)
    assert [o.status for o in result.outcomes] == ["fetched"] * 3
    assert zip_gets(server)[B_EXPORT] == 2 and len(sleep.calls) == 1
    assert (tmp_path / "2025-05" / B_EXPORT).read_bytes() == files[B_EXPORT]


def test_rerun_skips_verified_files_without_a_request_and_refetches_damaged_ones(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    files = publish(server)
    config = config_for(server)
    download_month("2025-05", tmp_path, config, sleep=sleep)
    manifest = (tmp_path / "2025-05" / "MANIFEST.json").read_bytes()
    server.clear_log()
    rerun = download_month("2025-05", tmp_path, config, sleep=sleep)
    assert [o.status for o in rerun.outcomes] == ["skipped"] * 3
    assert zip_gets(server) == dict.fromkeys(NAMES, 0)
    assert (tmp_path / "2025-05" / "MANIFEST.json").read_bytes() == manifest  # byte-identical

    damaged = tmp_path / "2025-05" / A_MENTIONS
    data = bytearray(files[A_MENTIONS])
    data[50] ^= 0xFF  # same size, other bytes: only the MD5 can tell
    damaged.write_bytes(bytes(data))
    server.clear_log()
    again = download_month("2025-05", tmp_path, config, sleep=sleep)
    assert [o.status for o in again.outcomes] == ["skipped", "fetched", "skipped"]
    assert zip_gets(server) == {A_EXPORT: 0, A_MENTIONS: 1, B_EXPORT: 0}
    assert damaged.read_bytes() == files[A_MENTIONS]

    server.clear_log()  # mentions switched off: the mentions zip is removed, nothing is fetched
    fewer = download_month("2025-05", tmp_path, replace(config, include_mentions=False), sleep=sleep)
    assert fewer.removed_stale == [A_MENTIONS] and not damaged.exists()
    assert [e["file"] for e in read_json(tmp_path / "2025-05" / "MANIFEST.json")["files"]] == [
        A_EXPORT,
        B_EXPORT,
    ]
    assert zip_gets(server) == dict.fromkeys(NAMES, 0)


def mirror(
    tmp_path: Path, corrupt: str | None = None, missing: str | None = None
) -> tuple[Path, dict[str, bytes]]:
    """A local mirror folder and a masterfilelist file naming its files (no server at all)."""
    files = {name: fixture_zip(name, 30 + index) for index, name in enumerate(NAMES)}
    folder = tmp_path / "mirror"
    folder.mkdir()
    lines = ["5 " + "1" * 32 + " http://data.gdeltproject.org/gdeltv2/20250512011500.gkg.csv.zip"]
    for name, data in files.items():
        lines.append(f"{len(data)} {md5(data)} http://data.gdeltproject.org/gdeltv2/{name}")
        if name == corrupt:
            data = data[:-1] + bytes([data[-1] ^ 1])
        if name != missing:
            (folder / name).write_bytes(data)
    lines.append("http://data.gdeltproject.org/gdeltv2/20250512014500.export.CSV.zip")  # garbled, May
    (tmp_path / "masterfilelist.txt").write_text("\n".join(lines) + "\n")
    return folder, files


def test_mirror_mode_copies_verifies_and_skips(tmp_path: Path) -> None:
    folder, files = mirror(tmp_path, corrupt=A_MENTIONS, missing=B_EXPORT)
    config = replace(FAST, masterfilelist_file=str(tmp_path / "masterfilelist.txt"), mirror_dir=str(folder))
    out = tmp_path / "raw"
    result = download_month("2025-05", out, config)  # any HTTP request would fail: no server
    assert [(o.file.name, o.status, o.reason) for o in result.outcomes] == [
        (A_EXPORT, "copied", ""),
        (A_MENTIONS, "failed", "md5_mismatch"),
        (B_EXPORT, "failed", "missing_from_mirror"),
    ]
    assert (out / "2025-05" / A_EXPORT).read_bytes() == files[A_EXPORT]
    assert sorted(p.name for p in (out / "2025-05").iterdir()) == [A_EXPORT, "MANIFEST.json"]
    manifest = read_json(out / "2025-05" / "MANIFEST.json")
    assert [f["reason"] for f in manifest["failed"]] == ["md5_mismatch", "missing_from_mirror"]
    assert [p["line"] for p in manifest["masterfilelist_problems"]] == [5]
    assert manifest["masterfilelist"] == str(tmp_path / "masterfilelist.txt")

    (folder / A_MENTIONS).write_bytes(files[A_MENTIONS])  # the mirror is repaired
    (folder / B_EXPORT).write_bytes(files[B_EXPORT])
    rerun = download_month("2025-05", out, config)
    assert [o.status for o in rerun.outcomes] == ["skipped", "copied", "copied"]
    assert read_json(out / "2025-05" / "MANIFEST.json")["failed"] == []


def test_stage_exits_non_zero_naming_the_failed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.gdelt import download_stage as gdelt_download

    folder, _ = mirror(tmp_path, corrupt=B_EXPORT)
    section = {"masterfilelist_file": str(tmp_path / "masterfilelist.txt"), "mirror_dir": str(folder)}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump({"months": ["2025-05"], "gdelt_download": section}))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["gdelt_download", "--month", "2025-05"])
    assert gdelt_download.run() == 1
    assert f"FAILED {B_EXPORT}: md5_mismatch" in capsys.readouterr().err
    metrics = json.loads((tmp_path / "reports/metrics/gdelt_download/2025-05.json").read_text())
    run_record = json.loads((tmp_path / "metrics/timings/gdelt_download@2025-05.json").read_text())
    assert metrics["failed"][0]["file"] == B_EXPORT and run_record["run"]["files_copied"] == 2
    assert (tmp_path / "data/gdelt/raw/2025-05" / A_EXPORT).exists()
    assert not (tmp_path / "data/gdelt/raw/2025-05" / B_EXPORT).exists()
