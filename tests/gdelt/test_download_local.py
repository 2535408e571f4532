"""gdelt_download from ``local_dir``: GDELT files as a user has them, MD5-checked only when a list exists."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from almanac.core.io import read_json
from almanac.gdelt.download import download_metrics, download_month, download_run_counts, local_file_slot
from tests.gdelt.test_download import FAST, fixture_zip, md5
from tests.gdelt.test_ingest import REALDATA, V1_FIELDS, needs_realdata

LOCAL = replace(FAST, masterfilelist_url="http://127.0.0.1:9/unreachable")  # must never be fetched


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "20250512011500.export.CSV").write_bytes(b"unzipped 2.0 export\n")
    (folder / "20250512011500.mentions.CSV.zip").write_bytes(fixture_zip("20250512011500.mentions.CSV", 5))
    (folder / "20250513.export.CSV.zip").write_bytes(fixture_zip("20250513.export.CSV", 6))  # 1.0 daily
    (folder / "202505.zip").write_bytes(fixture_zip("202505.csv", 7))  # a 1.0 monthly backfile layout
    (folder / "20250430234500.export.CSV.zip").write_bytes(b"april")  # another month: not taken
    (folder / "2005.zip").write_bytes(b"yearly")  # no month: reported, not taken
    (folder / "notes.txt").write_text("my notes")
    return folder


def test_local_files_are_taken_without_a_masterfilelist(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    config = replace(LOCAL, local_dir=str(folder), masterfilelist_file="")
    out = tmp_path / "raw"
    result = download_month("2025-05", out, config)
    assert [(o.file.name, o.status, o.listed) for o in result.outcomes] == [
        ("202505.zip", "copied", False),
        ("20250512011500.export.CSV", "copied", False),
        ("20250512011500.mentions.CSV.zip", "copied", False),
        ("20250513.export.CSV.zip", "copied", False),
    ]
    month = out / "2025-05"
    assert sorted(p.name for p in month.iterdir()) == sorted(
        [
            "MANIFEST.json",
            "202505.zip",
            "20250512011500.export.CSV",
            "20250512011500.mentions.CSV.zip",
            "20250513.export.CSV.zip",
        ]
    )
    manifest = read_json(month / "MANIFEST.json")
    entry = next(f for f in manifest["files"] if f["file"] == "20250512011500.export.CSV")
    assert entry["md5"] == md5(b"unzipped 2.0 export\n") and entry["listed"] is False
    assert manifest["masterfilelist"] == ""
    assert set(manifest["local_files_not_placed"]) == {"2005.zip", "notes.txt"}
    metrics = download_metrics(result)
    assert (metrics["items_in"], metrics["files_unlisted"]) == (4, 4)
    assert download_run_counts(result)["files_copied"] == 4
    rerun = download_month("2025-05", out, config)
    assert [o.status for o in rerun.outcomes] == ["skipped"] * 4
    # Mentions switched off: the copied mentions file goes, the user's own file stays.
    download_month("2025-05", out, replace(config, include_mentions=False))
    assert not (month / "20250512011500.mentions.CSV.zip").exists()
    assert (folder / "20250512011500.mentions.CSV.zip").exists()


def test_a_present_masterfilelist_checks_the_files_it_lists(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    good = folder / "20250512011500.mentions.CSV.zip"
    bad = folder / "20250512013000.export.CSV.zip"
    bad.write_bytes(fixture_zip(bad.name, 9))
    lines = [
        f"{good.stat().st_size} {md5(good.read_bytes())} http://data.gdeltproject.org/gdeltv2/{good.name}",
        f"{bad.stat().st_size} {'0' * 32} http://data.gdeltproject.org/gdeltv2/{bad.name}",
    ]
    (folder / "masterfilelist.txt").write_text("\n".join(lines) + "\n")  # found in local_dir
    out = tmp_path / "raw"
    result = download_month("2025-05", out, replace(LOCAL, local_dir=str(folder)))
    outcomes = {o.file.name: (o.status, o.reason, o.listed) for o in result.outcomes}
    assert outcomes[good.name] == ("copied", "", True)
    assert outcomes[bad.name] == ("failed", "md5_mismatch", True)
    assert outcomes["20250512011500.export.CSV"] == ("copied", "", False)  # unzipped: the list cannot name it
    assert not (out / "2025-05" / bad.name).exists()
    manifest = read_json(out / "2025-05" / "MANIFEST.json")
    assert manifest["masterfilelist"] == (folder / "masterfilelist.txt").as_posix()
    assert [f["file"] for f in manifest["failed"]] == [bad.name]


def test_local_file_slots() -> None:
    assert local_file_slot("20151027220000.export.CSV") == ("20151027220000", "export")
    assert local_file_slot("20151027220000.MENTIONS.csv.zip") == ("20151027220000", "mentions")
    assert local_file_slot("20130401.export.CSV.zip") == ("20130401", "export")
    assert local_file_slot("201303.zip") == ("201303", "export")
    assert local_file_slot("201313.zip") == "201313 is not a valid date"
    assert "yearly" in str(local_file_slot("1979.zip"))


@needs_realdata
def test_stage_and_ingest_from_a_local_folder_of_real_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.gdelt import download_stage as gdelt_download
    from almanac.gdelt import ingest_stage as gdelt_ingest

    folder = tmp_path / "mine"
    folder.mkdir()
    shutil.copy(REALDATA / "20151027220000.export.CSV", folder)
    # A GDELT 1.0 daily row and a backfile row of the same month, unzipped.
    backfile = [*V1_FIELDS[:56], "20151030"]
    (folder / "20151028.export.CSV").write_text("\t".join(V1_FIELDS) + "\n")
    (folder / "201510.csv").write_text("\t".join(backfile) + "\n")
    params = {
        "months": ["2015-10"],
        "ray": {"executor": "serial"},
        "gdelt_download": {"local_dir": str(folder), "masterfilelist_file": "", "mirror_dir": ""},
    }
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["gdelt_download", "--month", "2015-10"])
    assert gdelt_download.run() == 0
    monkeypatch.setattr(sys, "argv", ["gdelt_ingest", "--month", "2015-10"])
    assert gdelt_ingest.run() == 0
    metrics = json.loads((tmp_path / "reports/metrics/gdelt_ingest/2015-10.json").read_text())
    assert (metrics["items_in"], metrics["items_out"], metrics["rejected"]) == (2118, 2118, 0)
    assert metrics["rows_by_version"] == {"1.0": 2, "2.0": 2116}

    shutil.rmtree(folder)
    monkeypatch.setattr(sys, "argv", ["gdelt_download", "--month", "2015-10"])
    assert gdelt_download.run() == 1
    assert "cannot read the local folder" in capsys.readouterr().err
