"""DuckDB statistics over released OpenForecast-style samples: counts, text lengths, horizons, trimming.

The six tasks have different columns, so every (task, split) table is first reduced to one common row
per sample (``samples``) and one row per dated event that resolves it (``horizons``); all statistics
are plain SQL over those two tables. What stands for a task's "question" and "answer" is in ``TEXTS``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from almanac.core.lazy import lazy_module
from almanac.events.samples import SPLITS
from almanac.reports.distributions import SUMMARY_SQL, summary_row
from almanac.reports.event_stats import TABLE4_TASKS
from almanac.reports.styles import TableKey
from almanac.reports.views import table_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

TASK_ORDER = TABLE4_TASKS  # the OpenForecast paper's task order, as in the event_stats tables


@dataclass(frozen=True)
class TaskText:
    question: str  # SQL over the task's columns
    question_is: str  # what that text is, for the report
    answer: str
    answer_is: str


_TITLE = "ce_title"
_TITLE_IS = "complex event title (the implicit question: what happens next in it?)"
_TARGETS = "array_to_string([e.text FOR e IN targets], ' ')"
TEXTS: dict[str, TaskText] = {
    "stf": TaskText(_TITLE, _TITLE_IS, _TARGETS, "texts of the target events dated on the cut day, joined"),
    "ltf": TaskText(_TITLE, _TITLE_IS, _TARGETS, "texts of all (kept) target events, joined"),
    "aqa": TaskText("question", "question", "answer", "answer (gold argument value)"),
    "mcnc": TaskText(_TITLE, _TITLE_IS, "target.text", "gold option (target event text)"),
    "mcac": TaskText("question", "question", "answer", "gold option (argument value)"),
    "vqa": TaskText(_TITLE, _TITLE_IS, "candidate", "candidate event judged Yes/No"),
}
# The events whose calendar day resolves a sample; VQA has no dated event of its own.
HORIZON_EVENTS = {
    "stf": "targets",
    "ltf": "targets",
    "aqa": "[target]",
    "mcnc": "[target]",
    "mcac": "[target]",
}
WORD_EDGES = (0, 3, 6, 11, 21, 41, 81, 161)
HORIZON_EDGES = (0, 1, 8, 31, 91, 181, 366)

_SCHEMA = """
CREATE MACRO words(s) AS len(regexp_extract_all(coalesce(s, ''), '\\S+'));
CREATE TABLE samples (sample_id VARCHAR, task VARCHAR, split VARCHAR, ce_id VARCHAR, origin VARCHAR,
    topic VARCHAR, month VARCHAR, question_words INTEGER, answer_words INTEGER, targets_trimmed INTEGER,
    negatives_discarded INTEGER);
CREATE TABLE horizons (task VARCHAR, split VARCHAR, sample_id VARCHAR, days INTEGER);
"""


def load_samples(tables: Mapping[TableKey, pa.Table]) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection holding ``samples`` and ``horizons`` built from the (task, split) tables."""
    con = duckdb.connect()
    con.execute(_SCHEMA)
    for index, (key, table) in enumerate(sorted(tables.items())):
        task, split = key.config, key.split
        if task not in TEXTS:
            raise ValueError(f"openforecast report: unknown task file {split}/{task}.parquet")
        name = f"released_{index}"
        table_view(con, name, table)
        optional = [
            column if column in table.column_names else "NULL"
            for column in ("targets_trimmed", "negatives_discarded")
        ]
        text = TEXTS[task]
        con.execute(
            f"""INSERT INTO samples SELECT sample_id, $task, $split, ce_id, origin, topic,
                strftime(cut_date, '%Y-%m'), words({text.question}), words({text.answer}),
                {optional[0]}, {optional[1]} FROM {name}""",
            {"task": task, "split": split},
        )
        if task in HORIZON_EVENTS:
            con.execute(
                f"""INSERT INTO horizons SELECT $task, $split, sample_id, date_diff('day', cut_date, e.day)
                    FROM (SELECT sample_id, cut_date, unnest({HORIZON_EVENTS[task]}) AS e FROM {name})""",
                {"task": task, "split": split},
            )
        con.unregister(name)
    return con


def ordered(values: Iterable[str], preferred: Sequence[str]) -> list[str]:
    """``preferred`` first (all of them), then any other value sorted."""
    present = set(values)
    return [*preferred, *sorted(present - set(preferred))]


def splits(con: duckdb.DuckDBPyConnection) -> list[str]:
    return ordered((row[0] for row in con.execute("SELECT DISTINCT split FROM samples").fetchall()), SPLITS)


def tasks(con: duckdb.DuckDBPyConnection) -> list[str]:
    return ordered(
        (row[0] for row in con.execute("SELECT DISTINCT task FROM samples").fetchall()), TASK_ORDER
    )


