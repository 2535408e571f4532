"""Each OpenForesight invariant reports a hand-made row that breaks it, and only that row."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from almanac.check.openforesight import check_openforesight
from tests.check.rows import article, question

MONTHS = {"train": ["2025-04"], "validation": ["2025-05"], "test": ["2025-06"]}
URL = "https://news.example/2025/04/20/mayor"


def run(
    rows: list[dict[str, Any]], articles: dict[str, dict[str, Any]] | None = None, months: Any = None
) -> Any:
    corpus = {URL: article(URL, date(2025, 4, 20))} if articles is None else articles
    return check_openforesight(rows, months or MONTHS, corpus)


def failures(report: Any) -> dict[str, set[str]]:
    return {result.name: set(result.failures) for result in report.violated}


def test_a_clean_row_passes_every_invariant() -> None:
    report = run([question()])
    assert report.ok, report.lines()
    assert report.invariants["answer_not_in_prompt"].checked == 1


@pytest.mark.parametrize(
    ("changes", "invariant"),
    [
        ({"_split_dir": "validation"}, "split_matches_folder"),
        ({"resolution_date": date(2025, 5, 2)}, "resolution_in_split_window"),
        ({"question_start_date": date(2025, 4, 20)}, "start_before_resolution"),
        (
            {"question_start_date": date(2025, 4, 22), "resolution_date": date(2025, 4, 25)},
            "start_not_after_article",
        ),
        ({"url": "https://elsewhere.example/x"}, "article_traceable"),
        (
            {"background": "Question start date: 2025-04-01. Dana Whitcombe leads the polls."},
            "answer_not_in_prompt",
        ),
        ({"question_title": "Will DANA WHITCOMBE win by April 30, 2025?"}, "answer_not_in_prompt"),
        ({"resolution_criteria": "Resolves when Whitcombe is sworn in."}, "answer_not_in_prompt"),
    ],
)
def test_each_broken_row_is_reported(changes: dict[str, Any], invariant: str) -> None:
    assert failures(run([question(**changes)])) == {invariant: {"q-train-1"}}


def test_article_published_after_the_resolution_date() -> None:
    corpus = {URL: article(URL, date(2025, 4, 25))}
    assert failures(run([question()], corpus)) == {"article_not_after_resolution": {"q-train-1"}}


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"date_precision": "year"}, "article dated with 'year' precision"),
        ({"crawl_date": date(2025, 4, 19)}, "published 2025-04-20 after its crawl 2025-04-19"),
        (
            {"date_precision": "upper_bound"},
            "'upper_bound' date from 'html_meta': only a crawl date is a bound",
        ),
        ({"date_source": "crawl_date"}, "'day' date from 'crawl_date': only a crawl date is a bound"),
        (
            {"date_precision": "upper_bound", "date_source": "crawl_date", "crawl_date": date(2025, 4, 21)},
            "upper bound 2025-04-20 is not the crawl date 2025-04-21",
        ),
    ],
)
def test_article_dates_must_be_defensible(changes: dict[str, Any], why: str) -> None:
    report = run([question()], {URL: article(URL, date(2025, 4, 20), **changes)})
    assert report.invariants["article_date_defensible"].failures == {"q-train-1": why}


def test_crawl_date_upper_bound_is_defensible() -> None:
    bound = article(URL, date(2025, 4, 20), date_precision="upper_bound", date_source="crawl_date")
    bound["crawl_date"] = bound["publish_date"]
    corpus = {URL: bound}
    assert run([question()], corpus).ok


def test_a_surname_reveals_only_a_person() -> None:
    criteria = {"resolution_criteria": "Resolves on the Whitcombe Library's announcement."}
    assert failures(run([question(**criteria)])) == {"answer_not_in_prompt": {"q-train-1"}}
    organisation = question(**criteria, answer_class="organization", answer_type="string (organization)")
    assert run([organisation]).ok


def test_duplicate_ids_across_splits() -> None:
    corpus = {URL: article(URL, date(2025, 4, 20))}
    twin = question(split="validation", _split_dir="validation", resolution_date=date(2025, 5, 3))
    report = run([question(), twin], corpus)
    assert failures(report) == {"ids_unique": {"q-train-1"}}


def test_split_months_must_be_ordered() -> None:
    months = {"train": ["2025-04", "2025-06"], "validation": ["2025-05"], "test": ["2025-06"]}
    assert failures(run([question()], months=months)) == {
        "split_windows_ordered": {"train<validation", "train<test"}
    }


def test_cross_question_leak_must_be_flagged() -> None:
    other_url = "https://news.example/2025/04/21/council"
    corpus = {URL: article(URL, date(2025, 4, 20)), other_url: article(other_url, date(2025, 4, 21))}
    revealing = question(
        question_id="q-train-2",
        question_title="Whom will Dana Whitcombe appoint as deputy by April 30, 2025?",
        answer="Joel Barrington",
        url=other_url,
        resolution_date=date(2025, 4, 21),
    )
    report = run([question(), revealing], corpus)
    assert failures(report) == {"cross_question_leak_flagged": {"q-train-1"}}
    assert run([question(cross_question_leak=True), revealing], corpus).ok
    # In another split the same text reveals nothing about this split's questions.
    elsewhere = {
        **revealing,
        "split": "validation",
        "_split_dir": "validation",
        "resolution_date": date(2025, 5, 2),
    }
    corpus[other_url] = article(other_url, date(2025, 5, 1))
    assert run([question(), elsewhere], corpus).ok


@pytest.mark.parametrize(
    ("changes", "how"),
    [
        (
            {
                "answer": "Northern Games Federation",
                "answer_class": "organization",
                "answer_type": "string (organization)",
                "background": "Question start date: 2025-04-01. The NGF meets in April.",
            },
            "acronym: 'NGF'",
        ),
        (
            {
                "answer": "Northern Games Federation",
                "answer_class": "organization",
                "answer_type": "string (organization)",
                "question_title": "Will the Northern Games pick a host by April 30, 2025?",
            },
            "partial: 'Northern Games'",
        ),
    ],
)
def test_acronym_and_partial_name_leaks_are_reported(changes: dict[str, Any], how: str) -> None:
    report = run([question(**changes)])
    assert failures(report) == {"answer_not_in_prompt": {"q-train-1"}}
    assert how in report.invariants["answer_not_in_prompt"].failures["q-train-1"]


def test_an_institution_declared_a_person_has_no_surname_leak() -> None:
    row = question(answer="The Cathedral School", question_title="Which school will win by April 30, 2025?")
    assert run([row]).ok


def test_an_outlet_in_test_and_train_breaks_the_source_disjoint_test() -> None:
    months = {"train": ["2025-04"], "validation": ["2025-05"], "test": ["2025-06"]}
    train = question()
    test = question(
        question_id="q-test-1", split="test", _split_dir="test", resolution_date=date(2025, 6, 20)
    )
    report = check_openforesight([train, test], months, None, disjoint=(True, ()))
    assert set(report.invariants["test_outlets_disjoint"].failures) == {"q-train-1", "q-test-1"}
    # Off by the params: the invariant is not run at all.
    assert "test_outlets_disjoint" not in check_openforesight([train, test], months, None).invariants
    # A listed test source that the test row is not from.
    other = {**test, "news_source": "other.example"}
    listed = check_openforesight([train, other], months, None, disjoint=(True, ("third.example",)))
    assert set(listed.invariants["test_outlets_disjoint"].failures) == {"q-test-1"}


@pytest.mark.parametrize(
    ("title", "text", "why"),
    [
        # An outcome phrase fails with or without the article.
        ("Who will win by 14 votes to 9 by April 30, 2025?", "", "outcome phrase 'by 14 votes to 9'"),
        # A count the article states ("41 seats") gives the outcome away; one it does not state is no trace.
        ("Which party will hold 41 seats by April 30, 2025?", "The Alliance won 41 seats.", "number '41'"),
    ],
)
def test_outcome_details_in_the_title_are_reported(title: str, text: str, why: str) -> None:
    corpus = {URL: {**article(URL, date(2025, 4, 20)), "text": text}}
    report = run([question(question_title=title)], corpus)
    assert failures(report) == {"title_free_of_outcome": {"q-train-1"}}
    assert why in report.invariants["title_free_of_outcome"].failures["q-train-1"]


def test_a_count_the_article_does_not_state_passes() -> None:
    corpus = {URL: {**article(URL, date(2025, 4, 20)), "text": "The Alliance won 40 seats in 2021."}}
    assert run([question(question_title="Which party will hold 41 seats by April 30, 2025?")], corpus).ok
