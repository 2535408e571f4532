"""A stand-in terminal for progress-bar tests: stderr that says it is a TTY and keeps what was written."""

from __future__ import annotations

import io
import sys

import pytest

from almanac.core import progress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def fake_terminal(monkeypatch: pytest.MonkeyPatch) -> FakeTerminal:
    """Make ``sys.stderr`` a fake TTY for this test, with the ``progress`` param at its default (true)."""
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setattr(progress, "_allowed_by_params", True)
    return terminal
