"""The simulation's readable outputs: ``daily.csv`` (one row per completed day) and ``summary.json``,
rewritten after every day, and ``daily.png`` (accuracy and Brier skill score over the days), drawn when a
run stops (finished, or paused by ``--days``): drawing it is ~0.3 s of CPU, more than a day's scoring, and
its days are all in the CSV."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from almanac.core.io import atomic_path, write_json, write_text

DAILY_COLUMNS = (
    "day",
    "open",
    "resolved",
    "forecasts_held",
    "accuracy",
    "brier",
    "brier_skill",
    "resolved_accuracy",
    "resolved_brier_skill",
)


def daily_csv(days: Sequence[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(DAILY_COLUMNS)
    for day in days:
        row = {**day, "open": len(day["open"])}
        writer.writerow(["" if row.get(name) is None else row[name] for name in DAILY_COLUMNS])
    return buffer.getvalue()


def write_outputs(folder: Path, days: Sequence[dict[str, Any]], time_weighted: float, label: str) -> None:
    write_text(daily_csv(days), folder / "daily.csv")
    last = days[-1] if days else {}
    summary = {
        "agent": label,
        "days": len(days),
        "first_day": days[0]["day"] if days else None,
        "last_day": last.get("day"),
        "accuracy": last.get("accuracy"),
        "brier": last.get("brier"),
        "brier_skill": last.get("brier_skill"),
        "time_weighted_bss": time_weighted,
        "note": "means over every question of the set: projected for open questions, 0 without a forecast",
    }
    write_json(summary, folder / "summary.json")


def write_figure(folder: Path, days: Sequence[dict[str, Any]], label: str) -> None:
    path = folder / "daily.png"
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(7.0, 3.2), dpi=110)
    xs = list(range(len(days)))
    axes.plot(xs, [d["accuracy"] for d in days], marker="o", label="accuracy")
    axes.plot(xs, [d["brier_skill"] for d in days], marker="s", label="Brier skill score")
    axes.axhline(0.0, color="grey", linewidth=0.8)
    axes.set_xlabel(f"day of the simulation (0 = {days[0]['day']})" if days else "day")
    axes.set_title(f"FutureSim replay{': ' + label if label else ''}")
    axes.legend(loc="best")
    figure.tight_layout()
    # Laid out once: with tight_layout's placeholder engine still set, savefig draws the whole figure in a
    # dry run before the real draw. The layout is the one just computed, so the bytes are the same.
    figure.set_layout_engine(None)
    with atomic_path(path) as staging:
        figure.savefig(staging, format="png", metadata={"Software": None})
    plt.close(figure)
