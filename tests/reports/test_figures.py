"""What the card figures show: bars in the builder's order, count labels, and no ticks past the data."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

from almanac.reports.figures import draw_figure, render_figure, render_panel
from almanac.reports.funnel import funnel_series
from almanac.reports.model import Panel, Series


def _step(label: str, unit: str, items_in: int, items_out: int) -> dict[str, object]:
    return {"label": label, "unit": unit, "items_in": items_in, "items_out": items_out}


def test_funnel_figure_shows_shares_labelled_with_counts() -> None:
    series = funnel_series(
        [
            _step("Ingest", "rows", 2_000_000, 1_500_000),
            _step("Sample", "queries", 40, 10),
            _step("Empty", "files", 0, 0),
        ]
    )
    # 1.5M of 2M = 75%, 10 of 40 = 25%; a step that read nothing kept 0%, not a division error.
    assert [row["kept_percent"] for row in series.rows] == [75.0, 25.0, 0.0]
    figure = draw_figure(series)
    axes = figure.axes[0]
    assert [bar.get_width() for bar in axes.patches] == [75.0, 25.0, 0.0]
    assert [tick.get_text() for tick in axes.get_yticklabels()] == [
        "Ingest (rows)",
        "Sample (queries)",
        "Empty (files)",
    ]
    assert [text.get_text() for text in axes.texts] == ["1,500,000 of 2,000,000", "10 of 40", "0 of 0"]
    # The margin leaves room for the labels, but no tick claims more than the largest share.
    assert axes.get_xlim()[1] > 75.0 and max(axes.get_xticks()) <= 75.0
    plt.close(figure)


def test_grouped_bars_keep_group_order_and_missing_values_are_zero() -> None:
    series = Series(
        "split_counts",
        "Samples",
        "task",
        "samples",
        (
            {"task": "stf", "split": "train", "samples": 4},
            {"task": "stf", "split": "test", "samples": 1},
            {"task": "ltf", "split": "train", "samples": 2},
        ),
        group="split",
    )
    figure = draw_figure(series)
    axes = figure.axes[0]
    legend = axes.get_legend()
    assert [text.get_text() for text in legend.get_texts()] == ["train", "test"]  # builder's order
    # train bars (stf 4, ltf 2), then test bars (stf 1, ltf missing -> 0)
    assert [bar.get_height() for bar in axes.patches] == [4.0, 2.0, 1.0, 0.0]
    assert not axes.texts  # no bar labels asked for
    plt.close(figure)


def test_empty_series_says_no_data() -> None:
    figure = draw_figure(Series("horizon", "Horizon", "days", "questions", ()))
    assert [text.get_text() for text in figure.axes[0].texts] == ["no data"]
    plt.close(figure)


def test_a_figure_is_drawn_once_per_png(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """savefig runs a whole dry-run draw first when a layout engine is still set: the layout is done
    before saving, so each PNG costs one draw (a figure and a constrained-layout panel alike)."""
    draws: list[Figure] = []
    real_draw = Figure.draw

    def counted_draw(figure: Figure, renderer: object) -> None:
        draws.append(figure)
        real_draw(figure, renderer)  # type: ignore[arg-type]

    monkeypatch.setattr(Figure, "draw", counted_draw)
    rows = tuple({"month": m, "questions": n} for m, n in (("2025-01", 3), ("2025-02", 5)))
    series = Series(name="q", title="Questions", x="month", y="questions", rows=rows)
    render_figure(series, tmp_path / "q.png")
    render_panel(Panel(name="p", title="Panel", series=("q", "q")), [series, series], tmp_path / "p.png")
    assert len(draws) == 2
    assert (tmp_path / "q.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
