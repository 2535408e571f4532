"""What a style's report builder returns: metrics, plot series and Markdown tables, nothing written yet."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

FigureKind = Literal["bar", "barh"]  # barh for long category names (relations, answer types, sources)


@dataclass(frozen=True)
class Series:
    """One plot: a CSV file for ``dvc plots`` and a PNG figure for the dataset card.

    ``rows`` have the columns ``x`` and ``y`` (and ``group`` when set, one coloured bar per group value).
    A histogram is a bar series whose ``x`` values are bin labels in order (e.g. "10-14").
    """

    name: str  # file stem: plots/<name>.csv and figures/<name>.png
    title: str
    x: str
    y: str
    rows: tuple[dict[str, Any], ...]
    kind: FigureKind = "bar"
    x_label: str = ""
    y_label: str = ""
    group: str | None = None
    bar_labels: str | None = None  # a column whose text is written at the end of each bar (figure only)


@dataclass(frozen=True)
class Table:
    """A titled Markdown table for the report and the card."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    note: str = ""  # one sentence under the title saying what the numbers are


@dataclass(frozen=True)
class Panel:
    """Related series drawn as one figure, one subplot each: a ``dvc plots`` image of the whole dataset.

    ``dvc plots show`` draws a few of these instead of every series (the CSVs and per-series figures stay
    in the report folder).
    """

    name: str  # file stem: panels/<name>.png
    title: str
    series: tuple[str, ...]  # names of the report's series, top to bottom


@dataclass(frozen=True)
class Report:
    style: str
    months: tuple[str, ...]  # the months covered; empty means every month of the dataset
    metrics: dict[str, Any]  # JSON-serialisable; metrics.json, a git-tracked DVC output (the detail)
    series: tuple[Series, ...] = ()
    tables: tuple[Table, ...] = ()
    notes: tuple[str, ...] = field(default=())  # caveats the card should repeat (e.g. funnel scope)
    # The whole-dataset report only: its summary.json (the style's DVC metrics, almanac.reports.summary)
    # and the panels drawn from its series (the style's DVC plots).
    summary: dict[str, Any] | None = None
    panels: tuple[Panel, ...] = ()
    # Who wrote the records (an offline template backend or a named model), said plainly, and one record
    # with its source to show it; the report and the card put both first. "" / None: not stated.
    authorship: str = ""
    example: Table | None = None

    def series_named(self, name: str) -> Series:
        for series in self.series:
            if series.name == name:
                return series
        raise KeyError(name)


def series_rows(records: Sequence[Sequence[Any]], *columns: str) -> tuple[dict[str, Any], ...]:
    """Rows from DuckDB ``fetchall()`` tuples, named by ``columns``."""
    return tuple(dict(zip(columns, record, strict=True)) for record in records)
