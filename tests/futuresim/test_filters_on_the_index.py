"""The date repair loop and the answerability filter searching the real FutureSim index (tantivy BM25)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from almanac.core.stage import StageError
from almanac.futuresim.answerability import AnswerabilityConfig, filter_answerable
from almanac.futuresim.filter_io import index_retriever
from almanac.futuresim.repair import RepairConfig, repair_dates
from almanac.llm.cache import LLMCache
from tests.futuresim.helpers import article, index_of
from tests.futuresim.test_question_filters import LLM, TITLE, question

ARTICLES = [
    article("a", "2025-05-19", "The Harbor Council named Maria Lopez as its new chair after the last chair resigned."),
    article("b", "2025-05-12", "Harbor Council members said Maria Lopez will be the new chair."),
    # Crawled on 05-08 with no stated day: available (and dated) 05-08, the latest it may have appeared.
    article("u", "2025-05-08", "Maria Lopez is the favourite to chair the Harbor Council.", precision="upper_bound"),
    article("late", "2025-06-02", "Maria Lopez chaired her first Harbor Council meeting as chair."),
]  # fmt: skip


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return index_of(ARTICLES, tmp_path / "index")


@pytest.fixture
def cache(tmp_path: Path) -> Any:
    with LLMCache(tmp_path / "llm.sqlite") as opened:
        yield opened


def test_index_retriever_keeps_the_cap_and_dates_chunks_by_their_available_day(index: Path) -> None:
    retriever = index_retriever({}, index)
    found = retriever.search(TITLE, date(2025, 5, 12), 10)
    assert {(chunk.article_id, chunk.publish_date) for chunk in found} == {
        ("b", date(2025, 5, 12)),
        ("u", date(2025, 5, 8)),
    }


def test_repair_on_the_index_moves_to_the_first_report_before_the_cap(index: Path, cache: LLMCache) -> None:
    evidence: list[dict[str, Any]] = []
    kept, ledger = repair_dates(
        [question("q")], {"validation": date(2025, 5, 1)}, index_retriever({}, index),
        RepairConfig(passes=3, k=5), LLM, cache, evidence,
    )  # fmt: skip
    # Pass 1 (cap 05-20) sees a, b, u -> 05-08; pass 2 (cap 05-08) sees u alone -> 05-08: settled.
    assert kept[0]["resolution_date"] == date(2025, 5, 8) and kept[0]["repair_moves"] == 1
    assert ledger.extra["passes_run"] == 2
    assert "late" not in {row["article_id"] for row in evidence}
    assert all(row["publish_date"] <= row["cap_date"] for row in evidence)


def test_answerability_on_the_index(index: Path, cache: LLMCache) -> None:
    fair = question("q-fair", resolution=date(2025, 5, 20))
    noise = question("q-noise", answer="Carla Diaz", resolution=date(2025, 5, 20))
    kept, ledger = filter_answerable(
        [fair, noise], index_retriever({}, index), AnswerabilityConfig(), LLM, cache, []
    )
    assert [row["question_id"] for row in kept] == ["q-fair"]
    assert ledger.rejected_by_reason == {"likely_label_noise": 1}


def test_no_index_is_a_one_line_stage_error(tmp_path: Path) -> None:
    with pytest.raises(StageError, match="run `dvc repro futuresim_index` first"):
        index_retriever({}, tmp_path / "missing")
