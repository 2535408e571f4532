"""The deterministic rules of the OpenForesight pipeline: leakage re-scan, answer types, dates."""

from __future__ import annotations

from datetime import date, datetime

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
from almanac.foresight.date_parsing import (
    DateInterval,
    DatesOutcome,
    apply_date_repair,
    date_text_problem,
    parse_date_interval,
    parse_question_date,
    resolve_dates,
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


# ---------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-05-12", date(2025, 5, 12)),
        ("2025-05-12T10:00:00Z", date(2025, 5, 12)),
        ("2025-05-12T23:30:00-05:00", date(2025, 5, 12)),  # the date as written
        ("May 12, 2025", date(2025, 5, 12)),
        ("May 12 2025", date(2025, 5, 12)),
        ("12 May 2025", date(2025, 5, 12)),
        ("Monday, May 12th, 2025", date(2025, 5, 12)),
        ("12th of May, 2025", date(2025, 5, 12)),
        ("Sept. 3, 2025", date(2025, 9, 3)),
        ("by June 30, 2025", date(2025, 6, 30)),
        ("May 2025", None),
        ("unknown", None),
        ("", None),
        ("05/06/2025", None),
        ("2025/05/12", None),
        ("2025-02-30", None),
        ("Smarch 3, 2025", None),
        ("sometime after May 12, 2025", None),
    ],
)
def test_parse_question_date(text: str, expected: date | None) -> None:
    assert parse_question_date(text) == expected


PUBLISHED = date(2025, 5, 20)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("May 12, 2025", DateInterval(date(2025, 5, 12), date(2025, 5, 12), "day")),
        ("July 2025", DateInterval(date(2025, 7, 1), date(2025, 7, 31), "month")),
        ("by July 2025", DateInterval(date(2025, 7, 1), date(2025, 7, 31), "month")),
        ("in Sept. 2025", DateInterval(date(2025, 9, 1), date(2025, 9, 30), "month")),
        ("by Feb 2024", DateInterval(date(2024, 2, 1), date(2024, 2, 29), "month")),  # leap year
        ("end of June, 2025", DateInterval(date(2025, 6, 1), date(2025, 6, 30), "month")),
        ("2025-07", DateInterval(date(2025, 7, 1), date(2025, 7, 31), "month")),
        ("2025", DateInterval(date(2025, 1, 1), date(2025, 12, 31), "year")),
        ("by the end of 2025.", DateInterval(date(2025, 1, 1), date(2025, 12, 31), "year")),
        ("2025-13", None),
        ("before July 2025", None),  # means June 30 at the latest: not read as July
        ("mid-2025", None),
        ("Q3 2025", None),
        ("UNKNOWN", None),
        ("Smarch 2025", None),
    ],
)
def test_parse_date_interval(text: str, expected: DateInterval | None) -> None:
    assert parse_date_interval(text) == expected


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("UNKNOWN", "resolution", "unknown_resolution_date"),
        ("", "start", "unknown_start_date"),
        ("n/a", "start", "unknown_start_date"),
        ("next week", "start", "unparseable_start_date"),
        ("2025-02-30", "resolution", "unparseable_resolution_date"),
        ("July 2025", "resolution", None),
    ],
)
def test_date_text_problem(text: str, field: str, expected: str | None) -> None:
    found = date_text_problem(text, field)
    assert (found[0] if found else None) == expected


def test_resolve_dates_keeps_a_good_question() -> None:
    outcome = resolve_dates("2025-05-01", "May 20, 2025", PUBLISHED)
    assert outcome == DatesOutcome(date(2025, 5, 1), PUBLISHED, False, None, "", "day", "day", False)


def test_resolution_after_article_is_clamped() -> None:
    outcome = resolve_dates("2025-05-01", "2025-06-30", PUBLISHED)
    assert (outcome.resolution, outcome.clamped, outcome.reason) == (PUBLISHED, True, None)
    # A datetime publish stamp is reduced to its day.
    stamped = resolve_dates("2025-05-01", "2025-06-30", datetime(2025, 5, 20, 18, 30))
    assert stamped.resolution == PUBLISHED


