"""Progress bars: drawn on a terminal, never into captured output, and off with ``progress: false``."""

from __future__ import annotations

import pytest

from almanac.core import progress as progress_module
from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.progress import configure_progress, progress
from almanac.core.rejects import StageLedger
from almanac.core.step import apply_filter
from tests.support.terminal import fake_terminal


@pytest.fixture(autouse=True)
def default_param(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_module, "_allowed_by_params", True)  # each test starts from the default


def test_no_bar_text_when_stderr_is_not_a_tty(capsys: pytest.CaptureFixture[str]) -> None:
    configure_progress({})  # default: bars when stderr is a TTY; pytest's captured stderr is not one
    assert list(progress(range(3), desc="demo", unit="record")) == [0, 1, 2]
    by_hand = progress(desc="by hand", total=2)
    by_hand.update(2)
    by_hand.close()
    assert capsys.readouterr().err == ""


def test_bar_on_a_terminal_shows_description_count_and_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = fake_terminal(monkeypatch)
    assert list(progress(range(3), desc="demo", unit="record")) == [0, 1, 2]
    drawn = terminal.getvalue()
    # The first draw: nothing done of 3, elapsed<remaining (the ETA, unknown yet), rate per record.
    assert "demo:   0%|" in drawn and "0/3 [00:00<?, ?record/s]" in drawn
    assert drawn.endswith("\r")  # leave=False: the bar is wiped when done, so the summary line stands alone


def test_progress_false_in_params_turns_bars_off_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = fake_terminal(monkeypatch)
    configure_progress({"progress": False})
    assert list(progress(range(3), desc="demo")) == [0, 1, 2]
    assert terminal.getvalue() == ""
    configure_progress({"progress": True})
    list(progress(range(3), desc="demo"))
    assert "0/3" in terminal.getvalue()


def test_progress_param_must_be_true_or_false() -> None:
    with pytest.raises(ValueError, match="progress must be true or false, got 'yes'"):
        configure_progress({"progress": "yes"})


def test_keep_or_reject_step_and_parallel_map_draw_bars(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = fake_terminal(monkeypatch)
    ledger = StageLedger("demo_stage")
    kept = apply_filter([1, 2, 3, 4], lambda n: None, ledger, str, str)
    assert kept == [1, 2, 3, 4]
    assert "demo_stage:   0%|" in terminal.getvalue() and "0/4" in terminal.getvalue()
    squares = parallel_map(_square, [1, 2], RayConfig(executor="serial"), desc="squares", unit="file")
    assert squares == [1, 4]
    assert "squares:   0%|" in terminal.getvalue() and "?file/s" in terminal.getvalue()


def _square(n: int) -> int:
    return n * n
