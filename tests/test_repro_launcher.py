"""``make repro``'s launcher (almanac.core.repro): its summary line, its YAML memo and its direct params lookup."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from almanac.core import noop_stamp, repro
from almanac.core.repro import HeldPaths, ReproTally, lookup, memoised_parser
from tests.support.repro_runs import dvc_patch_points, ran, repro_here


@pytest.fixture(autouse=True)
def _dvc_as_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test here starts from the DVC functions it found and puts them back: repro.main and its patch
    helpers, run in this process, replace some (each call wrapping what it finds), and a run's "ran" lines
    would repeat under a wrapper an earlier test left."""
    for owner, name in dvc_patch_points():
        monkeypatch.setattr(owner, name, getattr(owner, name))


def test_summary_of_a_no_op_is_one_line_with_the_stage_count() -> None:
    tally = ReproTally(considered=80)
    assert tally.summary(1.04) == "repro: nothing to do, 80 stages up to date (1.0 s)"


def test_summary_counts_stages_thatran() -> None:
    tally = ReproTally(considered=5, ran=[("dedup", 2.0), ("corpus_stats", 0.5)])
    assert tally.summary(3.0) == "repro: 2 stages ran, 3 up to date (3.0 s)"
    assert ReproTally(considered=1, ran=[("dedup", 2.0)]).summary(2.0).startswith("repro: 1 stage ran,")


def test_memo_parses_each_text_once_and_hands_out_copies() -> None:
    calls: list[str] = []

    def parse(text: str, path: str, typ: str = "safe") -> Any:
        calls.append(text)
        return {"seed": int(text), "nested": {"months": ["2025-03"]}}

    parse_once = memoised_parser(parse)
    first = parse_once("7", "params.yaml")
    first["nested"]["months"].append("mutated by a caller")
    second = parse_once("7", "params.yaml")
    assert calls == ["7"]  # parsed once
    assert second == {"seed": 7, "nested": {"months": ["2025-03"]}}  # the caller's edit did not leak
    # An edited file (other text) is parsed again, as is the same text read with another parser type.
    assert parse_once("8", "params.yaml")["seed"] == 8
    parse_once("8", "params.yaml", typ="rt")
    assert calls == ["7", "8", "8"]
    # Only the latest text per file is kept: going back to "7" parses it again.
    parse_once("7", "params.yaml")
    assert calls == ["7", "8", "8", "7"]


def test_direct_param_lookup_gives_what_dpath_gives() -> None:
    import dpath
    import pytest

    config = {"a": {"b": {"c": 1}, "list": [{"x": 2}], "none": None}, "top": [1, 2]}
    for key in ("a", "a.b", "a.b.c", "a.list", "a.list.0.x", "a.none", "top", "top.1"):
        assert lookup(config, key) == dpath.get(config, key, separator="."), key
    for missing in ("b", "a.c", "a.b.c.d", "top.2", "a.list.x", "a.none.z"):
        with pytest.raises(KeyError):
            dpath.get(config, missing, separator=".")
        with pytest.raises(KeyError):
            lookup(config, missing)


def test_a_nested_lock_request_is_covered_only_by_what_is_held() -> None:
    held = HeldPaths()
    held.add(["deps/a", "deps/b"], ["outs/x"], 1)  # reproduce: read deps, write outs
    assert held.covers(["deps/a"], [])  # changed(): read deps
    assert held.covers(["deps/a", "outs/x"], [])  # read deps and outs: an out held for writing is read too
    assert held.covers([], ["outs/x"])  # save(): write outs
    assert not held.covers([], ["deps/a"])  # held for reading only: writing it takes the real lock
    assert not held.covers(["deps/c"], [])  # never held
    held.add(["deps/a", "deps/b"], ["outs/x"], -1)
    assert not held.covers(["deps/a"], []) and held == HeldPaths()


LOCK_TEXT = """\
schema: '2.0'
stages:
  make@2025-03:
    cmd: sh stages/python -m stages.make --month 2025-03
    deps:
    - path: data/code/make.sha256
      hash: md5
      md5: 0cc175b9c0f1b6a831c399e269772661
      size: 1
    params:
      data/code/params.json:
        make:
          cutoff: '2025-03-01'
          ratio: 0.5
          names:
          - yes
          - '010'
          - 'null'
    outs:
    - path: data/made/2025-03.parquet
      hash: md5
      md5: 92eb5ffee6ae2fec3ad71c777531578f
      size: 12
"""


