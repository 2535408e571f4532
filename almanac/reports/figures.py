"""PNG figures for the dataset card, drawn with matplotlib's Agg backend.

Figures are outputs under DVC like everything else, so they must come out byte-identical for the same
series: no timestamps or version strings in the PNG metadata, fixed size and resolution.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from almanac.core.io import atomic_path
from almanac.core.lazy import lazy_module
from almanac.reports.model import Panel, Series


def _agg_backend() -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display on servers and CI; set before pyplot is imported


if TYPE_CHECKING:
    import matplotlib.pyplot as plt
    from matplotlib import ticker
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
else:
    # Imported at the first figure: ~0.8 s of CPU that a process drawing none does not pay.
    plt = lazy_module("matplotlib.pyplot", before=_agg_backend)
    ticker = lazy_module("matplotlib.ticker")


DPI = 110
WIDTH = 7.0  # inches, every figure and panel
PANEL_TITLE_HEIGHT = 0.3  # inches above a panel's first subplot for its title
MAX_CATEGORIES = 25  # more bars than this are unreadable; the CSV keeps them all
_PNG_METADATA: dict[str, Any] = {"Software": None}


def render_figure(series: Series, path: str | Path) -> None:
    """Draw ``series`` and write it as PNG atomically."""
    _save(draw_figure(series), path)


def render_panel(panel: Panel, series: Sequence[Series], path: str | Path) -> None:
    """Draw ``series`` as one panel and write it as PNG atomically."""
    _save(draw_panel(panel, series), path)


def _save(figure: Figure, path: str | Path) -> None:
    # Laid out here, once, and then no layout engine: with one set (tight_layout leaves a placeholder),
    # savefig draws the whole figure in a dry run before the real draw, ~25% of a figure's CPU. The
    # layout is the one savefig would compute, so the PNG bytes are the same.
    engine = figure.get_layout_engine()
    if engine is not None:
        engine.execute(figure)
        figure.set_layout_engine(None)
    with atomic_path(path) as temp:
        figure.savefig(temp, format="png", metadata=_PNG_METADATA)
    plt.close(figure)


def draw_figure(series: Series) -> Figure:
    """``series`` as a (grouped) bar chart; the caller closes the figure."""
    figure, axes = plt.subplots(figsize=(WIDTH, figure_height(series)), dpi=DPI)
    draw_axes(axes, series)
    figure.tight_layout()
    return figure


def draw_panel(panel: Panel, series: Sequence[Series]) -> Figure:
    """``series`` stacked top to bottom, each as tall as its own figure, under the panel's title."""
    heights = [figure_height(one) for one in series]
    # Constrained layout, not tight_layout: it keeps the panel title clear of the first subplot's title.
    figure, grid = plt.subplots(
        len(series),
        1,
        figsize=(WIDTH, sum(heights) + PANEL_TITLE_HEIGHT),
        dpi=DPI,
        squeeze=False,
        gridspec_kw={"height_ratios": heights},
        layout="constrained",
    )
    for axes, one in zip(grid[:, 0], series, strict=True):
        draw_axes(axes, one)
    figure.suptitle(panel.title, fontweight="bold")
    return figure


def figure_height(series: Series) -> float:
    """Inches: horizontal bars grow with the number of categories, vertical ones have a fixed height."""
    return max(3.2, 0.32 * len(_categories(series)) + 1.4) if series.kind == "barh" else 3.8


def draw_axes(axes: Axes, series: Series) -> None:
    """``series`` as a (grouped) bar chart on ``axes``."""
    categories = _categories(series)
    # Groups in the builder's order (train, validation, test), not alphabetical.
    groups = (
        (list(dict.fromkeys(str(row[series.group]) for row in series.rows)) or [""]) if series.group else [""]
    )
    values = {(str(row[series.x]), _group_of(series, row)): row[series.y] for row in series.rows}
    horizontal = series.kind == "barh"
    width = 0.8 / len(groups)
    positions = list(range(len(categories)))
    texts = (
        {(str(row[series.x]), _group_of(series, row)): str(row[series.bar_labels]) for row in series.rows}
        if series.bar_labels
        else {}
    )
    for index, group in enumerate(groups):
        offsets = [p - 0.4 + width * (index + 0.5) for p in positions]
        heights = [float(values.get((category, group), 0) or 0) for category in categories]
        label = group or None
        if horizontal:
            bars = axes.barh(offsets, heights, height=width, label=label)
        else:
            bars = axes.bar(offsets, heights, width=width, label=label)
        if texts:
            axes.bar_label(bars, [texts.get((c, group), "") for c in categories], padding=3, fontsize="small")
    if texts:
        # Room for the labels inside the frame, without ticks past the largest value (no "120%").
        top = max((float(v or 0) for v in values.values()), default=0.0)
        if horizontal:
            axes.margins(x=0.3)
        else:
            axes.margins(y=0.3)
        value_axis = axes.xaxis if horizontal else axes.yaxis
        value_axis.set_ticks([tick for tick in value_axis.get_ticklocs() if tick <= top])
    if horizontal:
        axes.set_yticks(positions, categories)
        axes.invert_yaxis()  # first category on top, as in the table
        axes.set_xlabel(series.y_label or series.y)
        axes.set_ylabel(series.x_label or series.x)
    else:
        axes.set_xticks(
            positions,
            categories,
            rotation=45 if len(categories) > 8 else 0,
            ha="right" if len(categories) > 8 else "center",
        )
        axes.set_xlabel(series.x_label or series.x)
        axes.set_ylabel(series.y_label or series.y)
    if all(isinstance(row[series.y], int) for row in series.rows):  # counts: no 0.5 ticks
        (axes.xaxis if horizontal else axes.yaxis).set_major_locator(ticker.MaxNLocator(integer=True))
    axes.set_title(series.title)
    if series.group and series.rows:
        axes.legend(
            title=series.group, fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0)
        )  # never over bars
    axes.grid(axis="x" if horizontal else "y", alpha=0.3)
    axes.set_axisbelow(True)
    if not categories:
        axes.text(0.5, 0.5, "no data", ha="center", va="center", transform=axes.transAxes)


def _group_of(series: Series, row: dict[str, Any]) -> str:
    return str(row[series.group]) if series.group else ""


def _categories(series: Series) -> list[str]:
    # Keep the builder's order (bins in order, counts most frequent first) and drop duplicates per group.
    seen: dict[str, None] = {}
    for row in series.rows:
        seen.setdefault(str(row[series.x]), None)
    return list(seen)[:MAX_CATEGORIES]
