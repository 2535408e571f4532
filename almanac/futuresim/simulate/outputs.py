"""The simulation's readable outputs: ``daily.csv`` (one row per completed day), ``summary.json`` and
``daily.png`` (accuracy and Brier skill score over the days), rewritten after every day."""

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
    _figure(days, folder / "daily.png", label)


def _figure(days: Sequence[dict[str, Any]], path: Path, label: str) -> None:
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
    with atomic_path(path) as staging:
        figure.savefig(staging, format="png", metadata={"Software": None})
    plt.close(figure)
