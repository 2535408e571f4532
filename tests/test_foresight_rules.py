"""The deterministic rules of the OpenForesight pipeline: leakage re-scan and answer types."""

from __future__ import annotations

import pytest
from spacy.language import Language

from almanac.core.text import fold
from almanac.foresight.answer_types import (
    COUNTRIES,
    AnswerTypeConfig,
    classify_answer,
    declared_answer_class,
    load_nlp,
    normalise_answer_type,
)
from almanac.foresight.leakage_scan import LeakageScanConfig, LeakHit, answer_aliases, find_leak

SCAN = LeakageScanConfig()


@pytest.fixture(scope="module")
def nlp() -> Language:
    return load_nlp(AnswerTypeConfig().spacy_model)


# ---------------------------------------------------------------- leakage re-scan: aliases


@pytest.mark.parametrize(
    ("answer", "answer_class", "expected"),
    [
        ("Halima Okonjo", "name", ["Okonjo"]),
        ("Ludwig van Beethoven", "name", ["van Beethoven", "Beethoven"]),
        ("Ursula von der Leyen", "name", ["von der Leyen", "Leyen"]),
        ("Martin Luther King Jr.", "name", ["King"]),
        ("Li Na", "name", []),  # "Na" is shorter than min_alias_chars
        ("Madonna", "name", []),  # a single name has no shorter form
        ("Environment Protection Agency", "organization", ["EPA"]),
        ("Bank of England", "organization", ["BE"]),  # "of" gives no letter
        ("The Rolling Stones", None, ["Rolling Stones", "RS"]),
        ("Environment Protection Agency (EPA)", "organization", ["Environment Protection Agency", "EPA"]),
        ("Halima Okonjo", "organization", ["HO"]),  # no surname unless the answer is a person
        # Declared a person but not one: no surname ("Agency", "School"), and no acronym either.
        ("Environment Protection Agency", "name", []),
        ("The Whitfield School", "name", ["Whitfield School"]),
    ],
)
def test_answer_aliases(answer: str, answer_class: str | None, expected: list[str]) -> None:
    assert answer_aliases(answer, answer_class) == expected


def test_aliases_never_repeat_the_answer() -> None:
    assert answer_aliases("The Hague", "location", min_chars=4) == ["Hague"]
    assert answer_aliases("Hague", "location") == []
    assert answer_aliases("Jo Li", "name", min_chars=2) == ["Li"]


# ---------------------------------------------------------------- leakage re-scan: find_leak


def test_exact_hit_names_field_and_kind() -> None:
    texts = {"question_title": "Who will lead?", "background": "Mr Halima Okonjo spoke."}
    assert find_leak("Halima Okonjo", texts, "name", SCAN) == LeakHit("exact", "background", "Halima Okonjo")


def test_exact_is_word_bounded_and_folded_too() -> None:
    # "Paris" inside "Parisian" is neither an exact nor a folded hit, and not fuzzy either.
    assert find_leak("Paris", {"background": "A Parisian cafe reopened."}, "location", SCAN) is None
    assert find_leak("Paris", {"background": "Talks in Paris, France."}, "location", SCAN) is not None


def test_folded_hit_on_case_and_diacritics() -> None:
    hit = find_leak("Antonín Dvořák", {"background": "a concert of antonin dvorak works"}, None, SCAN)
    assert hit == LeakHit("folded", "background", "antonin dvorak")


def test_surname_alias_hit() -> None:
    texts = {"background": "Okonjo's government fell in March."}
    assert find_leak("Halima Okonjo", texts, "name", SCAN) == LeakHit("alias", "background", "Okonjo")
    # Without aliases the surname alone is not found by any other kind.
    assert find_leak("Halima Okonjo", texts, "name", LeakageScanConfig(check_aliases=False)) is None


def test_acronym_alias_is_case_sensitive() -> None:
    answer = "Environment Protection Agency"
    criteria = {"resolution_criteria": "Resolves per the EPA's announcement."}
    assert find_leak(answer, criteria, "organization", SCAN) == LeakHit("alias", "resolution_criteria", "EPA")
    dotted = {"resolution_criteria": "Resolves per the E.P.A. announcement."}
    assert find_leak(answer, dotted, "organization", SCAN) is not None
    lower = {"background": "Who will the epa staff union back?"}
    assert find_leak(answer, lower, "organization", SCAN) is None
    who = {"question_title": "Who will declare the pandemic over by June 2025?"}
    assert find_leak("World Health Organization", who, "organization", SCAN) is None


def test_fuzzy_hits_typo_and_glued_possessive() -> None:
    typo = {"background": "Observers expect Halima Okonjos to win."}
    assert find_leak("Halima Okonjo", typo, None, SCAN) == LeakHit("fuzzy", "background", "halima okonjos")
    reordered = {"background": "Listed as Okonjo, Halima on the ballot."}
    assert find_leak("Halima Okonjo", reordered, None, SCAN) is not None
    # A two-word answer "Okonjo's" folds to "okonjo s"; the text's "Okonjos" is one word.
    assert find_leak("Okonjo's", {"background": "Okonjos rivals met."}, None, SCAN) is not None


