"""``make repro``: ``dvc repro`` without the bookkeeping noise, and a one-line summary at the end.

    python -m almanac.core.repro [DVC REPRO ARGS ...]     # e.g. foresight_month@2025-03, --dry, -f

Without arguments, when nothing DVC's decision reads changed since a ``make repro`` in which DVC ran no
stage, or after which DVC found nothing left to do (``almanac.core.noop_recheck``: the first no-op after a
build), it prints one line and exits without importing DVC (the no-op stamp: ``almanac.core.noop_stamp``;
``python -m almanac.core.noop_stamp`` says why the next run would not take it). Otherwise, or with any
argument, the real ``dvc repro`` (DVC's own command line, in this process), with two changes:

* ``--quiet``: DVC's "Stage 'x' didn't change, skipping" (one line per stage, 80 on the sample) and
  "Running stage"/command echo lines go; a stage's own output and every warning and error stay. Each stage
  that ran gets one line with its wall time, and the run ends with one line: how many stages ran, how many
  were up to date, total seconds.
* Each YAML text is parsed once per process: params.yaml was parsed once per stage that declares params
  (77 times on the sample, 24 KB each), dvc.yaml and the 180 KB dvc.lock twice. The parse is memoised by
  file text (the latest per file), so an edit between two reads is still seen, and each reader gets its own
  deep copy.

* A params dep's keys are looked up directly: DVC's ``read_param_file`` runs ``dpath.get`` per key, a glob
  match that walks the whole params tree (~400 nodes) for each of a stage's keys, 164 walks a no-op. A key
  with a glob character still goes to dpath.

* DVC's per-stage read-write lock is taken once per stage: a stage method that locks (``changed``,
  ``save``, ...) called inside ``reproduce``, which already holds read locks on the deps and write locks on
  the outs in this process, asked for a subset of them again: one read-modify-write of the lock file and a
  compare of each path with each held one per call, four calls a stage. A request the held set does not
  cover still takes the real lock.
* dvc.yaml and dvc.lock, each loaded twice, are schema-checked once per text (the parse memo above).
* dvc.lock is edited after each stage that ran from a safe (libyaml) parse instead of ruamel's round-trip
  parse, the largest cost of DVC's per-stage bookkeeping (~1 s a stage for a 100-150 KB lock file). The
  round trip keeps comments and styles; dvc.lock is written by DVC alone, and dumping the safe parse gives
  the same bytes (tested on the sample's lock file).

* The stages are built once: with no target (or the root ``dvc.yaml``) ``dvc repro`` built every stage for
  its targets (``StageLoad.load_all``), then every stage again for the graph (``repo.index``), each build
  constructing every dep and out (~25% of a no-op's CPU). ``load_all`` of a whole file now returns the
  index's stages of that file, in the same order, when the index is built in that call from the same
  file text (read before and after); otherwise, or for a name or glob target, DVC's own ``load_all``.

Plain ``dvc repro`` still works and builds the same outputs; this only changes what is printed and how
much CPU DVC spends deciding that nothing changed. Where DVC's internals differ from what this patches
(another DVC version), the memo is skipped and the run is a plain quiet ``dvc repro``.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from almanac.core import noop_recheck, noop_stamp


@dataclass
class ReproTally:
    """Which stages DVC considered and which of them it ran, in order."""

    considered: int = 0
    ran: list[tuple[str, float]] = field(default_factory=list)

    def summary(self, seconds: float) -> str:
        up_to_date = self.considered - len(self.ran)
        if not self.ran:
            return f"repro: nothing to do, {up_to_date} stages up to date ({seconds:.1f} s)"
        return (
            f"repro: {len(self.ran)} stage{'s' if len(self.ran) != 1 else ''} ran, "
            f"{up_to_date} up to date ({seconds:.1f} s)"
        )


def memoised_parser(parse: Callable[..., Any]) -> Callable[..., Any]:
    """``parse(text, path, typ)`` skipping the parse when ``path`` holds the text it held last time.

    One entry per (path, typ), the latest: dvc.lock is rewritten after every stage that runs, and a memo
    of every version would grow by a parsed 180 KB lock file per stage. Callers get deep copies.
    """
    latest: dict[tuple[str, str], tuple[str, Any]] = {}

    @functools.wraps(parse)
    def parse_once(text: str, path: str, typ: str = "safe") -> Any:
        key = (str(path), typ)
        cached = latest.get(key)
        if cached is None or cached[0] != text:
            cached = (text, parse(text, path, typ=typ))
            latest[key] = cached
        return copy.deepcopy(cached[1])

    return parse_once


def _memoise_yaml_loads() -> None:
    try:
        from dvc.utils import strictyaml
        from dvc.utils.serialize import _yaml
    except ImportError:
        return
    parse = getattr(_yaml, "parse_yaml", None)
    if not callable(parse):
        return
    memo = memoised_parser(parse)

    def parse_safe_once(text: str, path: str, typ: str = "safe") -> Any:
        # Round-trip parses ("rt") are DVC editing dvc.lock after a stage ran: a new text every time.
        return memo(text, path, typ) if typ == "safe" else parse(text, path, typ=typ)

    # load_yaml (params files) looks parse_yaml up at call time; strictyaml (dvc.yaml, dvc.lock: each read
    # twice by a repro) holds its own binding of the same function.
    _yaml.parse_yaml = parse_safe_once
    if getattr(strictyaml, "parse_yaml", None) is parse:
        strictyaml.parse_yaml = parse_safe_once


GLOB_CHARACTERS = frozenset("*?[]!")


def lookup(config: Any, key_path: str) -> Any:
    """``config``'s value at dotted ``key_path`` (a digit segment indexes a list), as ``dpath.get(config,
    key_path, separator=".")`` gives it for a key without glob characters; KeyError when absent."""
    value = config
    for segment in key_path.split("."):
        if isinstance(value, dict) and segment in value:
            value = value[segment]
        elif isinstance(value, list) and segment.isdigit() and int(segment) < len(value):
            value = value[int(segment)]
        else:
            raise KeyError(key_path)
    return value


def _direct_param_lookup() -> None:
    try:
        from dvc.dependency import param
    except ImportError:
        return
    read = getattr(param, "read_param_file", None)
    load_path = getattr(param, "load_path", None)
    if not (callable(read) and callable(load_path)):
        return

    @functools.wraps(read)
    def read_directly(
        fs: Any, path: str, key_paths: list[str] | None = None, flatten: bool = False, **load_kwargs: Any
    ) -> Any:
        if not (flatten and key_paths) or any(GLOB_CHARACTERS & set(key) for key in key_paths):
            return read(fs, path, key_paths, flatten, **load_kwargs)
        config = load_path(path, fs, **load_kwargs)
        found = {}
        for key_path in key_paths:
            try:
                found[key_path] = lookup(config, key_path)
            except KeyError:
                continue
        return found

    param.read_param_file = read_directly


@dataclass
class HeldPaths:
    """The paths this thread's open rwlock calls hold, each with how many calls hold it."""

    read: dict[str, int] = field(default_factory=dict)
    write: dict[str, int] = field(default_factory=dict)

    def covers(self, read: Sequence[str], write: Sequence[str]) -> bool:
        """A request is covered when every path to write is held for writing and every path to read is
        held for reading or writing: another process already sees it locked."""
        return all(path in self.write for path in write) and all(
            path in self.read or path in self.write for path in read
        )

    def add(self, read: Sequence[str], write: Sequence[str], step: int) -> None:
        for held, paths in ((self.read, read), (self.write, write)):
            for path in paths:
                held[path] = held.get(path, 0) + step
                if held[path] <= 0:
                    del held[path]