def counts_by(
    con: duckdb.DuckDBPyConnection, column: str, known: Sequence[str] = ()
) -> dict[str, dict[str, dict[str, int]]]:
    """value -> split -> {"samples", "complex_events"}; every split, and ``known`` values even at zero."""
    rows = con.execute(
        f"SELECT {column}, split, count(*), count(DISTINCT ce_id) FROM samples GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    found = {(str(value), str(split)): (int(n), int(ces)) for value, split, n, ces in rows}
    return {
        value: {
            split: dict(zip(("samples", "complex_events"), found.get((value, split), (0, 0)), strict=True))
            for split in splits(con)
        }
        for value in ordered((value for value, _ in found), known)
    }


def totals_by(
    con: duckdb.DuckDBPyConnection, column: str, known: Sequence[str] = ()
) -> dict[str, dict[str, int]]:
    """value -> {"samples", "complex_events"} over every split (a complex event counted once)."""
    rows = con.execute(
        f"SELECT {column}, count(*), count(DISTINCT ce_id) FROM samples GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    found = {str(value): (int(n), int(ces)) for value, n, ces in rows}
    return {
        value: dict(zip(("samples", "complex_events"), found.get(value, (0, 0)), strict=True))
        for value in ordered(found, known)
    }


def distribution(con: duckdb.DuckDBPyConnection, table: str, column: str) -> dict[str, dict[str, Any]]:
    """task (and "all") -> count, mean, median, p90, max of a non-null integer column."""
    rows = con.execute(
        f"SELECT task, {SUMMARY_SQL} FROM (SELECT task, {column}::DOUBLE AS v FROM {table}) "
        "WHERE v IS NOT NULL GROUP BY GROUPING SETS ((task), ())"
    ).fetchall()
    found = {("all" if row[0] is None else str(row[0])): row[1:] for row in rows}
    return {
        task: summary_row(found.get(task, (0, None, None, None, None)))
        for task in [*task_list(con, table), "all"]
    }


def task_list(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    """The tasks a measure is reported for: every task, or only those with dated events for horizons."""
    every = tasks(con)
    return every if table == "samples" else [task for task in every if task in HORIZON_EVENTS]


def bins(edges: Sequence[int]) -> list[tuple[str, int, int | None]]:
    """(label, lower, upper exclusive or None) for each bin starting at an edge; "5-9", "0", "161+"."""
    uppers: list[int | None] = [*edges[1:], None]
    return [
        (
            f"{lower}+" if upper is None else f"{lower}" if upper == lower + 1 else f"{lower}-{upper - 1}",
            lower,
            upper,
        )
        for lower, upper in zip(edges, uppers, strict=True)
    ]


def histogram(
    con: duckdb.DuckDBPyConnection, table: str, column: str, edges: Sequence[int]
) -> list[tuple[str, str, int]]:
    """(bin label, task, count) for every bin and reported task; values below the first edge get a bin
    "<edge" only when there are any."""
    cases = " ".join(
        f"WHEN {column} < {upper} THEN '{label}'" for label, _, upper in bins(edges) if upper is not None
    )
    below = f"<{edges[0]}"
    rows = con.execute(
        f"""SELECT CASE WHEN {column} < {edges[0]} THEN '{below}' {cases} ELSE '{bins(edges)[-1][0]}' END,
                   task, count(*)
            FROM {table} WHERE {column} IS NOT NULL GROUP BY ALL"""
    ).fetchall()
    counts = {(str(label), str(task)): int(n) for label, task, n in rows}
    labels = [label for label, _, _ in bins(edges)]
    if any(label == below for label, _ in counts):
        labels.insert(0, below)
    return [(label, task, counts.get((label, task), 0)) for label in labels for task in task_list(con, table)]


def undated_targets(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """task -> target events with no calendar day (month/year/unknown precision), left out of horizons."""
    rows = dict(
        con.execute("SELECT task, count(*) FROM horizons WHERE days IS NULL GROUP BY task").fetchall()
    )
    return {task: int(rows.get(task, 0)) for task in task_list(con, "horizons")}


def trimming(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """STF/LTF samples whose targets were cut short so no train/validation label reaches the test period;
    per task and over both (STF targets lie on the cut day, so only LTF can be trimmed)."""
    rows = con.execute(
        """SELECT task, count(*), count(*) FILTER (WHERE targets_trimmed > 0),
                  coalesce(sum(targets_trimmed), 0)
           FROM samples WHERE targets_trimmed IS NOT NULL GROUP BY GROUPING SETS ((task), ())"""
    ).fetchall()
    found = {("all" if row[0] is None else str(row[0])): row[1:] for row in rows}
    result: dict[str, Any] = {}
    for task in [*(task for task in tasks(con) if task in ("stf", "ltf")), "all"]:
        checked, trimmed, events = (int(value) for value in found.get(task, (0, 0, 0)))
        result[task] = {
            "samples_checked": checked,
            "samples_with_trimmed_targets": trimmed,
            "trimmed_rate": round(trimmed / checked, 4) if checked else None,
            "target_events_trimmed": events,
        }
    return result


def released_duplicates(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Repeats among the released samples in scope and MCNC negatives dropped as equal to a true event."""
    row = con.execute(
        """SELECT count(*) - count(DISTINCT sample_id),
                  coalesce(sum(negatives_discarded), 0),
                  count(*) FILTER (WHERE negatives_discarded > 0)
           FROM samples"""
    ).fetchone()
    assert row is not None
    return {
        "duplicate_sample_ids": int(row[0]),
        "mcnc_negatives_discarded": int(row[1]),
        "mcnc_samples_with_discarded_negatives": int(row[2]),
    }
