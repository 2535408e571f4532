"""Write a ``Report`` to a folder: metrics.json, report.md, plots/<name>.csv and figures/<name>.png, and for
the whole dataset summary.json and panels/<name>.png."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from almanac.core.io import write_text
from almanac.core.markdown import markdown_table
from almanac.core.metrics import write_metrics
from almanac.reports.figures import render_figure, render_panel
from almanac.reports.model import Report, Series, Table


def write_report(report: Report, folder: str | Path, figures: bool = True) -> list[Path]:
    """Every file of the report under ``folder``; returns the paths written, in a fixed order."""
    root = Path(folder)
    written = [root / "metrics.json", root / "report.md"]
    write_metrics(report.metrics, written[0])
    write_text(report_markdown(report), written[1])
    for series in report.series:
        csv_path = root / "plots" / f"{series.name}.csv"
        write_text(series_csv(series), csv_path)
        written.append(csv_path)
        if figures:
            png_path = root / "figures" / f"{series.name}.png"
            render_figure(series, png_path)
            written.append(png_path)
    if report.summary is not None:
        written.append(root / "summary.json")
        write_metrics(report.summary, written[-1])
    for panel in report.panels if figures else ():
        png_path = root / "panels" / f"{panel.name}.png"
        render_panel(panel, [report.series_named(name) for name in panel.series], png_path)
        written.append(png_path)
    return written


def series_csv(series: Series) -> str:
    fields = [series.x, *([series.group] if series.group else []), series.y]
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(series.rows)
    return buffer.getvalue()


def tables_markdown(tables: tuple[Table, ...], level: int = 2) -> str:
    parts: list[str] = []
    for table in tables:
        parts += [f"{'#' * level} {table.title}", ""]
        if table.note:
            parts += [table.note, ""]
        parts += [markdown_table(table.headers, table.rows) if table.rows else "(none)", ""]
    return "\n".join(parts)


def report_markdown(report: Report) -> str:
    scope = ", ".join(report.months) if report.months else "all months"
    parts = [f"# {report.style} statistics ({scope})", ""]
    if report.authorship:
        parts += [report.authorship, ""]
    parts += [f"- {note}" for note in report.notes]
    if report.notes:
        parts.append("")
    example = (report.example,) if report.example else ()
    parts.append(tables_markdown((*example, *report.tables)))
    return "\n".join(parts).rstrip() + "\n"
