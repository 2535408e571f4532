"""The FutureX event filters: judge roles and their vote, yes/no down-sampling, the template and per-source-day caps."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

from almanac.futurex.config import FilterConfig
from almanac.futurex.filters import filter_events, flagged_by_vote, is_yes_no
from almanac.futurex.llm_tasks.harmful import harmful_reason
from almanac.futurex.llm_tasks.subjective import subjective_reason
from almanac.futurex.question_forms import is_binary_question, question_template
from almanac.llm.cache import LLMCache
from tests.futurex.events import event, offline_llm


def test_offline_judges_flag_the_papers_examples_and_keep_news_questions() -> None:
    assert subjective_reason("Will we win 100k tomorrow at the mara hackathon?") is not None
    assert subjective_reason("I finish Park's \"Our Nation's Path\" by EOM July?") is not None
    assert subjective_reason("Which film is the best of the year by May 1, 2025?") is not None
    assert subjective_reason("Which club will win the Northern Cup by June 7, 2025?") is None
    assert subjective_reason("Which actions will USA take towards CHN on May 1, 2025?") is None
    assert harmful_reason("Will the senator be assassinated by June 2025?") is not None
    assert harmful_reason("Which club will win the Northern Cup by June 7, 2025?") is None


def test_vote_rules() -> None:
    assert flagged_by_vote(1, 3, "any") and not flagged_by_vote(0, 3, "any")
    assert flagged_by_vote(2, 3, "majority") and not flagged_by_vote(1, 2, "majority")
    assert flagged_by_vote(2, 2, "all") and not flagged_by_vote(1, 2, "all")


def test_each_drop_has_its_step_and_reason(tmp_path: Path) -> None:
    events = [
        event("a"),
        event("b", question="Will we win 100k tomorrow at the mara hackathon?"),
        event("c", question="Will the senator be assassinated by June 2025?"),
        event("d", question="Will the bill pass by June 7, 2025?", answers=["Yes"]),
    ]
    config = FilterConfig(judge_roles=("validator", "editor"), vote="any", yes_no_keep_rate=0.0)
    llm = offline_llm(tmp_path, ("validator", "editor"))
    with LLMCache(llm.cache_path) as cache:
        kept, ledger = filter_events(events, config, 19, llm, cache)
    assert [row["event_id"] for row in kept] == ["a"]
    assert {(r.id, r.reason) for r in ledger.rejects} == {
        ("b", "subjective"),
        ("c", "harmful"),
        ("d", "yes_no_downsampled"),
    }
    assert "2 of 2 roles (any)" in next(r.detail for r in ledger.rejects if r.id == "b")
    assert [(s["step"], s["in"], s["out"]) for s in ledger.metrics()["steps"]] == [
        ("harmful", 4, 3),
        ("subjective", 3, 2),
        ("yes_no", 2, 1),
        ("template_cap", 1, 1),
        ("source_day_cap", 1, 1),
    ]


def test_yes_no_sampling_and_the_cap_do_not_depend_on_order(tmp_path: Path) -> None:
    day = date(2025, 6, 7)
    yes_no = [event(f"y{n}", answers=["No"], news_source=f"s{n}.example") for n in range(40)]
    same_day = [event(f"c{n}", news_source="one.example", source_day=day) for n in range(6)]
    config = FilterConfig(yes_no_keep_rate=0.25, max_per_template=0, max_per_source_day=2)
    llm = offline_llm(tmp_path)
    with LLMCache(llm.cache_path) as cache:
        forward, ledger = filter_events(yes_no + same_day, config, 19, llm, cache)
        backward, _ = filter_events(list(reversed(yes_no + same_day)), config, 19, llm, cache)
    assert sorted(row["event_id"] for row in forward) == sorted(row["event_id"] for row in backward)
    kept_yes_no = [row for row in forward if row["event_id"].startswith("y")]
    assert 0 < len(kept_yes_no) < 40  # about a quarter of 40
    assert sum(1 for row in forward if row["event_id"].startswith("c")) == 2
    capped = [r for r in ledger.rejects if r.reason == "source_day_cap"]
    assert len(capped) == 4 and all(r.related_id for r in capped)
    # No cap: every same-day event stays.
    with LLMCache(llm.cache_path) as cache:
        uncapped, _ = filter_events(same_day, replace(config, max_per_source_day=0), 19, llm, cache)
    assert len(uncapped) == 6


def test_a_yes_no_question_is_recognised_by_its_form_whatever_its_answer_says() -> None:
    assert is_binary_question("Will the court uphold the ban by June 7, 2025? Background follows.")
    assert is_binary_question("Has Kessling United signed a new coach by July 1?")
    assert not is_binary_question("Will Kessling or Oldmere host the 2027 games?")  # an alternative
    assert not is_binary_question("Which club will win the Northern Cup by June 7, 2025?")
    assert is_yes_no(event("x", question="Will the bill pass by June 7, 2025?", answers=["Passed"]))
    assert not is_yes_no(event("y"))


def test_yes_no_down_sampling_drops_questions_in_yes_no_form(tmp_path: Path) -> None:
    """No answer is spelled yes/no here: the form alone makes them yes/no events."""
    binary = [
        event(
            f"w{n}",
            question=f"Will council {n} approve the budget?",
            answers=["approved"],
            news_source=f"s{n}.example",
        )
        for n in range(20)
    ]
    llm = offline_llm(tmp_path)
    with LLMCache(llm.cache_path) as cache:
        kept, ledger = filter_events(binary, FilterConfig(yes_no_keep_rate=0.2), 19, llm, cache)
    dropped = [r for r in ledger.rejects if r.reason == "yes_no_downsampled"]
    assert dropped and len(kept) + len(dropped) == 20 and len(kept) < 10


def test_one_question_per_template_site_and_day(tmp_path: Path) -> None:
    day = date(2025, 6, 7)
    templated = [
        event(
            f"m{n}",
            question=f"Which actions will {a} take towards {b} on June 7, 2025?",
            news_source="gdelt",
            source_day=day,
        )
        for n, (a, b) in enumerate([("FRA", "NGA"), ("CAN", "IRQ"), ("VEN", "UKR")])
    ]
    other_day = event(
        "m9",
        question="Which actions will QAT take towards ZAF on June 8, 2025?",
        news_source="gdelt",
        source_day=date(2025, 6, 8),
    )
    different = event(
        "f1", question="Who will chair the Tidewater port authority?", news_source="gdelt", source_day=day
    )
    assert question_template(templated[0]["question"]) == question_template(templated[1]["question"])
    assert question_template(templated[0]["question"]) != question_template(different["question"])
    llm = offline_llm(tmp_path)
    with LLMCache(llm.cache_path) as cache:
        kept, ledger = filter_events([*templated, other_day, different], FilterConfig(), 19, llm, cache)
    capped = [r for r in ledger.rejects if r.reason == "template_cap"]
    assert len(capped) == 2 and {r.related_id for r in capped} <= {e["event_id"] for e in templated}
    assert {"m9", "f1"} <= {row["event_id"] for row in kept}  # another day, another template: kept
    with LLMCache(llm.cache_path) as cache:
        uncapped, _ = filter_events(templated, FilterConfig(max_per_template=0), 19, llm, cache)
    assert len(uncapped) == 3
