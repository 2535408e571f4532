"""Declared answer types checked against the answer and its article (answer_type_mismatch)."""

from __future__ import annotations

import pytest

from almanac.foresight.answer_types import AnswerTypeConfig, load_nlp
from almanac.foresight.type_check import ArticleEntities, article_entities, type_mismatch

# What a sports report yields: two people named in full, a club, and "turnout" used as a noun.
ENTITIES = ArticleEntities(
    persons=(("marco", "bellandi"), ("ludwig", "van", "beethoven"), ("elena", "vasquez", "moore")),
    lower_words=frozenset({"turnout", "the", "won"}),
)


@pytest.mark.parametrize(
    ("answer", "fits"),
    [
        ("Marco Bellandi", True),
        ("Bellandi", True),  # surname of a full name in the article
        ("Marco", True),  # given name of one
        ("Ludwig van Beethoven", True),  # lower-case particle inside a name
        ("Turnout", False),  # capitalised at a sentence start, a common noun elsewhere
        ("Rovers", False),  # a club word
        ("Kessling United", False),
        ("Fairmart Money", False),
        ("Corvane", False),  # no person of that name in the article
        ("France", False),  # a country
        ("marco bellandi", False),  # not written as a name
        ("Agent 47", False),  # digits
    ],
)
def test_name_must_look_like_a_person(answer: str, fits: bool) -> None:
    assert (type_mismatch(answer, "name", ENTITIES) is None) is fits


def test_mismatch_details_say_which_rule_failed() -> None:
    assert (
        type_mismatch("Turnout", "name", ENTITIES)
        == "'Turnout' is a common noun (the article writes 'turnout')"
    )
    detail = type_mismatch("Rovers", "name", ENTITIES)
    assert detail is not None and "'rovers'" in detail


@pytest.mark.parametrize(
    ("answer", "declared", "fits"),
    [
        ("South Korea", "country", True),
        ("Côte d'Ivoire", "country", True),  # compared folded
        ("Bergen", "country", False),
        ("Europe", "country", False),
        ("Tidewater Symphony Orchestra", "organization", True),
        ("Vasquez-Moore", "organization", False),  # a person named in the article
        ("Bellandi", "team", False),
        ("1,200", "organization", False),
        ("the council", "organization", False),  # no proper name
        ("Harbour City", "location", True),
        ("July", "month", True),
        ("July 2025", "month", True),
        ("July 4", "month", False),
        ("Green", "color", True),
        ("Greenish", "color", False),
        ("The Lost Chord", "title", True),  # no rule for titles
    ],
)
def test_other_declared_classes(answer: str, declared: str, fits: bool) -> None:
    assert (type_mismatch(answer, declared, ENTITIES) is None) is fits


def test_person_evidence_comes_from_the_article_entities() -> None:
    nlp = load_nlp(AnswerTypeConfig().spacy_model)
    text = (
        "Harbour City beat Kessling Ladies on penalties. Striker Jade Whitlock scored first for Kessling, "
        "and Whitlock later hit the post. Turnout at the stadium was the highest this season."
    )
    entities = article_entities(text, nlp)
    assert any(person[-2:] == ("jade", "whitlock") for person in entities.persons)
    assert not any("ladies" in person for person in entities.persons)  # a club is not a person
    assert type_mismatch("Whitlock", "name", entities) is None
    assert type_mismatch("Kessling", "name", entities) is not None
    assert type_mismatch("Turnout", "name", entities) is not None
