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
from typing import Any, TypeVar

import yaml

from almanac.core.months import validate_months

T = TypeVar("T")
DEFAULT_PARAMS = Path("params.yaml")


def load_params(path: str | Path = DEFAULT_PARAMS) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        data = yaml.safe_load(handle) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: top level must be a mapping")
    return data


def months_in_scope(params: Mapping[str, Any]) -> list[str]:
    months = params.get("months")
    if not isinstance(months, list) or not months:
        raise ValueError("params.yaml: 'months' must be a non-empty list like ['2025-05']")
    return validate_months([str(month) for month in months])


def ccnews_months(params: Mapping[str, Any]) -> list[str]:
    """The crawl months whose CC-News raw folder is ingested (``ccnews_months``; [] = no CC-News).

    A missing key means every month in scope, as before the key existed; an empty list is a choice.
    """
    months = params.get("ccnews_months", months_in_scope(params))
    if not isinstance(months, list):
        raise ValueError("params.yaml: 'ccnews_months' must be a list like ['2025-05'] (or [] for none)")
    return validate_months([str(month) for month in months])


def empty_months(params: Mapping[str, Any]) -> list[str]:
    """The months whose raw folders are empty on purpose (``empty_months``; none when the key is absent).

    A per-month ingest stage that finds no raw file stops, unless its month is listed here
    (almanac.core.raw_input).
    """
    months = params.get("empty_months", [])
    if not isinstance(months, list):
        raise ValueError("params.yaml: 'empty_months' must be a list like ['2025-07'] (or [] for none)")
    return validate_months([str(month) for month in months])


def parse_section(cls: type[T], params: Mapping[str, Any], name: str) -> T:
    """Build ``cls`` (a frozen dataclass) from ``params[name]``; lists become tuples."""
    raw = params.get(name) or {}
    if not isinstance(raw, Mapping):
        raise ValueError(f"params.yaml: section {name!r} must be a mapping")
    known = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ValueError(f"params.yaml: section {name!r} has unknown keys {unknown}; known: {sorted(known)}")
    hints = typing.get_type_hints(cls)
    values = {key: _coerce(value, hints[key], f"{name}.{key}") for key, value in raw.items()}
    try:
        return cls(**values)
    except TypeError as error:  # a required key is missing
        raise ValueError(f"params.yaml: section {name!r}: {error}") from error


def _coerce(value: Any, hint: Any, where: str) -> Any:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return parse_section(hint, {where: value}, where)  # a nested section, e.g. ccnews_ingest.filters
    origin = typing.get_origin(hint)
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ValueError(f"params.yaml: {where} must be a list")
        return tuple(value)
    if origin in (typing.Union, types.UnionType):
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (int, float, str, bool) and not isinstance(value, hint):
        raise ValueError(f"params.yaml: {where} must be {hint.__name__}, got {value!r}")
    return value
