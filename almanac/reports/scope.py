"""What one report covers: a month of a style, or the whole dataset, plus the params it was built with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from almanac.core.months import validate_months
from almanac.core.params import months_in_scope

ALL = "all"


@dataclass(frozen=True)
class ReportScope:
    months: tuple[str, ...]  # the months reported: one month, or every month in params for "all"
    whole: bool  # True for "all": also rows outside params' months (OpenForecast train cuts before them)
    params: Mapping[str, Any]

    @property
    def label(self) -> str:
        return ALL if self.whole else ", ".join(self.months)


def report_scope(month: str, params: Mapping[str, Any]) -> ReportScope:
    """``month`` is YYYY-MM (one of params' months) or "all"."""
    months = months_in_scope(params)
    if month == ALL:
        return ReportScope(tuple(months), True, params)
    (checked,) = validate_months([month])
    if checked not in months:
        raise ValueError(f"month {month} is not in params.yaml months {months}")
    return ReportScope((checked,), False, params)