def test_dumping_a_safe_parse_of_dvc_lock_gives_the_round_trip_bytes() -> None:
    """What makes the lock edit without ruamel's round trip safe: DVC's dumper wrote the lock, so dumping
    its safe parse gives the bytes the round trip gives (a date and numbers kept as strings; `yes` is a
    string in YAML 1.2, so DVC writes it bare). LOCK_TEXT is checked to be what DVC's dumper writes."""
    import io

    from dvc.utils.serialize._yaml import _dump, parse_yaml

    values = {"cutoff": "2025-03-01", "ratio": 0.5, "names": ["yes", "010", "null"]}
    assert parse_yaml(LOCK_TEXT, "dvc.lock")["stages"]["make@2025-03"]["params"]["data/code/params.json"] == {
        "make": values
    }
    for typ in ("safe", "rt"):
        stream = io.StringIO()
        _dump(parse_yaml(LOCK_TEXT, "dvc.lock", typ=typ), stream)
        assert stream.getvalue() == LOCK_TEXT, typ


def _dvc_project(root: Path, stages: str) -> Any:
    from dvc.repo import Repo

    Repo.init(str(root), no_scm=True)
    (root / "dvc.yaml").write_text(stages, encoding="utf-8")
    return Repo(str(root))


TWO_STAGES = """stages:
  first:
    cmd: echo one > a.txt
    outs: [a.txt]
  second:
    cmd: cat a.txt > b.txt
    deps: [a.txt]
    outs: [b.txt]
"""


def test_the_stages_of_a_whole_file_are_the_index_stages_built_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repro._stages_built_once()
    monkeypatch.chdir(tmp_path)
    repo = _dvc_project(tmp_path, TWO_STAGES)
    collected = repo.stage.collect("dvc.yaml")
    assert [stage.addressing for stage in collected] == ["first", "second"]
    # the same objects the graph holds: no second build of every dep and out
    assert all(any(stage is built for built in repo.index.stages) for stage in collected)
    # a named target is still built by DVC itself
    (named,) = repo.stage.collect("second")
    assert named.addressing == "second" and not any(named is built for built in repo.index.stages)


def test_an_edit_after_the_index_was_built_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repro._stages_built_once()
    monkeypatch.chdir(tmp_path)
    repo = _dvc_project(tmp_path, TWO_STAGES)
    assert len(repo.index.stages) == 2
    (tmp_path / "dvc.yaml").write_text(TWO_STAGES + "  third:\n    cmd: echo three\n", encoding="utf-8")
    # the index was built before this call, from an older text: DVC's own build reads the file again
    assert [stage.addressing for stage in repo.stage.collect("dvc.yaml")] == ["first", "second", "third"]
    from dvc.repo import Repo

    assert [stage.addressing for stage in Repo(str(tmp_path)).stage.collect("dvc.yaml")] == [
        "first",
        "second",
        "third",
    ]


