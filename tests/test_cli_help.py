"""`almanac --help` speaks to a user: what the command does and examples, nothing about the project's own
tests, benchmarks or import machinery (issue 26)."""

from __future__ import annotations

import contextlib
import io

import pytest

from almanac.cli import main

DEVELOPER_WORDS = ("tests/", "test_", "bench", "pytest", "imports", "sys.modules", "``")


def _help(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 0
    return out.getvalue()


def test_top_level_help_is_for_users() -> None:
    text = _help(["--help"])
    assert not [word for word in DEVELOPER_WORDS if word in text]
    assert "`dvc repro`" in text and "almanac COMMAND --help" in text
    assert "almanac diff HEAD~1 HEAD" in text  # examples, with outputs written into the git-ignored out/
    assert "--out out/openforesight-all" in text
    first = next(line for line in text.splitlines() if line.startswith("Look at"))
    assert len(first) <= 88  # the description is wrapped, not one 300-character line


def test_diff_help_names_the_metrics_switch() -> None:
    text = _help(["diff", "--help"])
    assert "--metrics {summary,all}" in text
    assert not [word for word in DEVELOPER_WORDS if word in text]
