"""Statistics of the complex-event dataset with DuckDB, in the shape of the OpenForecast paper's tables.

Table 1 (per origin: complex events, atomic events, atomic events per complex event, date range),
Table 4 (complex events, atomic events and samples of each task per split), the topic distribution
and the atomic-events-per-complex-event histogram (the paper's Figure 8).
"""

from __future__ import annotations

import csv
import io
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module
from almanac.core.markdown import markdown_table
from almanac.events.samples import SPLITS, TASKS
from almanac.reports.views import parquet_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

ORIGINS = ("wikipedia", "wcep")
TABLE4_TASKS = ("aqa", "stf", "ltf", "mcnc", "mcac", "vqa")  # the paper's row order
ATOMIC_EVENT_BINS = (5, 10, 15, 20, 30, 50, 100)


def event_statistics(timelines: Path, splits_dir: Path) -> dict[str, Any]:
    con = duckdb.connect()
    parquet_view(con, "timelines", [timelines])
    for task in TASKS:
        parquet_view(con, task, [splits_dir / split / f"{task}.parquet" for split in SPLITS])
    origins = _origins(con)
    return {
        "origins": origins,
        "by_origin": _by_origin(con, origins),
        "splits": _splits(con),
        "topics": _grid(con, "topic", origins),
        "atomic_events_per_complex_event": _histogram(con, origins),
    }


def _origins(con: duckdb.DuckDBPyConnection) -> list[str]:
    present = {row[0] for row in con.execute("SELECT DISTINCT origin FROM timelines").fetchall()}
    return [origin for origin in ORIGINS if origin in present] + sorted(present - set(ORIGINS))


def _by_origin(con: duckdb.DuckDBPyConnection, origins: list[str]) -> list[dict[str, Any]]:
    """Table 1; the date range covers day-dated atomic events only (coarser dates have no single day)."""
    rows = con.execute(
        """
        WITH ce AS (
            SELECT origin, len(events) AS n,
                   list_min([e.day FOR e IN events IF e.day IS NOT NULL]) AS first,
                   list_max([e.day FOR e IN events IF e.day IS NOT NULL]) AS last
            FROM timelines)
        SELECT coalesce(origin, 'total'), count(*), sum(n), avg(n), min(first), max(last)
        FROM ce GROUP BY ROLLUP (origin)
        """
    ).fetchall()
    by_name = {row[0]: row for row in rows}
    table = []
    for name in [*origins, "total"]:
        row = by_name.get(name)
        if row is None:  # no timelines at all: ROLLUP still gives the total row, with nulls
            continue
        table.append(
            {
                "origin": name,
                "complex_events": int(row[1]),
                "atomic_events": int(row[2] or 0),
                "atomic_events_per_complex_event": round(float(row[3]), 2) if row[3] is not None else None,
                "first_day": row[4].isoformat() if row[4] is not None else None,
                "last_day": row[5].isoformat() if row[5] is not None else None,
            }
        )
    return table


def _splits(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, int]]:
    """Table 4: complex events and atomic events (of those complex events) per split, samples per task."""
    union = " UNION ".join(f"SELECT DISTINCT split, ce_id FROM {task}" for task in TASKS)
    ces = dict(con.execute(f"SELECT split, count(*) FROM ({union}) GROUP BY split").fetchall())
    aes = dict(
        con.execute(
            f"""SELECT s.split, sum(len(t.events)) FROM ({union}) s JOIN timelines t USING (ce_id)
                GROUP BY s.split"""
        ).fetchall()
    )
    table = {
        "complex_events": {split: int(ces.get(split, 0)) for split in SPLITS},
        "atomic_events": {split: int(aes.get(split) or 0) for split in SPLITS},
    }
    for task in TABLE4_TASKS:
        counts = dict(con.execute(f"SELECT split, count(*) FROM {task} GROUP BY split").fetchall())
        table[task] = {split: int(counts.get(split, 0)) for split in SPLITS}
    return table


