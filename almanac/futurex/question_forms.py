"""The form of a FutureX question: is it a yes/no question, and which template does it follow?

FutureX down-samples yes/no events (a coin scores 50% on them) and keeps one question per template and
site each day, so one site's templated questions cannot crowd out the rest. Our sources rarely spell an
answer "yes", so a yes/no question is recognised by its form: it opens with an auxiliary verb ("Will the
court rule ...?", "Is ...?", "Has ...?") and offers no alternative ("Will A or B win?" is not yes/no).

A question's template is its wording with the parts a template fills in masked: numbers and dates become
``#``, names (capitalised words after the first, country and actor codes) become ``X``. "Which actions
will FRA take towards NGA on April 1, 2025?" and "... will CAN take towards IRQ on April 1, 2025?" share
a template; two questions written from different articles almost never do.
"""

from __future__ import annotations

import re

from almanac.core.months import MONTH_NUMBERS

AUXILIARIES = frozenset(
    [
        "will",
        "would",
        "shall",
        "should",
        "is",
        "are",
        "was",
        "were",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "can",
        "could",
        "may",
        "might",
        "must",
    ]
)
_TOKEN = re.compile(r"[\w'\u2019-]+|[?]")  # apostrophes straight and curly
_DIGIT = re.compile(r"\d")


def question_part(text: str) -> str:
    """The question itself: the text up to its first question mark (the whole text if there is none)."""
    head, mark, _ = text.partition("?")
    return head + mark


def is_binary_question(text: str) -> bool:
    words = [word.casefold() for word in _TOKEN.findall(question_part(text)) if word != "?"]
    return bool(words) and words[0] in AUXILIARIES and "or" not in words and "whether" not in words


def question_template(text: str) -> str:
    masked: list[str] = []
    for position, word in enumerate(_TOKEN.findall(question_part(text))):
        if _DIGIT.search(word) or word.casefold().rstrip(".") in MONTH_NUMBERS:
            token = "#"
        elif position > 0 and word[:1].isupper():
            token = "X"
        else:
            token = word.casefold()
        if not (masked and token in ("#", "X") and masked[-1] == token):
            masked.append(token)
    return " ".join(masked)