def test_month_and_year_deadlines_resolve_on_their_last_day() -> None:
    # "by May 2025" ends 05-31, after the article (05-20): clamped to the article day.
    may = resolve_dates("2025-05-01", "by May 2025", PUBLISHED)
    assert (may.resolution, may.clamped, may.resolution_precision, may.reason) == (
        PUBLISHED,
        True,
        "month",
        None,
    )
    year = resolve_dates("2025-05-01", "2025", PUBLISHED)
    assert (year.resolution, year.resolution_precision, year.reason) == (PUBLISHED, "year", None)
    # The same deadlines are rejected when the param asks for days only; a day still passes.
    for text in ("by May 2025", "2025"):
        assert resolve_dates("2025-05-01", text, PUBLISHED, "reject").reason == "partial_resolution_date"
    assert resolve_dates("2025-05-01", "2025-06-02", PUBLISHED, "reject").reason is None
    with pytest.raises(ValueError, match="partial_deadline"):
        resolve_dates("2025-05-01", "2025-06-02", PUBLISHED, "start")


def test_month_only_start_opens_on_its_first_day() -> None:
    outcome = resolve_dates("May 2025", "2025-05-25", PUBLISHED)
    assert (outcome.start, outcome.start_precision, outcome.reason) == (date(2025, 5, 1), "month", None)


@pytest.mark.parametrize("start", ["2025-05-20", "2025-05-25", "June 2025"])
def test_start_on_or_after_the_article_is_clamped_to_the_day_before(start: str) -> None:
    outcome = resolve_dates(start, "2025-06-30", PUBLISHED)
    assert (outcome.start, outcome.start_clamped, outcome.reason) == (date(2025, 5, 19), True, None)
    assert outcome.resolution == PUBLISHED


@pytest.mark.parametrize(
    ("start", "resolution", "reason"),
    [
        ("unknown", "2025-05-25", "unknown_start_date"),
        ("soon", "2025-05-25", "unparseable_start_date"),
        ("2025-05-01", "soon", "unparseable_resolution_date"),
        ("2025-05-01", "UNKNOWN", "unknown_resolution_date"),
        ("2025-05-10", "2025-05-15", "resolution_before_article"),
        ("2025-05-10", "2025-05-19", "resolution_before_article"),  # one day before the article
        ("2025-04-10", "April 2025", "resolution_before_article"),  # April 30 < May 20
        ("2025-05-10", "before June 2025", "unparseable_resolution_date"),
    ],
)
def test_resolve_dates_reject_reasons(start: str, resolution: str, reason: str) -> None:
    assert resolve_dates(start, resolution, PUBLISHED).reason == reason


@pytest.mark.parametrize("start", ["2025-04-01", "2025-05-19", "2025-05-20", "2025-07-01", "2025"])
@pytest.mark.parametrize("resolution", ["2025-05-20", "2025-05-21", "June 2025", "2026"])
def test_kept_dates_satisfy_the_leak_free_relation(start: str, resolution: str) -> None:
    outcome = resolve_dates(start, resolution, PUBLISHED)
    assert outcome.reason is None and outcome.start is not None and outcome.resolution is not None
    assert outcome.start < outcome.resolution and outcome.start <= PUBLISHED <= outcome.resolution


MONTH_START = date(2025, 5, 1)


def test_date_repair_never_moves_the_deadline_before_the_article() -> None:
    kept = resolve_dates("2025-05-03", "2025-05-20", PUBLISHED)
    repaired = apply_date_repair(kept, "May 9, 2025", MONTH_START)
    assert (repaired.resolution, repaired.reason) == (PUBLISHED, None)
    assert repaired.detail == "answer inferable from 2025-05-09"
    assert apply_date_repair(kept, "2025-05-20", MONTH_START) == kept
    assert apply_date_repair(kept, "unknown", MONTH_START) == kept


def test_date_repair_rejects() -> None:
    kept = resolve_dates("2025-05-03", "2025-05-20", PUBLISHED)
    assert apply_date_repair(kept, "2025-05-03", MONTH_START).reason == "answer_known_at_start"
    assert apply_date_repair(kept, "2025-04-28", MONTH_START).reason == "answer_known_at_start"
    # The question opened in April, but the answer was public before May: it leaks into May.
    april_start = resolve_dates("2025-04-20", "2025-05-20", PUBLISHED)
    assert apply_date_repair(april_start, "2025-04-28", MONTH_START).reason == "repaired_before_month"
    assert apply_date_repair(april_start, "2025-05-02", MONTH_START).reason is None


def test_date_repair_leaves_a_rejected_outcome_alone() -> None:
    rejected = resolve_dates("unknown", "2025-05-15", PUBLISHED)
    assert apply_date_repair(rejected, "2025-05-02", MONTH_START) == rejected
