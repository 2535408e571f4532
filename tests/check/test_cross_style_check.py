"""`almanac check all`: an evaluation row that repeats another style's training row fails, unless marked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from almanac.check import run
from almanac.check.cross_style import check_cross_style
from almanac.check.report import StyleReport
from almanac.core.io import write_parquet
from almanac.crossstyle.near_duplicates import CrossStyleConfig, ReleasedRow, content_words, jaccard

URL = "https://t.example/2025/06/07/final"
TRAIN = ReleasedRow(
    "openforesight", "train", "q-train", "Which club will win the Northern Cup by June 7, 2025?", "Kessling United",
    urls=(URL,),
)  # fmt: skip
# An OpenForecast test question: the train question a date apart.
SAME_TEXT = ReleasedRow(
    "openforecast", "test", "s-aqa", "Which club will win the Northern Cup on June 8, 2025?", "x"
)
# A FutureX question worded otherwise, with the same answer, from the same article.
SAME_EVENT = ReleasedRow("futurex", "test", "fx-1", "Who will lift the trophy at Harbour Park?", "Kessling United",
                         urls=(URL,))  # fmt: skip
# Clean rows: a MIRAI query, and a FutureX question with the same answer about another event.
CLEAN = [
    ReleasedRow("mirai", "test", "m-1", "(2025-06-07, USA, ?, CHN)", "042"),
    ReleasedRow(
        "futurex", "test", "fx-2", "Who will top the Coastal League table by May 3, 2025?", "Kessling United"
    ),
    # Same style as the train row: within-style repeats are the style's own checks, not this one.
    ReleasedRow(
        "openforesight", "test", "q-test", "Which club will win the Northern Cup by June 7, 2025?", "y"
    ),
    # Validation against validation: neither is material a lab fits before the other.
    ReleasedRow(
        "openforecast", "validation", "s-val", "Who will chair the Harbour Board in May 2025?", "Ann Lee"
    ),
    ReleasedRow(
        "futuresim", "validation", "fs-val", "Who will chair the Harbour Board by May 9, 2025?", "Ann Lee"
    ),
]


def failures(report: StyleReport) -> dict[str, set[str]]:
    return {result.name: set(result.failures) for result in report.violated}


def test_content_word_jaccard_by_hand() -> None:
    # {club, win, northern, cup, june, 7, 2025} vs {... june, 8, 2025}: 6 shared of 8.
    assert jaccard(content_words(TRAIN.question), content_words(SAME_TEXT.question)) == pytest.approx(6 / 8)


def test_a_repeated_question_and_a_repeated_answer_and_event_fail() -> None:
    rows = [TRAIN, SAME_TEXT, SAME_EVENT, *CLEAN]
    report = check_cross_style(rows, {}, CrossStyleConfig())
    assert failures(report) == {
        "no_training_repeat_openforecast": {"openforecast/test/s-aqa"},
        "no_training_repeat_futurex": {"futurex/test/fx-1"},
    }
    why = report.invariants["no_training_repeat_futurex"].failures["futurex/test/fx-1"]
    assert "answer 'Kessling United'" in why and "q-train" in why and "not excluded" in why
    # Every evaluation row is counted under its style (train rows are not evaluated).
    assert report.invariants["no_training_repeat_futurex"].checked == 2
    assert report.invariants["no_training_repeat_openforesight"].checked == 1
    assert report.summary()["invariants"]["no_training_repeat_openforecast"] == {
        "checked": 2,
        "violations": 1,
    }


def test_mark_mode_passes_only_marked_rows() -> None:
    rows = [TRAIN, SAME_TEXT, SAME_EVENT, *CLEAN]
    marks = {("futurex", "fx-1"): "answer and event repeat openforesight train q-train"}
    report = check_cross_style(rows, marks, CrossStyleConfig(action="mark"))
    assert failures(report) == {"no_training_repeat_openforecast": {"openforecast/test/s-aqa"}}
    # Under exclude a marked row is still a row that should have been dropped.
    assert "no_training_repeat_futurex" in failures(check_cross_style(rows, marks, CrossStyleConfig()))


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    write_parquet(pa.Table.from_pylist(rows), path)


def test_check_all_reads_every_style_and_reports_cross_style_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = {"question_id": "q-train", "split": "train", "question_title": TRAIN.question, "answer": TRAIN.answer,
             "article_title": "Final", "url": URL}  # fmt: skip
    _write(tmp_path / "data/foresight/splits/train/2025-04.parquet", [train])
    tier = {"question_id": "fx-1", "question": TRAIN.question, "answers": ["Kessling United"],
            "resolution_source": URL, "cross_style_duplicate": None}  # fmt: skip
    _write(tmp_path / "data/futurex/tiers/level3.parquet", [tier])
    monkeypatch.setattr(run, "check_style", lambda style, *args: StyleReport(style, "all"))
    reports = run.run_checks(list(run.STYLES), "all", {}, tmp_path)
    assert [report.style for report in reports] == [*run.STYLES, "cross_style"]
    assert failures(reports[-1]) == {"no_training_repeat_futurex": {"futurex/test/fx-1"}}
    assert any("FAIL  no_training_repeat_futurex" in line for line in reports[-1].lines())
    # Marked in its column, under check.cross_style.action: mark, it passes.
    _write(
        tmp_path / "data/futurex/tiers/level3.parquet", [{**tier, "cross_style_duplicate": "repeats q-train"}]
    )
    params = {"check": {"cross_style": {"action": "mark"}}}
    assert run.run_checks(list(run.STYLES), "all", params, tmp_path)[-1].ok
    # One style asked for: no cross-style report.
    assert [report.style for report in run.run_checks(["futurex"], "all", {}, tmp_path)] == ["futurex"]
