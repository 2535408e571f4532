"""Document-level language ID of gdelt_articles (MIRAI's authors: English with probability >= 0.8)."""

from __future__ import annotations

import pytest

from almanac.gdelt.articles import GdeltArticlesConfig
from almanac.gdelt.language import identify, language_failure

ENGLISH = (
    "Ministers from both countries met in the border town of Valen on Tuesday to sign a water-sharing\n"
    "agreement that had been under negotiation for almost three years."
)
FRENCH = (
    "Les ministres des deux pays se sont rencontrés mardi dans la ville frontalière de Valen pour signer\n"
    "un accord sur le partage de l'eau négocié depuis près de trois ans."
)


def test_an_english_article_passes_and_a_french_one_is_refused() -> None:
    language, probability = identify(ENGLISH)
    assert language == "en" and probability >= 0.8
    assert language_failure(ENGLISH, "en", 0.8) is None
    failure = language_failure(FRENCH, "en", 0.8)
    assert failure is not None and failure.startswith("language fr with probability")


def test_a_probability_below_the_cut_off_fails_even_when_the_language_is_right() -> None:
    # "Home > World" is called English by py3langid, but far below 0.8
    language, probability = identify("Home > World")
    assert language == "en" and probability < 0.8
    assert language_failure("Home > World", "en", 0.8) is not None
    assert language_failure("Home > World", "en", 0.0) is None  # 0 turns the check off


def test_the_default_is_the_authors_and_the_probability_is_checked() -> None:
    config = GdeltArticlesConfig()
    assert (config.language, config.min_language_probability) == ("en", 0.8)
    with pytest.raises(ValueError, match="min_language_probability"):
        GdeltArticlesConfig(min_language_probability=1.5)
