"""A small built project with released splits and reports, shared by the release-folder tests."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.ids import content_id
from almanac.reports import publish as publish_module
from almanac.reports.model import Report, Series, Table
from almanac.reports.scope import ReportScope

MONTHS = ["2025-04", "2025-05"]


def _questions(split: str, month: str, ids: list[str], hashed: bool = False) -> pa.Table:
    """Released split rows; ``hashed`` makes each id the project's content hash (for the round trip)."""
    day = date(int(month[:4]), int(month[5:]), 10)
    titles = [f"Who will win contest {i} by the end of {month}?" for i in ids]
    answers = [f"Person {i}" for i in ids]
    article_ids = [f"art-{i}" for i in ids]
    if hashed:
        ids = [content_id(a, t, x) for a, t, x in zip(article_ids, titles, answers, strict=True)]
    return pa.table(
        {
            "question_id": ids,
            "question_title": titles,
            "background": [f"Question start date: {month}-01. Contest {i} is under way." for i in ids],
            "resolution_criteria": ["Source of truth: the organisers.\nResolution date: as in the title."]
            * len(ids),
            "answer": answers,
            "answer_type": ["string (name)"] * len(ids),
            "answer_class": ["name"] * len(ids),
            "question_start_date": pa.array([day.replace(day=1)] * len(ids), pa.date32()),
            "resolution_date": pa.array([day] * len(ids), pa.date32()),
            "url": [f"https://news.example/{i}" for i in ids],
            "article_title": [f"Winner of contest {i} named" for i in ids],
            "article_publish_date": pa.array(
                [datetime(day.year, day.month, day.day, 15, 30, tzinfo=UTC)] * len(ids),
                pa.timestamp("s", "UTC"),
            ),
            "news_source": ["news.example"] * len(ids),
            "article_id": article_ids,
            "split": [split] * len(ids),
            "cross_question_leak": [False] * len(ids),
            "generator_model": ["m-gen"] * len(ids),
            "validator_model": ["m-val"] * len(ids),
        }
    )


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    build_project(tmp_path)
    monkeypatch.setattr(publish_module, "build_style_report", _fake_report)
    return tmp_path


def build_project(tmp_path: Path) -> None:
    """The project's files in ``tmp_path``: splits, articles, params.yaml, dvc.lock."""
    splits = tmp_path / "data/foresight/splits"
    (splits / "train").mkdir(parents=True)
    (splits / "test").mkdir(parents=True)
    pq.write_table(_questions("train", "2025-04", ["a1", "a2", "a3"]), splits / "train/2025-04.parquet")
    pq.write_table(_questions("test", "2025-05", ["b1", "b2"]), splits / "test/2025-05.parquet")
    articles = tmp_path / "data/articles"
    articles.mkdir(parents=True)
    for month, ids in (("2025-04", ["a1", "a2", "a3", "zz"]), ("2025-05", ["b1", "b2"])):
        pq.write_table(
            pa.table(
                {
                    "id": [f"art-{i}" for i in ids],
                    "url": [f"https://news.example/{i}" for i in ids],
                    "source_domain": ["news.example"] * len(ids),
                    "title": [f"Story {i}" for i in ids],
                    "publish_date": pa.array(
                        [datetime(2025, 4, 1, tzinfo=UTC)] * len(ids), pa.timestamp("ms", "UTC")
                    ),
                    "word_count": pa.array([120] * len(ids), pa.int32()),
                    "text": [f"Full text of story {i}." for i in ids],
                }
            ),
            articles / f"{month}.parquet",
        )
    (tmp_path / "params.yaml").write_text(
        yaml.safe_dump(
            {
                "months": MONTHS,
                "dedup": {"ngram": 5, "threshold": 0.6},
                "llm": {
                    "prompts_dir": "prompts",
                    "roles": {"generator": {"backend": "offline", "model": "m-gen"}},
                },
                "foresight": {
                    "question_dedup": {"threshold": 0.5},
                    "split": {"test_month_count": 0, "validation_month_count": 0},
                },
                "publish": {"licenses": {"openforesight": "other"}, "maintainers": "test lab"},
            }
        )
    )
    (tmp_path / "dvc.lock").write_text(
        yaml.safe_dump(
            {
                "schema": "2.0",
                "stages": {
                    "foresight_month@2025-04": {"cmd": "q4"},
                    "foresight_month@2025-05": {"cmd": "q5"},
                    "foresight_split": {"cmd": "s"},
                    "gdelt_clean": {"cmd": "g"},
                },
            }
        )
    )


def _fake_report(style: object, scope: ReportScope) -> Report:
    # The style builders have their own tests; here only how a report lands in the folder matters.
    series = Series(
        "answer_types",
        "Answer types",
        "answer_class",
        "questions",
        ({"answer_class": "person", "questions": 5},),
    )
    table = Table("Questions per split", ("Split", "Questions"), (("train", 3), ("test", 2)))
    return Report("openforesight", scope.months, {"questions": 5}, (series,), (table,), ("a note",))


def _params(project: Path) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((project / "params.yaml").read_text())
    return loaded
