"""The checker's answer matcher: whole tokens, folded case and diacritics, fuzzy runs, person surnames."""

from __future__ import annotations

from almanac.check.text import answer_tokens, answers_in, find_answer, fold, ngram_index


def test_fold_drops_case_and_diacritics() -> None:
    assert fold("Ångström ÉCOLE") == "angstrom ecole"


def test_exact_match_after_folding() -> None:
    assert find_answer("José Ramírez", "Will jose ramirez win?", person=False) == "exact"


def test_no_match_inside_a_word() -> None:
    # "Alder" is a prefix of "Alderney" and "Port" of "Portsmouth": neither is the answer.
    assert find_answer("Port Alder", "Ferries from Portsmouth to Alderney resumed.", person=False) is None


def test_two_word_answer_next_to_a_word_fragment_is_not_fuzzy() -> None:
    # "Port Alde" would have matched character-wise; as whole tokens "port alderman" is 10% off.
    assert find_answer("Port Alder", "The port alderman spoke.", person=False) is None


def test_fuzzy_catches_a_possessive_and_a_misspelling() -> None:
    assert find_answer("Whitcombe", "Whitcomb's campaign led the polls.", person=False) is not None
    assert find_answer("Dana Whitcombe", "Dana Whitcombs conceded nothing.", person=False) is not None


def test_leading_article_is_not_needed() -> None:
    assert find_answer("The Hague", "Talks moved to Hague in May.", person=False) == "exact"
    assert answer_tokens("The") == ("the",)  # a lone article stays a token


def test_surname_only_for_people() -> None:
    text = "The school board of Brennford met on Monday; Whitcombe attended."
    assert find_answer("Dana Whitcombe", text, person=True) == "surname: 'whitcombe'"
    assert find_answer("Dana Whitcombe", text, person=False) is None
    # An institution's last word is no alias: "School" must not reveal "The Brennford Grammar School".
    assert find_answer("Brennford Grammar School", "Which school will win?", person=False) is None


def test_short_answers_are_exact_only() -> None:
    assert find_answer("Oslo", "Talks in Osle", person=False) is None  # 4 letters: one off is another word


def test_cross_question_index_finds_whole_token_answers() -> None:
    index = ngram_index([("q1", answer_tokens("Dana Whitcombe")), ("q2", answer_tokens("Rovers"))])
    assert answers_in("Will Dana Whitcombe's rivals concede?", index, 2) == {"q1"}
    assert answers_in("Will the Roversfield club win?", index, 2) == set()