def _grid(con: duckdb.DuckDBPyConnection, column: str, origins: list[str]) -> list[dict[str, Any]]:
    rows = con.execute(
        f"SELECT {column}, origin, count(*) FROM timelines GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    counts: dict[str, dict[str, int]] = {}
    for value, origin, n in rows:
        counts.setdefault(value, {})[origin] = int(n)
    return [
        {column: value, **{origin: by.get(origin, 0) for origin in origins}, "total": sum(by.values())}
        for value, by in sorted(counts.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    ]


def _histogram(con: duckdb.DuckDBPyConnection, origins: list[str]) -> list[dict[str, Any]]:
    edges = (0, *ATOMIC_EVENT_BINS)
    labels = [f"{lower}-{upper - 1}" for lower, upper in pairwise(edges)] + [f"{edges[-1]}+"]
    cases = " ".join(
        f"WHEN len(events) < {upper} THEN '{label}'"
        for label, (_, upper) in zip(labels[:-1], pairwise(edges), strict=True)
    )
    rows = con.execute(
        f"SELECT CASE {cases} ELSE '{labels[-1]}' END AS bin, origin, count(*) FROM timelines GROUP BY ALL"
    ).fetchall()
    counts = {(label, origin): int(n) for label, origin, n in rows}
    return [
        {
            "atomic_events": label,
            **{origin: counts.get((label, origin), 0) for origin in origins},
            "total": sum(n for (bin_label, _), n in counts.items() if bin_label == label),
        }
        for label in labels
    ]


def event_stats_markdown(stats: dict[str, Any]) -> str:
    origins = stats["origins"]
    splits = stats["splits"]
    row_names = {
        "complex_events": "CEs",
        "atomic_events": "AEs",
        **{task: task.upper() for task in TABLE4_TASKS},
    }
    parts = [
        "# OpenForecast-style complex events",
        "",
        "## Complex and atomic events by origin (cf. paper Table 1)",
        "",
        "Date range: the first and last day-dated atomic event.",
        "",
        markdown_table(
            ["origin", "CEs", "AEs", "AEs per CE", "first day", "last day"],
            [
                [
                    row["origin"],
                    row["complex_events"],
                    row["atomic_events"],
                    row["atomic_events_per_complex_event"]
                    if row["atomic_events_per_complex_event"] is not None
                    else "-",
                    row["first_day"] or "-",
                    row["last_day"] or "-",
                ]
                for row in stats["by_origin"]
            ],
        ),
        "",
        "## Samples per task and split (cf. paper Table 4)",
        "",
        "CEs: complex events with at least one sample in the split; AEs: their atomic events.",
        "",
        markdown_table(
            ["", *SPLITS],
            [[label, *(splits[key][split] for split in SPLITS)] for key, label in row_names.items()],
        ),
        "",
        "## Topics",
        "",
        markdown_table(
            ["topic", *origins, "total"],
            [[row["topic"], *(row[o] for o in origins), row["total"]] for row in stats["topics"]],
        ),
        "",
        "## Atomic events per complex event",
        "",
        markdown_table(
            ["atomic events", *origins, "total"],
            [
                [row["atomic_events"], *(row.get(o, 0) for o in origins), row["total"]]
                for row in stats["atomic_events_per_complex_event"]
            ],
        ),
        "",
    ]
    return "\n".join(parts)


def plot_series(stats: dict[str, Any]) -> dict[str, str]:
    """CSV text per plot file name (reports/plots/openforecast_<name>.csv), for charts outside the DAG."""
    splits = stats["splits"]
    origins = stats["origins"]
    split_rows = [{"row": key, **splits[key]} for key in ("complex_events", "atomic_events", *TABLE4_TASKS)]
    origin_fields = ["origin", "complex_events", "atomic_events", "atomic_events_per_complex_event"]
    return {
        "openforecast_splits.csv": _csv(split_rows, ["row", *SPLITS]),
        "openforecast_topics.csv": _csv(stats["topics"], ["topic", *origins, "total"]),
        "openforecast_atomic_events_per_ce.csv": _csv(
            stats["atomic_events_per_complex_event"], ["atomic_events", *origins, "total"]
        ),
        "openforecast_origins.csv": _csv(stats["by_origin"], [*origin_fields, "first_day", "last_day"]),
    }


def _csv(rows: list[dict[str, Any]], fields: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
