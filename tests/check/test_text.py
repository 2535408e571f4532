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


def test_acronym_of_a_multi_word_name() -> None:
    answer = "Northern Games Federation"
    assert find_answer(answer, "Will the NGF pick Brennford?", person=False) == "acronym: 'NGF'"
    assert find_answer(answer, "Will the N.G.F. pick Brennford?", person=False) == "acronym: 'NGF'"
    # Case-sensitive and whole-word: "ngf" in lower case and "NGFA" are not the initials.
    assert find_answer(answer, "the ngf, NGFA and others", person=False) is None
    # A person's initials are no alias: "DW" is anyone.
    assert find_answer("Dana Whitcombe", "DW spoke.", person=True) is None


def test_distinctive_part_of_an_organisation() -> None:
    answer = "Northern Games Federation"
    found = find_answer(answer, "Delegates of the Northern Games met.", person=False, organisation=True)
    assert found == "partial: 'Northern Games'"
    # Without the organisation class, a part is no match; generic parts never are.
    assert find_answer(answer, "Delegates of the Northern Games met.", person=False) is None
    assert find_answer(answer, "The federation met in the north.", person=False, organisation=True) is None
    school = "Brennford Grammar School"
    assert (
        find_answer(school, "Will Brennford win?", person=False, organisation=True) == "partial: 'Brennford'"
    )
    # "Grammar School" is all generic, and "brennford" in lower case is not the proper name.
    assert (
        find_answer(school, "Which grammar school, near brennford?", person=False, organisation=True) is None
    )


def test_a_declared_person_that_is_an_institution_gets_no_surname() -> None:
    # The pipeline's guard (almanac.core.names.person_like): "School" is no surname.
    assert find_answer("The Cathedral School", "Which school will win?", person=True) is None
    assert find_answer("Dana Whitcombe", "Whitcombe spoke.", person=True) == "surname: 'whitcombe'"
