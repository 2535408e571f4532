"""The FutureSim question funnel: released OpenForesight questions -> date repair -> answerability.

Counts come from the two stages' metrics files (almanac.reports.funnel reads and chains them: a
question that went missing without a reject row is an error), the split grid from the question set.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from almanac.core.markdown import markdown_table
from almanac.futuresim.recipe import RECIPE
from almanac.reports.foresight_funnel import split_rows
from almanac.reports.funnel import FunnelStep, chained_funnel, chained_records

# The question filters of the recipe (the corpus export before them counts articles, not questions).
QUESTION_FILTERS: Final = ("futuresim_repair", "futuresim_answerability")
FUTURESIM_FUNNEL: Final = tuple(
    FunnelStep(step.stage, step.label, step.unit, step.per_month)
    for step in RECIPE.funnel()
    if step.stage in QUESTION_FILTERS
)
SOURCE_LABEL = "Released OpenForesight questions"


def futuresim_funnel(metrics_dir: Path, question_files: list[Path]) -> tuple[str, dict[str, Any]]:
    """The funnel as Markdown and as JSON (counts and shares of the released questions)."""
    rows = chained_funnel(FUTURESIM_FUNNEL, [], metrics_dir)
    splits = split_rows(question_files)
    released = rows[0]["items_in"] if rows else 0
    stage_lines = [[SOURCE_LABEL, f"{released:,}"]] + [
        [row["label"], f"{row['count']:,} ({row['share']:.1%})"] for row in rows
    ]
    reject_lines = [
        [row["label"], reason, count] for row in rows for reason, count in row["rejected_by_reason"].items()
    ]
    split_lines = [[row["split"], row["resolution_month"], row["questions"]] for row in splits]
    markdown = "\n".join(
        [
            "# FutureSim question funnel",
            "",
            "Questions remaining after each filter, as a share of the released OpenForesight questions.",
            "",
            markdown_table(["Stage", "Number (% of released)"], stage_lines),
            "",
            "## Rejected by reason",
            "",
            markdown_table(["Stage", "Reason", "Rejected"], reject_lines),
            "",
            "## Questions per split and (repaired) resolution month",
            "",
            markdown_table(["Split", "Resolution month", "Questions"], split_lines),
            "",
        ]
    )
    metrics = {
        "released": released,
        "final": rows[-1]["count"] if rows else 0,
        "stages": chained_records(rows),
        "questions_by_split_month": splits,
    }
    return markdown, metrics
