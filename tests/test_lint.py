"""mypy over the project, as `make lint` runs it, inside the test run rather than before it.

`make test` (what CI runs) used to run `make lint` first: on 2 cores a cold mypy is a minute or two of wall
time before the first test. As a test it runs while the shared sample build does (tests/support/
sample_build.py), on the core the serial build leaves free, so it costs the run next to nothing; a type
error still fails `make test`. ruff stays in the Makefile ahead of the tests (seconds, fails first).
"""

from __future__ import annotations

import subprocess

import pytest

from tests.support.project import BIN, ROOT, env

pytestmark = pytest.mark.slow


def test_mypy_is_clean() -> None:
    result = subprocess.run(
        [str(BIN / "mypy")], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
