"""`almanac report --out` replaces only an empty folder or an earlier report, never other files."""

from __future__ import annotations

from pathlib import Path

import pytest

from almanac.cli import main


def test_a_folder_of_other_files_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "chapter1.tex").write_text("my work")
    assert main(["report", "mirai", "all", "--out", str(folder)]) == 1
    assert "not an earlier report" in capsys.readouterr().err
    assert [p.name for p in folder.iterdir()] == ["chapter1.tex"]
    assert (folder / "chapter1.tex").read_text() == "my work"


def test_a_symlink_and_a_file_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    link = tmp_path / "link"
    link.symlink_to(target)
    assert main(["report", "mirai", "all", "--out", str(link)]) == 1
    assert "is a symlink" in capsys.readouterr().err
    assert (target / "keep.txt").read_text() == "keep" and link.is_symlink()
    plain = tmp_path / "notes.txt"
    plain.write_text("notes")
    assert main(["report", "mirai", "all", "--out", str(plain)]) == 1
    assert plain.read_text() == "notes"
