"""Small hand-made split files and stage metrics shared by the OpenForesight report tests."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from almanac.core.io import write_json, write_parquet
from almanac.core.schemas import table_from_rows
from almanac.foresight.schema import QUESTION_SCHEMA, RELEASED_COLUMNS

RELEASED_SCHEMA = pa.schema([QUESTION_SCHEMA.field(name) for name in RELEASED_COLUMNS])
MONTHS = ("2025-01", "2025-02", "2025-03")
# (items_in, items_out, rejected_by_reason, extra metrics keys)
Counts = tuple[int, int, dict[str, int], dict[str, Any]]
PARAMS = {"months": list(MONTHS), "foresight": {"split": {"cross_question_leakage": "flag"}}}


def released(
    question_id: str,
    split: str,
    title: str,
    answer: str,
    start: date,
    resolved: date,
    source: str = "a.example",
    answer_class: str | None = "name",
    leak: bool = False,
) -> dict[str, Any]:
    return {
        "question_id": question_id,
        "question_title": title,
        "background": "Some background.",
        "resolution_criteria": "Resolves by the news.",
        "answer": answer,
        "answer_type": "string (name)",
        "answer_class": answer_class,
        "question_start_date": start,
        "resolution_date": resolved,
        "url": f"https://{source}/{question_id}",
        "article_title": "Headline",
        "article_publish_date": datetime(resolved.year, resolved.month, resolved.day, tzinfo=UTC),
        "news_source": source,
        "article_id": f"art-{question_id}",
        "split": split,
        "cross_question_leak": leak,
        "generator_model": "gen",
        "validator_model": "val",
    }


# Words: titles 9, 5, 10, 5; answers 2, 1, 3, 2; horizons 7, 30, 10, 3 days.
SPLIT_FILES = {
    "train/2025-01": [
        released("q1", "train", "Who will win the cup by January 9, 2025?", "Ada Lovelace",
                 date(2025, 1, 2), date(2025, 1, 9)),
        released("q2", "train", "Which firm will buy Acme?", "Globex", date(2025, 1, 1), date(2025, 1, 31),
                 source="b.example", answer_class="organization", leak=True),
    ],
    "validation/2025-02": [
        released("q3", "validation", "Where will the summit be held by February 20, 2025?",
                 "Port Alder City", date(2025, 2, 10), date(2025, 2, 20), answer_class="location"),
    ],
    "test/2025-03": [
        released("q4", "test", "Who  will\tlead the  party?", "  Mira Okafor ", date(2025, 3, 1),
                 date(2025, 3, 4), answer_class=None),
    ],
}  # fmt: skip

# stage -> month -> counts; chained within each month (validate reads what qgen generated, ...).
PER_MONTH: dict[str, dict[str, Counts]] = {
    "foresight_qgen": {
        "2025-01": (4, 3, {"no_question": 1}, {"candidates": 8}),
        "2025-02": (3, 2, {"no_question": 1}, {"candidates": 5}),
        "2025-03": (2, 1, {"no_question": 1}, {"candidates": 2}),
    },
    "foresight_validate": {
        "2025-01": (8, 6, {"invalid": 2}, {}),
        "2025-02": (5, 5, {}, {}),
        "2025-03": (2, 2, {}, {}),
    },
    "foresight_select": {
        "2025-01": (6, 5, {"not_selected": 1}, {}),
        "2025-02": (5, 4, {"not_selected": 1}, {}),
        "2025-03": (2, 2, {}, {}),
    },
    "foresight_leakage": {
        "2025-01": (5, 3, {"answer_leak_exact": 1, "answer_leak_alias": 1}, {"edited_by_llm": 2}),
        "2025-02": (4, 3, {"llm_failed": 1}, {"edited_by_llm": 1}),  # not a re-scan drop
        "2025-03": (2, 2, {}, {"edited_by_llm": 0}),
    },
    "foresight_answer_type": {
        "2025-01": (3, 3, {}, {}),
        "2025-02": (3, 2, {"disallowed_answer_class": 1}, {}),
        "2025-03": (2, 2, {}, {}),
    },
    "foresight_dates": {
        "2025-01": (3, 2, {"unparseable_date": 1}, {}),
        "2025-02": (2, 2, {}, {}),
        "2025-03": (2, 1, {"unparseable_date": 1}, {}),
    },
}
GLOBAL: dict[str, Counts] = {
    "foresight_question_dedup": (5, 4, {"near_duplicate_question": 1}, {"candidate_pairs": 3, "verified_pairs": 1}),
    "foresight_split": (4, 4, {}, {"cross_question_leaks": 1}),
    "dedup": (
        50,
        40,
        {"duplicate_id": 2, "near_duplicate": 3, "publish_month_out_of_scope": 5},
        {"candidate_pairs": 4, "verified_pairs": 3, "dedup_rate": 0.1111},
    ),
}  # fmt: skip


def stage_metrics(stage: str, counts: Counts) -> dict[str, Any]:
    items_in, items_out, by_reason, extra = counts
    assert items_in == items_out + sum(by_reason.values()), stage
    return {
        "stage": stage,
        "items_in": items_in,
        "items_out": items_out,
        "rejected": sum(by_reason.values()),
        "rejected_by_reason": by_reason,
        "seconds": 0.25,
        **extra,
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name, rows in SPLIT_FILES.items():
        write_parquet(table_from_rows(rows, RELEASED_SCHEMA), f"data/foresight/splits/{name}.parquet")
    for stage, months in PER_MONTH.items():
        for month, counts in months.items():
            write_json(stage_metrics(stage, counts), f"reports/metrics/{stage}/{month}.json")
    for stage, counts in GLOBAL.items():
        write_json(stage_metrics(stage, counts), f"reports/metrics/{stage}.json")
    return tmp_path
