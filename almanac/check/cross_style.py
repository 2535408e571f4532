"""Cross-style contamination: no evaluation row of one style repeats a training row of another.

``almanac check all`` runs it over everything released. A row is compared with the rows other styles
released in an earlier-ranked split (train < validation < test; FutureX tiers and MIRAI queries are
test): the near-duplicate test is ``almanac.crossstyle.near_duplicates`` (question text, or answer + event).
A near-duplicate passes only when ``check.cross_style.action`` is ``mark`` and the row carries the
reason in its ``cross_style_duplicate`` column; under ``exclude`` the build stage should have dropped
it, so its presence fails. One invariant per evaluating style, each with its row count.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from almanac.check.report import StyleReport
from almanac.crossstyle.near_duplicates import SPLIT_RANK, CrossStyleConfig, ReleasedRow, TrainingIndex

Checked = Iterator[tuple[str, str | None]]
EVALUATING = ("openforesight", "openforecast", "mirai", "futuresim", "futurex")


def check_cross_style(
    rows: Sequence[ReleasedRow],
    marks: Mapping[tuple[str, str], str | None],
    config: CrossStyleConfig,
    scope: str = "all",
) -> StyleReport:
    """``marks``: (style, row_id) -> the row's ``cross_style_duplicate`` value, where it has that column."""
    report = StyleReport("cross_style", scope, rows=len(rows))
    index = TrainingIndex(rows, config)
    for style in EVALUATING:
        evaluated = [row for row in rows if row.style == style and row.rank > SPLIT_RANK["train"]]
        report.check(
            f"no_training_repeat_{style}",
            f"no {style} validation/test row near-duplicates another style's earlier-split row",
            _repeats(evaluated, index, marks, config),
        )
    return report


def _repeats(
    rows: Sequence[ReleasedRow],
    index: TrainingIndex,
    marks: Mapping[tuple[str, str], str | None],
    config: CrossStyleConfig,
) -> Checked:
    for row in rows:
        why = index.duplicate_of(row)
        if why is not None and config.action == "mark" and marks.get((row.style, row.row_id)):
            why = None
        elif why is not None:
            why = f"{why}; {'not marked' if config.action == 'mark' else 'not excluded'}"
        yield f"{row.style}/{row.split}/{row.row_id}", why