def test_fuzzy_misses_a_different_name_of_similar_length() -> None:
    texts = {"background": "Rival Halima Okafor and Hakim Okonji campaigned."}
    assert find_leak("Halima Okonjo", texts, None, SCAN) is None


def test_fuzzy_narrow_window_does_not_fire_on_a_shared_word() -> None:
    # token-set similarity of "new york" and "new" is 100; narrow windows must not use it.
    assert find_leak("New York", {"background": "A new plan was announced."}, "location", SCAN) is None


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        ("Unity Party", "Unity Par-led councils cut budgets."),  # old score: ratio 90 on "unity par"
        ("Harbour City", "Fans of Harbour Cit. were loud."),
        ("Progress Alliance", "The Progress Allian ce vote."),
        ("Paris", "A Parisian cafe reopened."),
    ],
)
def test_fuzzy_matches_whole_words_only(answer: str, text: str) -> None:
    assert find_leak(answer, {"background": text}, None, SCAN) is None


@pytest.mark.parametrize(
    ("answer", "answer_class", "text", "kind"),
    [
        ("Harbour City", "location", "Harbor City fans were loud.", "fuzzy"),  # spelling variant
        ("Kessling United", "team", "the Kesslings United fans", "fuzzy"),  # inflected word
        ("Halima Okonjo", "name", "HALIMA OKONJO leads.", "folded"),  # case
        ("Antonín Dvořák", "name", "a concert of Antonin Dvorak works", "folded"),  # diacritics
        ("Halima Okonjo", "name", "Okonjo's rivals met.", "alias"),  # surname of a person
    ],
)
def test_real_leaks_are_still_found(answer: str, answer_class: str, text: str, kind: str) -> None:
    hit = find_leak(answer, {"background": text}, answer_class, SCAN)
    assert hit is not None and hit.kind == kind


def test_no_surname_alias_for_an_institution_declared_a_name() -> None:
    # "The Whitfield School" once gave the alias "School", which matched its own question.
    texts = {"question_title": "Which school will win the national robotics prize by June 2025?",
             "background": "Each School in the county entered a team."}  # fmt: skip
    assert find_leak("The Whitfield School", texts, "name", SCAN) is None
    assert (
        find_leak("The Whitfield School", {"background": "Whitfield School won."}, "name", SCAN) is not None
    )


def test_fuzzy_threshold_and_disable() -> None:
    texts = {"background": "Observers expect Halima Okonjos to win."}
    assert find_leak("Halima Okonjo", texts, None, LeakageScanConfig(fuzzy_threshold=101)) is None
    # Word by word: "okonjo"/"okonji" scores 2*5/12 = 83.3, "okonjo"/"okonjos" 2*6/13 = 92.3.
    near = {"background": "Observers expect Halima Okonji to win."}
    assert find_leak("Halima Okonjo", near, None, SCAN) is None
    assert find_leak("Halima Okonjo", near, None, LeakageScanConfig(fuzzy_threshold=80)) is not None
    assert find_leak("Halima Okonjo", texts, None, LeakageScanConfig(fuzzy_threshold=93)) is None


def test_kind_order_and_configured_fields() -> None:
    texts = {"question_title": "Will Okonjo win?", "background": "HALIMA OKONJO leads."}
    # folded (background) is tried before alias (title), whatever the field order.
    assert find_leak("Halima Okonjo", texts, "name", SCAN) == LeakHit("folded", "background", "halima okonjo")
    only_title = LeakageScanConfig(fields=("question_title",))
    assert find_leak("Halima Okonjo", texts, "name", only_title) == LeakHit(
        "alias", "question_title", "Okonjo"
    )
    assert find_leak("Halima Okonjo", {"article_body": "Halima Okonjo"}, "name", SCAN) is None


# ---------------------------------------------------------------- answer types


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("String (Name)", "string (name)"),
        ("String(Name)", "string (name)"),
        ("name", "string (name)"),
        ("Name(s)", "string (name)"),
        ("Person name", "string (name)"),
        ("string - organisation", "string (organization)"),
        ("String (Organization)", "string (organization)"),
        ("string: Company", "string (organization)"),
        ("String (Colour)", "string (color)"),
        ("Team Name", "string (team name)"),
        ("String/Location", "string (location)"),
        ("Number", "numeric"),
        ("int", "numeric (integer)"),
        ("numeric (Whole Number)", "numeric (integer)"),
        ("numeric (%)", "numeric (percentage)"),
        ("string (any)", "string"),
        ("entity", "string"),
        ("", "string"),
        ("something odd", "string"),
        ("string (species)", "string (species)"),
    ],
)
def test_normalise_answer_type(raw: str, expected: str) -> None:
    assert normalise_answer_type(raw) == expected


