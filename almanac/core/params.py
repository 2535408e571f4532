"""Typed access to ``params.yaml``: each stage reads its section into a frozen dataclass.

Unknown keys are errors, not silently ignored, because a misspelt threshold would otherwise run
with the default and nobody would notice.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, TypeVar

import yaml

from almanac.core.months import parse_month, validate_months
from almanac.core.params_rules import validate_params
from almanac.core.params_schema import ParamsError

T = TypeVar("T")
DEFAULT_PARAMS = Path("params.yaml")
# libyaml's scanner and parser under PyYAML's own safe constructor and resolver: the same values as
# yaml.safe_load, ~10x faster on the 24 KB params.yaml (read by every stage and by make repro at start-up).
SAFE_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_params(path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    """The params file, validated whole (``almanac.core.params_schema``): a bad value anywhere stops
    every command and stage at start-up with one line naming the key, not a stage later on."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=SAFE_LOADER) or {}
    except yaml.YAMLError as error:
        raise ParamsError(f"{path}: not valid YAML: {' '.join(str(error).split())}") from None
    if not isinstance(data, dict):
        raise ParamsError(f"{path}: top level must be a mapping")
    validate_params(data, str(path))
    return with_split_months(data)


def checked_month(month: str, params: Mapping[str, Any] | None, allow_all: bool = True) -> str:
    """``month`` when it is ``YYYY-MM`` (or "all") and one of params' months; else a
    ParamsError. Checked before any path is built from it (``--month ../../x`` names no folder)."""
    if allow_all and month == "all":
        return month
    try:
        parse_month(month)
    except ValueError as error:
        raise ParamsError(f"--month {month!r}: {error}") from None
    if params is not None and "months" in params:
        # (A params file without it names no months to hold --month to: a test's small file.)
        known = months_in_scope(params)
        if month not in known:
            raise ParamsError(f"--month {month} is not in params.yaml months {known}")
    return month


def months_in_scope(params: Mapping[str, Any]) -> list[str]:
    months = params.get("months")
    if not isinstance(months, list) or not months:
        raise ValueError("params.yaml: 'months' must be a non-empty list like ['2025-05']")
    return validate_months([str(month) for month in months])


def ccnews_months(params: Mapping[str, Any]) -> list[str]:
    """The crawl months whose CC-News raw folder is ingested: every month of ``months``, or none when the
    source is off (``ccnews_ingest.raw_dir: ""``, a build without CC-News). Derived, never listed: the one
    list a user edits is ``months`` (docs/months.md)."""
    section = params.get("ccnews_ingest")
    raw_dir = section.get("raw_dir", "data/raw/sample/ccnews") if isinstance(section, Mapping) else None
    return months_in_scope(params) if raw_dir != "" else []


def report_scopes(params: Mapping[str, Any]) -> list[str]:
    """The folders a ``<style>_report`` stage writes: every month of ``months`` in order, then "all"."""
    return [*months_in_scope(params), "all"]


SPLITS = ("train", "validation", "test")


def split_months(params: Mapping[str, Any]) -> dict[str, list[str]]:
    """The OpenForesight split of ``months``: the newest ``foresight.split.test_month_count`` months are
    test, the ``validation_month_count`` before them validation, every earlier month train. Derived from
    ``months`` so that adding a month needs no second edit; test is always the newest (no future in train)."""
    split = (params.get("foresight") or {}).get("split") or {}
    months = months_in_scope(params)
    test = min(int(split.get("test_month_count", 1)), len(months))
    validation = min(int(split.get("validation_month_count", 1)), len(months) - test)
    cut_test, cut_validation = len(months) - test, len(months) - test - validation
    return {
        "train": months[:cut_validation],
        "validation": months[cut_validation:cut_test],
        "test": months[cut_test:],
    }


def with_split_months(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with ``foresight.split``'s month counts replaced by the month lists they give
    (``train_months``, ``validation_months``, ``test_months``: what SplitConfig and the checks read)."""
    foresight = params.get("foresight")  # none: a small params file (a test's) names no split
    if not isinstance(foresight, Mapping) or "months" not in params:
        return dict(params)
    split = dict(foresight.get("split") or {})
    if any(f"{name}_months" in split for name in SPLITS):
        return dict(params)  # lists given in code (a test's params); params.yaml may not (params_rules)
    lists = split_months(params)
    for name in ("test_month_count", "validation_month_count"):
        split.pop(name, None)
    split.update({f"{name}_months": lists[name] for name in SPLITS})
    return {**params, "foresight": {**foresight, "split": split}}


# The raw sources a month may have, each with its own list of months it has no data for on purpose.
RAW_SOURCES: Final = ("ccnews", "gdelt")


def empty_months(params: Mapping[str, Any], source: str) -> list[str]:
    """The months ``source`` (one of RAW_SOURCES) has no raw data for on purpose: ``empty_months.<source>``
    (none when absent). Declared per source, so a month listed for one source is not excused for another.

    A per-month ingest stage that finds no raw file stops, unless its month is listed for its source
    (almanac.core.raw_input).
    """
    if source not in RAW_SOURCES:
        raise ValueError(f"no raw source {source!r}: sources are {list(RAW_SOURCES)}")
    declared = params.get("empty_months") or {}
    if not isinstance(declared, Mapping):
        raise ParamsError("params.yaml: 'empty_months' is per source, like {ccnews: ['2025-07'], gdelt: []}")
    unknown = sorted(set(declared) - set(RAW_SOURCES))
    if unknown:
        raise ParamsError(f"params.yaml: empty_months names unknown sources {unknown}: {list(RAW_SOURCES)}")
    months = declared.get(source) or []
    if not isinstance(months, list):
        raise ParamsError(f"params.yaml: 'empty_months.{source}' must be a list like ['2025-07'] (or [])")
    return validate_months([str(month) for month in months])


def parse_section(cls: type[T], params: Mapping[str, Any], name: str) -> T:
    """Build ``cls`` (a frozen dataclass) from ``params[name]``; lists become tuples."""
    raw = params.get(name) or {}
    if not isinstance(raw, Mapping):
        raise ParamsError(f"params.yaml: section {name!r} must be a mapping")
    known = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ParamsError(f"params.yaml: section {name!r} has unknown keys {unknown}; known: {sorted(known)}")
    hints = typing.get_type_hints(cls)
    values = {key: _coerce(value, hints[key], f"{name}.{key}") for key, value in raw.items()}
    try:
        return cls(**values)
    except TypeError as error:  # a required key is missing
        raise ParamsError(f"params.yaml: section {name!r}: {error}") from error
    except ValueError as error:  # the section's own checks (__post_init__)
        if type(error) is not ValueError:  # ParamsError, or a kind callers tell apart (LLMConfigError)
            raise
        raise ParamsError(f"params.yaml: section {name!r}: {' '.join(str(error).split())}") from error


def _coerce(value: Any, hint: Any, where: str) -> Any:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return parse_section(hint, {where: value}, where)  # a nested section, e.g. ccnews_ingest.filters
    origin = typing.get_origin(hint)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ParamsError(f"params.yaml: {where} must be a list")
        return tuple(value)
    if origin in (typing.Union, types.UnionType):
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float) and isinstance(value, bool):  # YAML `true` is an int to Python, not to us
        raise ParamsError(f"params.yaml: {where} must be {hint.__name__}, got {value!r}")
    if hint in (int, float, str, bool) and not isinstance(value, hint):
        raise ParamsError(f"params.yaml: {where} must be {hint.__name__}, got {value!r}")
    return value