def _reentrant_rwlock() -> None:
    try:
        from dvc import rwlock as module
    except ImportError:
        return
    take = getattr(module, "rwlock", None)
    if not callable(take):
        return
    local = threading.local()

    @contextlib.contextmanager
    def rwlock(
        tmp_dir: Any, fs: Any, cmd: str, read: list[str], write: list[str], hardlink: bool
    ) -> Iterator[None]:
        held: HeldPaths = local.__dict__.setdefault("held", HeldPaths())
        if held.covers(read, write):
            yield
            return
        with take(tmp_dir, fs, cmd, read, write, hardlink):
            held.add(read, write, 1)
            try:
                yield
            finally:
                held.add(read, write, -1)

    # dvc.stage.decorators.rwlocked imports rwlock from dvc.rwlock at each call
    module.rwlock = rwlock


def _validate_once() -> None:
    try:
        from dvc.utils import strictyaml
    except ImportError:
        return
    validate = getattr(strictyaml, "validate", None)
    if not callable(validate):
        return
    passed: set[tuple[int, str, str | None]] = set()

    def validate_once(
        data: Any, schema: Any, text: str | None = None, path: Any = None, rev: Any = None
    ) -> Any:
        # strictyaml.load ignores what validate returns; a text that passed this schema passes again.
        key = (id(schema), str(path), text)
        if text is not None and key in passed:
            return data
        checked = validate(data, schema, text=text, path=path, rev=rev)
        if text is not None:
            passed.add(key)
        return checked

    strictyaml.validate = validate_once