def test_country_set_covers_members_and_short_forms() -> None:
    for name in ("Kenya", "Côte d'Ivoire", "South Korea", "US", "U.S.", "UK", "Eswatini", "Tuvalu"):
        assert fold(name) in COUNTRIES, name
    assert len(COUNTRIES) > 193
    assert fold("Nairobi") not in COUNTRIES


@pytest.mark.parametrize(
    ("answer", "answer_type", "expected"),
    [
        ("Halima Okonjo", "String (Name)", "name"),
        ("Lyon", "string (location)", "location"),
        ("France", "string (location)", "country"),
        ("Juventus", "string (team name)", "team"),
        ("Crimson", "string (colour)", "color"),
        ("Dune", "string (title)", "title"),
        ("May 2025", "string (date)", "month"),
        ("May 4, 2025", "string (date)", "date"),
        ("12", "numeric (integer)", "numeric"),
        ("10 to 20", "numeric", "range"),
    ],
)
def test_explicit_type_wins_without_ner(answer: str, answer_type: str, expected: str) -> None:
    class NoModel:  # the explicit path must not need spaCy at all
        def __call__(self, text: str) -> None:
            raise AssertionError("spaCy called for an explicit type")

    assert classify_answer(answer, answer_type, "", NoModel()) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("answer", "context", "expected"),
    [
        ("Emmanuel Macron", "French President Emmanuel Macron said he would attend.", "name"),
        ("Halima Okonjo", "Officials met. The party chose Halima Okonjo as its leader.", "name"),
        ("Kenya", "The talks were held in Kenya last week.", "country"),
        ("Nairobi", "The talks were held in Nairobi last week.", "location"),
        ("Mount Everest", "Climbers reached Mount Everest.", "location"),
        ("the Eiffel Tower", "Crowds gathered at the Eiffel Tower on Sunday.", "location"),
        ("Goldman Sachs", "Analysts at Goldman Sachs raised their forecast.", "organization"),
        ("Democrats", "The Democrats won the vote.", "other"),
        ("July 4", "The parade is on July 4.", "date"),
        ("$5 million", "The fine was $5 million.", "numeric"),
        ("three percent", "Inflation rose three percent.", "numeric"),
        ("Brussels", "", "location"),  # no context: the answer alone
        ("Germany", "", "country"),
    ],
)
def test_vague_type_classified_by_entities(nlp: Language, answer: str, context: str, expected: str) -> None:
    assert classify_answer(answer, "string", context, nlp) == expected


def test_vague_type_reads_the_answer_in_its_context(nlp: Language) -> None:
    # Alone, the surname is no person to the small model; inside the full name it is.
    context = "Born in Kentucky. President Abraham Lincoln was born in 1809."
    assert classify_answer("Lincoln", "string (any)", context, nlp) == "name"


def test_vague_type_shapes_before_entities(nlp: Language) -> None:
    assert classify_answer("42", "string", "", nlp) == "numeric"
    assert classify_answer("10-20", "entity", "", nlp) == "range"
    assert classify_answer("10\u201320", "entity", "", nlp) == "range"  # en dash
    assert classify_answer("between 3 and 5", "text", "", nlp) == "range"
    assert classify_answer("May", "string (other)", "The vote happened in May.", nlp) == "month"
    assert classify_answer("Okonjo", "string", "", nlp) == "other"


def test_declared_answer_class_for_leakage_hints() -> None:
    # "team name" and "brand name" contain "name" but are not people: no surname alias for them.
    assert declared_answer_class("Manchester United", "String (Team Name)") == "team"
    assert declared_answer_class("Air Jordan", "string (brand name)") == "brand"
    assert declared_answer_class("Halima Okonjo", "Person name") == "name"
    assert declared_answer_class("Halima Okonjo", "string (any)") is None
    assert declared_answer_class("Kenya", "string (species)") is None


def test_answer_type_config_rejects_unknown_class() -> None:
    with pytest.raises(ValueError, match="numbers"):
        AnswerTypeConfig(allowed_classes=("name", "numbers"))
    assert "numeric" not in AnswerTypeConfig().allowed_classes


def test_load_nlp_is_cached(nlp: Language) -> None:
    assert load_nlp(AnswerTypeConfig().spacy_model) is nlp


def test_partial_organisation_name_is_a_leak_generic_part_is_not() -> None:
    config = LeakageScanConfig()
    texts = {
        "question_title": "Will the Northern Games pick a host?",
        "background": "",
        "resolution_criteria": "",
    }
    hit = find_leak("Northern Games Federation", texts, "organization", config)
    assert hit == LeakHit("partial", "question_title", "Northern Games")
    generic = {"question_title": "Which federation of the north will pick a host?"}
    assert find_leak("Northern Games Federation", generic, "organization", config) is None
    # Only organisations have parts: a location "Port Alder" is not revealed by "Port".
    assert find_leak("Port Alder", {"question_title": "Which Port will reopen?"}, "location", config) is None
