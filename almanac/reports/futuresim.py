"""The FutureSim report for ``almanac report`` / ``almanac publish``: the question set and its funnel.

The funnel (released OpenForesight questions -> date repair -> answerability) runs once over the whole
build; its counts come from the ``futuresim_funnel`` stage's metrics (``reports/futuresim_funnel.json``),
so a one-month report says that they cover every month.
"""

from __future__ import annotations

from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import stats_report
from almanac.reports.authorship import authorship_statement, example_question, models_in_rows, role_authors
from almanac.reports.model import Report, Series, Table
from almanac.reports.scope import ReportScope
from almanac.reports.styles import get_style, read_split_tables

FUNNEL_STAGE = "futuresim_funnel"
ROLES = ("generator", "validator", "editor")


def build_report(scope: ReportScope) -> Report:
    style = get_style("futuresim")
    tables = read_split_tables(style, None if scope.whole else scope.months)
    per_split = {key.split: table.num_rows for key, table in tables.items()}
    moved = sum(
        sum(1 for value in table.column("repair_moves").to_pylist() if value)
        for table in tables.values()
        if "repair_moves" in table.column_names
    )
    metrics: dict[str, Any] = {"questions": sum(per_split.values()), "by_split": per_split, "repaired": moved}
    path = stats_report(FUNNEL_STAGE, ".json")
    funnel = read_json(path) if path.is_file() else {}
    stages = funnel.get("stages", [])
    rows = tuple((row["label"], row["items_in"], row["count"], row["rejected"]) for row in stages)
    metrics["funnel"] = {"released": funnel.get("released", 0), "final": funnel.get("final", 0)}
    notes = [
        "The funnel counts run once over every month of the build (`reports/futuresim_funnel.json`)."
        if funnel
        else "No funnel counts: the `futuresim_funnel` stage has not run."
    ]
    authors = role_authors(scope.params, ROLES, models_in_rows(tables))
    return Report(
        style="futuresim",
        months=() if scope.whole else scope.months,
        metrics=metrics,
        series=(
            Series(
                "questions_per_split",
                "Questions per split",
                "split",
                "questions",
                tuple({"split": split, "questions": count} for split, count in per_split.items()),
            ),
        ),
        tables=(
            Table("Questions per split", ("Split", "Questions"), tuple(per_split.items())),
            Table(
                "Question funnel",
                ("Stage", "In", "Kept", "Rejected"),
                rows,
                note=f"From {funnel.get('released', 0)} released OpenForesight questions; "
                f"{moved} questions in this release had their resolution date moved by the repair.",
            ),
        ),
        notes=tuple(notes),
        authorship=authorship_statement(authors) if tables else "",
        example=example_question(tables),
    )
