"""Outcome details in a question title: counts, margins, tallies and "up from ..." comparisons.

A title written from an article that reports the outcome tends to carry it ("... by 14 votes to 9 ...",
"... 41 of the 80 seats, up from 29 ..."): the question then answers itself. Two readings, shared by the
OpenForesight leakage step (which removes them) and ``almanac check`` (which reports what is left):

* outcome phrases, removed whole: "up/down from N ...", "by N votes to M", "N-M vote", "a majority of N",
  "a margin of N", "with N% of the vote";
* numbers (digits, or number words from "two" on, with an approximator such as "about" and a scale such
  as "million" or "%"): replaced by "some". Not numbers here: a date the title names ("by May 5, 2025",
  read by almanac.core.date_mentions), a year on its own, a digit inside a name ("G7", "COVID-19").
  "one" is left alone: "which one", "one of" are not counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from almanac.core.date_mentions import dates_named

_WORD_TEXT = """
    two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred dozen half
"""
_WORDS = _WORD_TEXT.split()
_WORD = r"(?:" + "|".join(_WORDS) + r")(?:[- ](?:one|two|three|four|five|six|seven|eight|nine))?"
_DIGITS = r"\d+(?:[.,]\d+)*"
_SCALE = r"(?:\s*(?:%|per\s?cent\b|percent\b|thousand\b|million\b|billion\b|trillion\b|bn\b|m\b|k\b))?"
_APPROX = r"(?:(?:about|around|roughly|nearly|almost|some|over|under|more\s+than|less\s+than|at\s+least)\s+)?"
NUMBER = rf"(?:(?<![\w.\-]){_DIGITS}(?![\w\-])|\b{_WORD}\b)"
_NUM_OR_ONE = rf"(?:{NUMBER}|\bone\b)"
_NUMBER_EXPRESSION = re.compile(rf"(?:[$€£]\s?)?\b{_APPROX}{NUMBER}{_SCALE}|[$€£]\s?{_DIGITS}{_SCALE}", re.I)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_REST = r"[^,;?]*?(?=,|;|\?|\s+by\s+(?:the\s+end\s+of\s+)?[A-Z0-9]|$)"
OUTCOME_PHRASES = (
    re.compile(
        rf",?\s*\b(?:up|down|rising|falling|increasing|decreasing)\s+from\s+{_NUM_OR_ONE}{_REST}", re.I
    ),
    re.compile(rf"\s*\bby\s+{_NUM_OR_ONE}\s+votes?\s+to\s+{_NUM_OR_ONE}", re.I),
    re.compile(
        rf"\s*\b(?:by\s+)?(?:an?\s+)?{_DIGITS}\s*(?:-|\u2013|to)\s*{_DIGITS}\s+(?:vote|votes|margin|win|victory|defeat)\b",
        re.I,
    ),
    re.compile(rf",?\s*(?:\ban?\s+)?\bmajority\s+of\s+{_NUM_OR_ONE}(?:\s+seats?)?", re.I),
    re.compile(rf",?\s*(?:\bby\s+)?(?:\ban?\s+)?\bmargin\s+of\s+{_NUM_OR_ONE}{_REST}", re.I),
    re.compile(rf",?\s*\bwith\s+{_APPROX}{NUMBER}{_SCALE}\s+of\s+the\s+vote", re.I),
)


@dataclass(frozen=True)
class NumberMention:
    text: str  # as written, with approximator and scale
    value: str  # the bare number: digits without thousands commas, or the number word, lower case
    start: int
    end: int


def outcome_phrases(title: str) -> list[str]:
    return [match.group(0).strip(" ,") for pattern in OUTCOME_PHRASES for match in pattern.finditer(title)]


def numbers_in(title: str, context: date | None = None) -> list[NumberMention]:
    """The counts a title states: numbers outside the dates it names, years on their own excluded."""
    protected = [(m.start, m.end) for m in _date_spans(title, context or date(2000, 1, 1))]
    found: list[NumberMention] = []
    for match in _NUMBER_EXPRESSION.finditer(title):
        if any(start < match.end() and match.start() < end for start, end in protected):
            continue
        bare = re.search(rf"{_DIGITS}|{_WORD}", match.group(0), re.I)
        if bare is None:
            continue
        value = bare.group(0).replace(",", "").casefold()
        if _YEAR.match(value):
            continue
        found.append(NumberMention(match.group(0), value, match.start(), match.end()))
    return found


@dataclass(frozen=True)
class _Span:
    start: int
    end: int


def _date_spans(text: str, context: date) -> list[_Span]:
    spans: list[_Span] = []
    position = 0
    for mention in dates_named(text, context):
        start = text.find(mention.text, position)
        if start >= 0:
            spans.append(_Span(start, start + len(mention.text)))
            position = start + len(mention.text)
    return spans


def strip_outcomes(title: str) -> str:
    """The title without outcome phrases, its remaining counts replaced by "some"; the spacing around a
    cut tidied. A title with neither comes back unchanged, byte for byte."""
    original = title
    for pattern in OUTCOME_PHRASES:
        title = pattern.sub("", title)
    for number in reversed(numbers_in(title)):
        title = title[: number.start] + "some" + title[number.end :]
    if title == original:
        return original
    title = re.sub(r"\s{2,}", " ", title)
    title = re.sub(r"\s+([,?.;])", r"\1", title)
    return re.sub(r",\s*,", ",", title).strip()
