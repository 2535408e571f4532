"""Strict parsing of tagged and JSON answers: tolerant of wrapping, strict about content."""

from __future__ import annotations

import pytest

from almanac.foresight.llm_tasks.date_repair import parse_date_repair
from almanac.foresight.llm_tasks.leakage import parse_leakage
from almanac.foresight.llm_tasks.qgen import parse_questions
from almanac.foresight.llm_tasks.questions import GeneratedQuestion, UnusableCandidate
from almanac.foresight.llm_tasks.select_best import parse_best
from almanac.foresight.llm_tasks.validate import parse_validation
from almanac.llm.parsing import ParseError, clean, extract_json, one_tag, require_fields

QUESTION = """<question>
<question_title>Who will be named coach of Ajax by July 1, 2025?</question_title>
<background>Question start date: 2025-06-10. Ajax is searching for a new head coach.</background>
<resolution_criteria>Source of truth: club announcement.
  Resolution date:   July 1, 2025.
Accepted answer format: full name.</resolution_criteria>
<answer>John Heitinga</answer>
<answer_type>String (Name)</answer_type>
<question_start_date>2025-06-10</question_start_date>
<resolution_date>2025-07-01</resolution_date>
</question>"""


def test_questions_parse_through_prose_fences_and_thinking() -> None:
    text = f"<think>Let me consider <answer>Someone Else</answer>.</think>Sure! Here you go:\n```xml\n{QUESTION}\n```"
    [question] = parse_questions(clean(text), {"n_questions": "3"})
    assert question.answer == "John Heitinga"
    assert question.answer_type == "string (name)"
    assert question.resolution_criteria.splitlines()[1] == "Resolution date: July 1, 2025."


def test_questions_are_strict_about_fields_but_keep_dates_as_written() -> None:
    with pytest.raises(ParseError, match="question 1: missing <answer>"):
        parse_questions(QUESTION.replace("<answer>John Heitinga</answer>", ""), {})
    with pytest.raises(ParseError, match="answer_type"):
        parse_questions(QUESTION.replace("String (Name)", "a name"), {})
    # Dates are read by the question stages (a month-only deadline is fine there), not here.
    [month_only] = parse_questions(QUESTION.replace("2025-07-01</resolution", "July  2025</resolution"), {})
    assert isinstance(month_only, GeneratedQuestion) and month_only.resolution_date == "July 2025"
    with pytest.raises(ParseError, match="no <question>"):
        parse_questions("I could not find a good question.", {})
    assert parse_questions("<no_question>the article is an opinion piece</no_question>", {}) == []
    assert len(parse_questions(QUESTION * 4, {"n_questions": "2"})) == 2


def test_each_candidate_is_parsed_on_its_own() -> None:
    # One block lacks its answer, one has an UNKNOWN deadline, one a month-only deadline.
    broken = QUESTION.replace("<answer>John Heitinga</answer>", "")
    unknown = QUESTION.replace("2025-07-01</resolution", "UNKNOWN</resolution")
    monthly = QUESTION.replace("2025-07-01</resolution", "2025-07</resolution")
    first, second, third = parse_questions(broken + unknown + monthly, {"n_questions": "3"})
    assert isinstance(first, UnusableCandidate) and first.reason == "candidate_malformed"
    assert first.detail == "question 1: missing <answer>...</answer>"
    assert first.question.question_title == "Who will be named coach of Ajax by July 1, 2025?"
    assert isinstance(second, GeneratedQuestion) and second.resolution_date == "UNKNOWN"
    assert isinstance(third, GeneratedQuestion) and third.resolution_date == "2025-07"


def test_a_reply_whose_every_candidate_is_malformed_is_an_error() -> None:
    broken = QUESTION.replace("<answer>John Heitinga</answer>", "")
    untyped = QUESTION.replace("String (Name)", "a name")
    with pytest.raises(ParseError, match=r"question 1: missing <answer>.*question 2: answer_type"):
        parse_questions(broken + untyped, {})


def test_verdict_comes_only_from_its_tag() -> None:
    ok = "<reasons>fine</reasons><failed_criteria>none</failed_criteria><verdict>valid</verdict>"
    assert parse_validation(ok, {}).valid
    bad = (
        "<reasons>past tense</reasons><failed_criteria>forward_looking, single_answer</failed_criteria>"
        "<verdict>Invalid.</verdict>"
    )
    verdict = parse_validation(bad, {})
    assert not verdict.valid and verdict.failed_criteria == ("forward_looking", "single_answer")
    # The old "last digit wins" reading would call this valid (it ends in 1); here it is malformed.
    with pytest.raises(ParseError, match="missing <verdict>"):
        parse_validation("Criterion 0 fails, so my answer is 1", {})
    with pytest.raises(ParseError, match="different contents"):
        parse_validation(ok + "<verdict>invalid</verdict>", {})
    with pytest.raises(ParseError, match="exactly one of"):
        parse_validation(ok.replace(">valid<", ">probably valid<"), {})
    with pytest.raises(ParseError, match="disagree"):
        parse_validation(ok.replace("none", "short_answer"), {})
    with pytest.raises(ParseError, match="entry"):
        parse_validation(bad.replace("single_answer", "vibes"), {})


def test_best_choice_bounds() -> None:
    assert parse_best("<best>2</best>", {"n_candidates": "3"}).index == 2
    assert parse_best("<reasons>all vague</reasons><best>None</best>", {"n_candidates": "3"}).index is None
    for bad in ("<best>3</best>", "<best>-1</best>", "<best>the second</best>", "best: 1"):
        with pytest.raises(ParseError):
            parse_best(bad, {"n_candidates": "3"})


def test_leakage_keeps_originals_when_nothing_leaks() -> None:
    originals = {"background": "Original  background.", "resolution_criteria": "Line one.\nLine two."}
    quiet = (
        "Checked.<edited><leak_found>no</leak_found><background>reworded!</background>"
        "<resolution_criteria>x</resolution_criteria></edited>"
    )
    edit = parse_leakage(quiet, originals)
    assert not edit.leak_found and edit.background == "Original  background."
    leaky = (
        "<edited><leak_found>yes</leak_found><background>A certain person leads.</background>"
        "<resolution_criteria>Source: club.\n Date: July 1.</resolution_criteria></edited>"
    )
    edit = parse_leakage(leaky, originals)
    assert edit.leak_found and edit.resolution_criteria == "Source: club.\nDate: July 1."
    with pytest.raises(ParseError, match="missing <edited>"):
        parse_leakage("<leak_found>yes</leak_found>", originals)


def test_date_repair() -> None:
    assert parse_date_repair("<earliest_date>2025-06-03</earliest_date>", {}).earliest_date == "2025-06-03"
    assert parse_date_repair(
        "<evidence>?</evidence><earliest_date>Unknown</earliest_date>", {}
    ).earliest_date == ("unknown")
    with pytest.raises(ParseError):
        parse_date_repair("<earliest_date>early June</earliest_date>", {})


def test_json_helpers() -> None:
    record = extract_json('Result follows: {"answer": "Paris", "confidence": 0.9} -- done {broken')
    assert require_fields(record, {"answer": str, "confidence": float}) == {
        "answer": "Paris",
        "confidence": 0.9,
    }
    with pytest.raises(ParseError, match="must be int"):
        require_fields({"n": True}, {"n": int})
    with pytest.raises(ParseError, match="missing field"):
        require_fields({"answer": "x"}, {"answer": str, "confidence": float})
    with pytest.raises(ParseError):
        extract_json("no json here {")
    assert one_tag("<a>x</a> and again <A>x</A>", "a") == "x"