def _lock_edits_without_round_trip() -> None:
    try:
        from dvc.utils.serialize import _yaml
    except ImportError:
        return
    round_trip = getattr(_yaml, "parse_yaml_for_update", None)
    if not (callable(round_trip) and callable(getattr(_yaml, "parse_yaml", None))):
        return

    def parse_for_update(text: str, path: Any) -> Any:
        if str(path).endswith("dvc.lock"):
            # looked up at call time: the memoised safe parse when _memoise_yaml_loads ran
            return _yaml.parse_yaml(text, path, typ="safe")
        return round_trip(text, path)

    # modify_yaml (Lockfile.dump_stages) passes the module global to _modify_data at each call
    _yaml.parse_yaml_for_update = parse_for_update


def _stages_built_once() -> None:
    try:
        from dvc.repo.stage import StageLoad
    except ImportError:
        return
    load_all = getattr(StageLoad, "load_all", None)
    if not callable(load_all):
        return

    @functools.wraps(load_all)
    def load_all_once(
        self: Any,
        path: str | None = None,
        name: str | None = None,
        accept_group: bool = True,
        glob: bool = False,
    ) -> Any:
        repo = self.repo
        if path is None or name is not None or glob or "index" in vars(repo):
            # a named or glob target, or an index built earlier (maybe from an older text): DVC's own build
            return load_all(self, path=path, name=name, accept_group=accept_group, glob=glob)
        wanted = repo.fs.abspath(path)
        before = _text_of(wanted)
        stages = [stage for stage in repo.index.stages if getattr(stage, "path", None) == wanted]
        if before is None or before != _text_of(wanted) or not stages:
            return load_all(self, path=path, name=name, accept_group=accept_group, glob=glob)
        return stages

    StageLoad.load_all = load_all_once


def _text_of(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def _count_stages(tally: ReproTally) -> None:
    from dvc.stage import Stage

    reproduce = Stage.reproduce

    @functools.wraps(reproduce)
    def counted(stage: Any, *args: Any, **kwargs: Any) -> Any:
        tally.considered += 1
        started = time.perf_counter()
        result = reproduce(stage, *args, **kwargs)
        if result is not None:
            seconds = time.perf_counter() - started
            tally.ran.append((stage.addressing, seconds))
            print(f"ran {stage.addressing} ({seconds:.1f} s)", flush=True)
        return result

    Stage.reproduce = counted


def _render_month_lists() -> None:
    """dvc.yaml's derived month lists (its vars) from params.yaml's months, when a hand edit of `months` left
    them behind: the one list a user edits is enough for `make repro` (docs/months.md)."""
    from pathlib import Path

    from almanac.core.month_lists import derived_lists, with_lists
    from almanac.core.params import load_params

    dvc_yaml, params = Path("dvc.yaml"), Path("params.yaml")
    if not (dvc_yaml.is_file() and params.is_file()):
        return
    current = dvc_yaml.read_text(encoding="utf-8")
    if "\nvars:\n" not in current:
        return
    rendered = with_lists(current, derived_lists(load_params(params)))
    if rendered != current:
        dvc_yaml.write_text(rendered, encoding="utf-8")
        print("dvc.yaml: month lists re-rendered from params.yaml months", flush=True)


def patch_dvc() -> None:
    """This process's DVC with the bookkeeping patches above (each skipped where DVC's internals differ):
    it builds what plain DVC builds. Also the test suite's sample build's (tests/support/patched_dvc.py)."""
    _memoise_yaml_loads()
    _direct_param_lookup()
    _reentrant_rwlock()
    _validate_once()
    _lock_edits_without_round_trip()
    _stages_built_once()


def main(argv: Sequence[str] | None = None) -> int:
    started = time.perf_counter()
    args = list(sys.argv[1:] if argv is None else argv)
    at_root = os.path.isdir(".dvc")
    if not args and at_root:
        stages = noop_stamp.is_current()
        if stages is not None:
            print(
                f"repro: nothing to do, {stages} stages up to date (no dep, out or pipeline file changed "
                f"since DVC last found them so; {time.perf_counter() - started:.1f} s)",
                flush=True,
            )
            return 0
    from dvc.cli import main as dvc_main

    tally = ReproTally()
    _render_month_lists()
    if at_root:
        noop_stamp.forget()
    if not args and at_root:
        before_ns = noop_stamp.filesystem_now(noop_stamp.STAMP.parent)
        noop_stamp.stamp_no_ops(
            lambda: bool(tally.considered and not tally.ran), before_ns, noop_recheck.stamp_if_up_to_date
        )
    patch_dvc()
    _count_stages(tally)
    status = dvc_main(["repro", "--quiet", *args])
    if status == 0:
        print(tally.summary(time.perf_counter() - started), flush=True)
    return int(status)


if __name__ == "__main__":
    sys.exit(main())
