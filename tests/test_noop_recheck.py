"""The no-op stamp after a build (almanac.core.noop_recheck), against real DVC in a scratch project: the first
`make repro` after a build that ran stages takes the fast path; an edit after the build, or during the
re-check, takes DVC's path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from almanac.core import noop_stamp
from tests.support.repro_runs import ran, repro_here
from tests.test_repro_launcher import FAST_LINE, FAST_PATH_STAGES, _dvc_project, _launch


def _fresh_project(root: Path) -> Path:
    _dvc_project(root, FAST_PATH_STAGES)
    (root / "params.yaml").write_text("factor: 1\n", encoding="utf-8")
    (root / "in.txt").write_text("one\n", encoding="utf-8")
    (root / "indir").mkdir()
    (root / "indir" / "x.txt").write_text("x\n", encoding="utf-8")
    return root


@pytest.mark.slow
def test_the_first_no_op_after_a_build_takes_the_fast_path(tmp_path: Path) -> None:
    """A build that ran stages re-checks with DVC and stamps: the very next `make repro` is one line without
    DVC; an edit after the build (a dep here) still takes DVC's path, which reruns what it must."""
    project = _fresh_project(tmp_path)
    printed = repro_here(project)
    assert ran(printed) == ["first", "second"] and "2 stages ran" in printed
    assert (project / noop_stamp.STAMP).is_file()
    printed, imported = _launch(project)
    assert not imported and FAST_LINE in printed and "2 stages up to date" in printed
    assert len(printed.splitlines()) == 1
    (project / "indir" / "y.txt").write_text("y\n", encoding="utf-8")  # a file changed after the build
    printed = repro_here(project)
    assert FAST_LINE not in printed and ran(printed) == ["second"]
    assert (project / "listing.txt").read_text(encoding="utf-8") == "x.txt\ny.txt\none\nfactor=1\n"
    printed, imported = _launch(project)  # that build stamped too
    assert not imported and FAST_LINE in printed


@pytest.mark.slow
def test_a_file_edited_during_the_recheck_is_not_stamped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The re-check after a build reads in.txt; an edit right after that read (same size, so only its times
    differ) must not be stamped as up to date: the next run takes DVC's path and reruns both stages."""
    from dvc.repo import Repo
    from dvc.stage import Stage

    from almanac.core import noop_recheck

    project = _fresh_project(tmp_path)
    repro_here(project)
    (project / noop_stamp.STAMP).unlink()
    monkeypatch.chdir(project)
    changed = Stage.changed

    def changed_then_edited(stage: Any, *args: Any, **kwargs: Any) -> bool:
        found = changed(stage, *args, **kwargs)
        if stage.addressing == "first":
            (project / "in.txt").write_text("two\n", encoding="utf-8")
        return bool(found)

    def recheck() -> bool:
        repo = Repo(str(project))
        with repo.lock:  # as inside Repo.reproduce
            return noop_recheck.stamp_if_up_to_date(list(repo.index.stages))

    # without the edit the re-check stamps (the build's own writes are older than its clock probe) ...
    assert recheck() and noop_stamp.is_current() == 2
    noop_stamp.forget()
    monkeypatch.setattr(Stage, "changed", changed_then_edited)
    # ... with it, DVC found nothing to do but in.txt is newer than the probe: no stamp
    assert not recheck() and not (project / noop_stamp.STAMP).exists()
    monkeypatch.undo()
    printed = repro_here(project)
    assert ran(printed) == ["first", "second"] and "2 stages ran" in printed
    assert (project / "a.txt").read_text(encoding="utf-8") == "two\nfactor=1\n"
