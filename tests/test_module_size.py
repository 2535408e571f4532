"""No Python module of the tree is over 400 lines (issue 16): a longer one is split by topic.

Lines are counted as ``wc -l`` counts them (newline characters), over every .py file git tracks or would
track (untracked but not ignored files count too, so a new file fails before it is committed).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 400


def python_files(root: Path) -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "*.py"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return [root / name for name in sorted(set(listed.decode().split("\0"))) if name]


def oversized(paths: list[Path], limit: int = MAX_LINES) -> dict[str, int]:
    """The files of ``paths`` over ``limit`` lines, by name, with their line counts."""
    counts = {path: path.read_bytes().count(b"\n") for path in paths if path.is_file()}
    return {path.as_posix(): count for path, count in counts.items() if count > limit}


def test_no_module_is_over_400_lines() -> None:
    files = python_files(ROOT)
    assert len(files) > 100  # the listing found the tree, not an empty folder
    too_long = oversized(files)
    assert {str(Path(name).relative_to(ROOT)): count for name, count in too_long.items()} == {}


@pytest.mark.parametrize(("lines", "flagged"), [(400, False), (401, True)])
def test_a_module_over_the_limit_is_named_with_its_length(tmp_path: Path, lines: int, flagged: bool) -> None:
    module = tmp_path / "long_module.py"
    module.write_text("x = 1\n" * lines)
    assert oversized([module]) == ({module.as_posix(): lines} if flagged else {})