def test_make_repro_with_stages_built_once_still_reruns_an_edited_stage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _dvc_project(
        tmp_path,
        TWO_STAGES.replace("echo one", "echo $(cat in.txt)").replace(
            "outs: [a.txt]", "deps: [in.txt]\n    outs: [a.txt]"
        ),
    )
    (tmp_path / "in.txt").write_text("one\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert repro.main([]) == 0
    assert "2 stages ran" in capsys.readouterr().out
    assert repro.main([]) == 0
    assert "nothing to do, 2 stages up to date" in capsys.readouterr().out
    (tmp_path / "in.txt").write_text("two\n", encoding="utf-8")
    assert repro.main([]) == 0
    assert "2 stages ran" in capsys.readouterr().out
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == "two\n"


def test_the_params_loader_reads_what_safe_load_reads() -> None:
    """load_params parses with libyaml under PyYAML's safe constructor: YAML 1.1 booleans, dates, octal-looking
    and quoted strings come out as yaml.safe_load gives them (worked out: yes -> True, 2025-03-01 -> a date)."""
    import datetime

    import yaml

    from almanac.core.params import SAFE_LOADER

    text = "a: yes\nb: 2025-03-01\nc: '010'\nd: 010\ne: [1.5, null, ~]\nf: {g: 'x: y'}\n"
    loaded = yaml.load(text, Loader=SAFE_LOADER)
    assert loaded == yaml.safe_load(text)
    assert loaded["a"] is True and loaded["b"] == datetime.date(2025, 3, 1) and loaded["c"] == "010"


# The no-op fast path (almanac.core.noop_stamp) against real DVC in a scratch project: `first` copies in.txt
# (and a param) into a.txt, `second` lists the folder indir/ and appends a.txt into listing.txt.
FAST_PATH_STAGES = """stages:
  first:
    cmd: cat in.txt > a.txt && echo factor=${factor} >> a.txt
    deps: [in.txt]
    params: [factor]
    outs: [a.txt]
  second:
    cmd: ls indir > listing.txt && cat a.txt >> listing.txt
    deps: [a.txt, indir]
    outs: [listing.txt]
"""
FAST_LINE = "no dep, out or pipeline file changed"


def _launch(project: Path, *args: str) -> tuple[str, bool]:
    """``make repro``'s command in its own process: (what it printed, whether it imported DVC)."""
    import subprocess
    import sys

    code = (
        "import sys\nfrom almanac.core import repro\nstatus = repro.main(sys.argv[1:])\n"
        "print('imported dvc' if 'dvc' in sys.modules else 'no dvc')\nsys.exit(status)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DVC_NO_ANALYTICS": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    printed, _, imported = done.stdout.rstrip("\n").rpartition("\n")
    return printed, imported == "imported dvc"


def _armed(project: Path) -> None:
    """After a build (which re-checks and stamps: almanac.core.noop_recheck) the fast path fires without DVC."""
    assert (project / noop_stamp.STAMP).is_file()
    printed, imported = _launch(project)
    assert not imported and FAST_LINE in printed and "2 stages up to date" in printed
    assert len(printed.splitlines()) == 1


@pytest.fixture
def built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    _dvc_project(tmp_path, FAST_PATH_STAGES)
    (tmp_path / "params.yaml").write_text("factor: 1\n", encoding="utf-8")
    (tmp_path / "in.txt").write_text("one\n", encoding="utf-8")
    (tmp_path / "indir").mkdir()
    (tmp_path / "indir" / "x.txt").write_text("x\n", encoding="utf-8")
    printed = repro_here(tmp_path)
    assert ran(printed) == ["first", "second"] and "2 stages ran" in printed
    assert (tmp_path / noop_stamp.STAMP).is_file()
    noop_stamp.forget(tmp_path / noop_stamp.STAMP)  # without it: a DVC no-op, which writes the stamp
    printed = repro_here(tmp_path)
    assert FAST_LINE not in printed and printed == printed.splitlines()[0]
    assert "nothing to do, 2 stages" in printed
    _armed(tmp_path)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _reruns(project: Path, *stages: str) -> None:
    assert noop_stamp.is_current() is None  # the fast path does not fire: DVC's path
    printed = repro_here(project)
    assert FAST_LINE not in printed and ran(printed) == sorted(stages)


@pytest.mark.slow
def test_the_fast_path_fires_only_when_nothing_dvc_reads_changed(built: Path) -> None:
    """Each edit is one DVC would see; the fast path steps aside and DVC reruns what it reruns."""
    from almanac.core import noop_stamp

    assert noop_stamp.is_current() == 2
    (built / "in.txt").write_text("two\n", encoding="utf-8")  # an edited dep
    _reruns(built, "first", "second")
    assert (built / "listing.txt").read_text(encoding="utf-8") == "x.txt\ntwo\nfactor=1\n"
    _armed(built)
    (built / "indir" / "y.txt").write_text("y\n", encoding="utf-8")  # a new file in a folder dep
    _reruns(built, "second")
    assert (built / "listing.txt").read_text(encoding="utf-8") == "x.txt\ny.txt\ntwo\nfactor=1\n"
    _armed(built)
    (built / "params.yaml").write_text("factor: 2\n", encoding="utf-8")  # a param
    _reruns(built, "first", "second")
    assert (built / "a.txt").read_text(encoding="utf-8") == "two\nfactor=2\n"
    _armed(built)
    (built / "a.txt").write_text("tampered\n", encoding="utf-8")  # an edited out (same size or not)
    assert noop_stamp.is_current() is None
    printed = repro_here(built)  # DVC restores it (from its run cache) or reruns `first`
    assert FAST_LINE not in printed and (built / "a.txt").read_text(encoding="utf-8") == "two\nfactor=2\n"
    _armed(built)
    (built / "listing.txt").unlink()  # a deleted out
    assert noop_stamp.is_current() is None
    repro_here(built)
    assert (built / "listing.txt").read_text(encoding="utf-8") == "x.txt\ny.txt\ntwo\nfactor=2\n"
    _armed(built)
    printed = repro_here(built, "-f")  # any argument: DVC's path; -f reruns both
    assert ran(printed) == ["first", "second"] and "2 stages ran" in printed


@pytest.mark.slow
def test_pipeline_files_cache_and_new_stage_files_defeat_the_stamp(built: Path) -> None:
    from almanac.core import noop_stamp

    lock = built / "dvc.lock"
    text = lock.read_text(encoding="utf-8")
    # touched, same bytes: DVC would decide the same from it, so the fast path stays (it hashes dvc.lock)
    __import__("os").utime(lock)
    assert noop_stamp.check() == (2, "")
    assert noop_stamp.check() == (2, "")
    lock.write_text(text.replace("cat in.txt", "cat  in.txt"), encoding="utf-8")  # e.g. a git checkout
    assert noop_stamp.is_current() is None
    lock.write_text(text, encoding="utf-8")
    assert noop_stamp.is_current() == 2  # the same bytes again: the same decision
    (built / "dvc.yaml").write_text(FAST_PATH_STAGES + "\n", encoding="utf-8")
    assert noop_stamp.is_current() is None
    (built / "dvc.yaml").write_text(FAST_PATH_STAGES, encoding="utf-8")
    assert noop_stamp.is_current() == 2
    rwlock = built / ".dvc" / "tmp" / "rwlock"
    held = '{"read": {}, "write": {"%s": {"pid": %d, "cmd": "dvc repro"}}}'
    rwlock.write_text(held % (built / "a.txt", __import__("os").getpid()), encoding="utf-8")
    assert noop_stamp.is_current() is None  # a live process runs a stage: its outs may be half written
    import subprocess
    import sys

    finished = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    rwlock.write_text(held % (built / "a.txt", int(finished.stdout)), encoding="utf-8")
    assert noop_stamp.check() == (2, "")  # a dead holder's entry: DVC removes it and goes on
    rwlock.unlink()
    (built / "sub").mkdir()  # a new folder (where a new dvc.yaml or .dvc file may go) anywhere DVC looks
    assert noop_stamp.is_current() is None
    (built / "sub").rmdir()
    from dvc.repo import Repo

    with pytest.raises(noop_stamp.NotStampable, match="changed while DVC ran"):
        # every entry is newer than time 0: what DVC saw may not be what is on disk now, so no stamp
        noop_stamp.collect(Repo(str(built)), before_ns=0)
    printed = repro_here(built)  # the new folder's times: a DVC no-op, which stamps again
    assert FAST_LINE not in printed and "nothing to do, 2 stages" in printed
    _armed(built)
    cache = built / ".dvc" / "cache" / "files" / "md5"
    victim = next(path for path in cache.rglob("*") if path.is_file())
    victim.chmod(0o644)
    victim.unlink()  # an out's cache object gone: DVC reports "not in cache"
    assert noop_stamp.is_current() is None
    stamp = built / noop_stamp.STAMP
    stamp.write_text("{not json", encoding="utf-8")  # a corrupt stamp is no stamp
    assert noop_stamp.is_current() is None


@pytest.mark.slow
def test_a_stage_dvc_always_runs_never_gets_a_stamp(tmp_path: Path) -> None:
    """always_changed (and a stage without deps that DVC treats so) runs on every repro: no no-op, no stamp."""
    _dvc_project(tmp_path, "stages:\n  clock:\n    cmd: echo tick >> ticks.txt\n    always_changed: true\n")
    for runs in (1, 2):
        printed = repro_here(tmp_path)  # "ran clock": DVC's path
        assert ran(printed) == ["clock"] and not (tmp_path / noop_stamp.STAMP).exists()
        assert (tmp_path / "ticks.txt").read_text(encoding="utf-8") == "tick\n" * runs
