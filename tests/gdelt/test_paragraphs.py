"""gdelt_articles' cleaning: the paragraph pass, the document pass after it, and the flagged-words list."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from almanac.gdelt.articles import BUNDLED_FLAGGED_WORDS
from almanac.gdelt.doc_quality import DocQuality, flagged_word_ratio, load_flagged_words, measure
from almanac.gdelt.paragraphs import (
    CHECK_REASONS,
    DocumentThresholds,
    ParagraphThresholds,
    clean_paragraphs,
    first_failure,
    split_paragraphs,
)

ARTICLE = [
    "Ministers from both countries met in the border town of Valen on Tuesday to sign a water-sharing"
    " agreement that had been under negotiation for almost three years.",
    "The deal sets out how much the upstream dam may hold back during dry summers, and creates a joint"
    " commission of engineers who will publish river levels every week.",
    "Farmers' unions on the downstream side welcomed the agreement but said they would wait to see whether"
    " the first drought season tested it.",
]
CRUMB = "Home > World"  # 3 words < 5
# 5 words; 19 non-space characters ("Share:" 6, "[f]" 3, "[x]" 3, "[in]" 4, "[@]" 3), of which 9 are
# special (eight brackets and "@"): 9 / 19 = 0.47 > 0.3
SHARE_BAR = "Share: [f] [x] [in] [@]"
COOKIES = "Accept all cookies"  # 3 words
NO_FLAGS: frozenset[str] = frozenset()
# The limits these mechanism tests were worked out with (looser than the authors' paragraph defaults).
LOOSE = ParagraphThresholds(
    min_words=5, max_char_repetition=0.3, max_word_repetition=0.3, max_flagged_ratio=0.05
)
DOC = DocumentThresholds(min_words=50, max_word_repetition=0.2, max_special_char_ratio=0.2)


def test_paragraph_pass_drops_boilerplate_and_keeps_the_article_in_order() -> None:
    page = "\n".join([CRUMB, ARTICLE[0], SHARE_BAR, "", ARTICLE[1], "   ", ARTICLE[2], COOKIES])
    cleaned = clean_paragraphs(page, LOOSE, NO_FLAGS)
    assert cleaned.text == "\n".join(ARTICLE)
    assert cleaned.paragraphs == 6  # blank lines are not paragraphs
    assert cleaned.dropped_by_reason == {"special_chars": 1, "too_few_words": 2}
    assert cleaned.dropped == 3


def test_paragraphs_are_lines_with_whitespace_collapsed() -> None:
    assert split_paragraphs("  a   b \n\n\tc\r\nd  ") == ["a b", "c", "d"]


def test_each_paragraph_reason() -> None:
    limits = LOOSE
    # "ha ha ... ha" (10 words) flattens to 29 characters: 20 character 10-grams, and the text has
    # period 3, so only 3 are distinct: (20 - 3) / 20 = 0.85 > 0.3.
    laughing = " ".join(["ha"] * 10)
    assert measure(laughing).char_repetition == pytest.approx(17 / 20)
    assert first_failure(measure(laughing), limits) == (
        "char_repetition",
        "character 10-gram repetition 0.850 > 0.3",
    )
    # With the character check off, the same paragraph fails on words: 6 word 5-grams, 1 distinct.
    no_char = replace(LOOSE, max_char_repetition=1.0)
    assert first_failure(measure(laughing), no_char) == (
        "word_repetition",
        "word 5-gram repetition 0.833 > 0.3",
    )
    assert first_failure(measure(SHARE_BAR), limits) == (
        "special_chars",
        "special-character ratio 0.474 > 0.3",
    )
    spam = "Officials met on Tuesday and watched porn in the hall"  # 1 flagged word in 10: 0.1 > 0.05
    assert first_failure(measure(spam, frozenset({"porn"})), limits) == (
        "flagged_words",
        "flagged-word ratio 0.100 > 0.05",
    )
    assert first_failure(measure(CRUMB), limits) == ("too_few_words", "3 words < 5")


def test_document_checks_in_order_and_at_their_boundaries() -> None:
    limits = DOC  # 50 words, 0.2 / 0.2 / 0.2 / 0.01 (max 10,000 words)
    assert first_failure(DocQuality(50, 0.2, 0.2, 0.2, 0.01), limits) is None  # limits themselves pass
    assert first_failure(DocQuality(49, 0.0, 0.0, 0.0, 0.0), limits) == ("too_few_words", "49 words < 50")
    assert first_failure(DocQuality(10, 0.9, 0.9, 0.9, 0.9), limits) == ("too_few_words", "10 words < 50")
    failing = [
        DocQuality(50, 0.21, 0.9, 0.9, 0.9),
        DocQuality(50, 0.2, 0.21, 0.9, 0.9),
        DocQuality(50, 0.2, 0.2, 0.21, 0.9),
        DocQuality(50, 0.2, 0.2, 0.2, 0.011),
    ]
    reasons = [first_failure(quality, limits) for quality in failing]
    assert [reason[0] for reason in reasons if reason] == list(CHECK_REASONS[2:])
    assert first_failure(DocQuality(10_001, 0.0, 0.0, 0.0, 0.0), limits) == (
        "too_many_words",
        "10001 words > 10000",
    )


def test_document_pass_sees_what_no_paragraph_shows() -> None:
    # Each paragraph carries 1 flagged word: 1/28, 1/30, 1/24, all <= 0.05, so all are kept; the text
    # as a whole has 3 in 82 words (0.037 > 0.01): rejected by the document pass only.
    flagged = frozenset({"xxx"})
    paragraphs = [f"{paragraph} xxx" for paragraph in ARTICLE]
    words = sum(len(paragraph.split()) for paragraph in paragraphs)
    assert words == 82  # 27 + 29 + 23 article words, plus one flagged word each
    cleaned = clean_paragraphs("\n".join(paragraphs), LOOSE, flagged)
    assert cleaned.dropped == 0
    quality = measure(cleaned.text, flagged)
    assert quality.flagged_word_ratio == pytest.approx(3 / 82)
    assert first_failure(quality, DOC) == (
        "flagged_words",
        "flagged-word ratio 0.037 > 0.01",
    )
    # A paragraph printed twice: each copy is clean, the document repeats itself.
    twice = "\n".join([*ARTICLE, *ARTICLE])
    cleaned = clean_paragraphs(twice, LOOSE, NO_FLAGS)
    assert cleaned.dropped == 0
    failure = first_failure(measure(cleaned.text), DOC)
    assert failure is not None and failure[0] == "char_repetition"


def test_default_limits_are_the_mirai_authors_configuration() -> None:
    # yecchen/MIRAI obelics/configs/config_filter_web_documents.yaml, the entries 5_clean_text.py uses
    assert ParagraphThresholds() == ParagraphThresholds(4, 5_000, 0.1, 0.1, 0.3, 0.02)
    assert DocumentThresholds() == DocumentThresholds(10, 10_000, 0.2, 0.3, 0.3, 0.01)
    # a 4-word paragraph stays (authors: at least 4), a 3-word crumb goes
    assert first_failure(measure("Read the full story"), ParagraphThresholds()) is None
    assert first_failure(measure(CRUMB), ParagraphThresholds()) == ("too_few_words", "3 words < 4")


def test_threshold_validation_names_the_field() -> None:
    with pytest.raises(ValueError, match="min_words"):
        DocumentThresholds(min_words=-1)
    with pytest.raises(ValueError, match="max_flagged_ratio"):
        ParagraphThresholds(max_flagged_ratio=1.5)
    with pytest.raises(ValueError, match="max_words"):
        DocumentThresholds(min_words=20, max_words=10)


# -- flagged words --------------------------------------------------------------------------------


def test_flagged_words_match_whole_tokens_without_their_punctuation() -> None:
    flagged = frozenset({"porn", "xxx", "cunt"})
    # tokens: "Porn," "pornography" "and" "(XXX!)" -> "porn" and "xxx" match, "pornography" does not
    assert flagged_word_ratio("Porn, pornography and (XXX!)", flagged) == 0.5
    assert flagged_word_ratio("Scunthorpe United won at Scunthorpe.", flagged) == 0.0  # not a substring match
    assert flagged_word_ratio("", flagged) == 0.0
    assert flagged_word_ratio("porn porn", frozenset()) == 0.0  # an empty list flags nothing


def test_flagged_list_file_format(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("# a comment line\n\nPorn   # a trailing comment\n  XXX\n\n# end\n", encoding="utf-8")
    assert load_flagged_words(path) == frozenset({"porn", "xxx"})
    path.write_text("porn\n# fine so far\nadult content\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"words\.txt:3: 'adult content' is not a single word"):
        load_flagged_words(path)
    path.write_text("porn\n!!!\n", encoding="utf-8")  # no letter: could never equal a stripped token
    with pytest.raises(ValueError, match=r":2: '!!!'"):
        load_flagged_words(path)


def test_the_bundled_list_loads_and_spares_place_names() -> None:
    bundled = load_flagged_words(BUNDLED_FLAGGED_WORDS)
    assert {"porn", "fuck", "cunt"} <= bundled
    assert all(word == word.casefold() and " " not in word for word in bundled)
    assert flagged_word_ratio("Scunthorpe and Penistone drew in Middlesex", bundled) == 0.0
