"""Reading dates and article layout for the offline event rules.

A DATE mention resolves to the dates it states: a day, a month or a year (two for a span such as
"March to July 2025", the missing year or month of its first part taken from the second). A month or
day without a year is, in news copy, the one nearest the document date ("last May" the latest before
it, "next May" the first after it), else in the last year stated before it in the text (encyclopaedic
text, starting from a year in its title); relative dates ("yesterday", "on Monday": the latest such day
up to the document date) need a document date. Mentions after "since", "before" or "prior to" are
reference points, not the date of what the sentence reports.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from almanac.core.nlp import MONTHS, fold, resolve_date
from almanac.events.llm_tasks.replies import EventDate

MONTH_NUMBER = {name: number for number, name in enumerate(MONTHS, 1)} | {
    name[:3]: number for number, name in enumerate(MONTHS, 1)
}


MONTH_NUMBER["sept"] = 9


_RANGE_WORDS = frozenset({"to", "and", "until", "till", "through", "between", "from", "or"})


_REFERENCE_WORDS = frozenset({"since", "before"})  # "since 2011": a bound, not when the event happened


_HEADING = re.compile(r"^(=+|#+)\s*(.*?)\s*=*$")


_YEAR = re.compile(r"\b(1[5-9]\d\d|2[01]\d\d)\b")


_DASHES = "\u2013\u2014"


_SEASON = re.compile(rf"^(\d{{4}})\s*[{_DASHES}/-]\s*(\d{{2}}|\d{{4}})$")  # "2024-25"


def event_date(year: int, month: int = 0, day: int = 0) -> EventDate | None:
    """The EventDate for a year, month or day; None for an impossible calendar date."""
    if not 1000 <= year <= 2999 or not 0 <= month <= 12:
        return None
    if not month:
        return EventDate(f"{year:04d}", "year")
    if not day:
        return EventDate(f"{year:04d}-{month:02d}", "month")
    try:
        return EventDate(date(year, month, day).isoformat(), "day")
    except ValueError:
        return None


def date_key(value: EventDate) -> tuple[int, int, int] | None:
    """Chronological sort key; a coarser date sorts before the finer dates inside it. None = unknown."""
    if value.precision == "unknown":
        return None
    parts = [int(part) for part in value.date.split("-")]
    return (parts[0], parts[1] if len(parts) > 1 else 0, parts[2] if len(parts) > 2 else 0)


def mention_dates(
    text: str, anchor: date | None, context_year: int | None, tense: int = 0
) -> list[EventDate]:
    """The dates one DATE mention states, in order (two for a span); empty when it does not resolve.

    ``tense`` -1 says the mention dates a past-tense verb: a bare "November" is then the last one.
    """
    text = re.sub(rf"\b(\d\d)(\d\d)\s*[{_DASHES}-]\s*(\d\d)\b", r"\1\2 to \1\3", text)  # 2024-25
    text = re.sub(rf"\s*[{_DASHES}]\s*|(?<=\d)\s*-\s*(?=\d)", " to ", text)
    tokens = _date_tokens(text)
    named = any(token in MONTH_NUMBER or (len(token) == 4 and token.isdigit()) for token in tokens)
    if anchor is not None and not named:
        relative = resolve_date(text, anchor)  # today, yesterday, a weekday
        if relative is not None:
            return [EventDate(relative.isoformat(), "day")]
    parts: list[list[int]] = [[0, 0, 0]]  # year, month, day per part of a span
    for token in tokens:
        if token in _RANGE_WORDS:
            parts.append([0, 0, 0])
        elif token in MONTH_NUMBER:
            parts[-1][1] = MONTH_NUMBER[token]
        elif token.isdigit() and len(token) == 4:
            parts[-1][0] = int(token)
        elif token.isdigit() and 1 <= int(token) <= 31:
            parts[-1][2] = int(token)
    parts = [part for part in parts if any(part)]  # "between March ..." opens with an empty part
    for index in range(len(parts) - 2, -1, -1):  # "March and July 2025", "3 to 5 March 2025"
        later = parts[index + 1]
        if not parts[index][0]:
            parts[index][0] = later[0]
        if parts[index][2] and not parts[index][1]:
            parts[index][1] = later[1]
    parts = [part for part in parts if part[0] or part[1]]
    found = []
    for year, month, day in parts:
        if not year and month:
            year = _year_for((month, day), anchor, context_year, _direction(tokens) or tense)
        resolved = event_date(year, month, day if month else 0) if year else None
        if resolved is not None:
            found.append(resolved)
    return found


def _date_tokens(text: str) -> list[str]:
    """Words and numbers, folded: "18th" reads as 18; "1990s" stays one token and names no year."""
    words = re.findall(r"\d+[a-z]*|[a-z]+", fold(text))
    return [re.sub(r"^(\d+)(st|nd|rd|th)$", r"\1", word) for word in words]


def _direction(tokens: list[str]) -> int:
    return -1 if "last" in tokens else 1 if "next" in tokens else 0


def _year_for(
    month_day: tuple[int, int], anchor: date | None, context_year: int | None, direction: int
) -> int:
    if anchor is None:
        return context_year or 0
    month, day = month_day
    here = (anchor.month, anchor.day)
    years = [anchor.year - 1, anchor.year, anchor.year + 1]
    if direction < 0:  # "last May", or a past-tense verb
        years = [year for year in years if (year, month, day or 31) < (anchor.year, *here)] or years
    elif direction > 0:  # "next May"
        years = [year for year in years if (year, month, day or 1) > (anchor.year, *here)] or years

    def distance(year: int) -> int:
        return abs((year * 12 + month) * 31 + (day or 15) - (anchor.year * 12 + here[0]) * 31 - here[1])

    return min(years, key=distance)


def read_dates(
    span: Any, anchor: date | None, context_year: int | None
) -> tuple[list[tuple[Any, list[EventDate]]], int | None]:
    """Resolvable DATE mentions of a parsed span in order, with the year context after reading them."""
    mentions = []
    for ent in span.ents:
        season = _SEASON.match(ent.text)
        if season:  # "the winter of 2024-25": spaCy tags the years as a number
            context_year = int(season.group(1)[:2] + season.group(2)[-2:])
        if ent.label_ != "DATE" or _is_reference(ent):
            continue
        dates = mention_dates(ent.text, anchor, context_year, _tense(ent.root))
        years = [int(year) for year in _YEAR.findall(ent.text)]
        if years:
            context_year = max(years)
        if dates:
            mentions.append((ent, dates))
    return mentions, context_year


def _tense(token: Any) -> int:
    """-1 when the verb the mention hangs from is in the past tense ("had agreed in November")."""
    verb = next((ancestor for ancestor in token.ancestors if ancestor.pos_ in ("VERB", "AUX")), None)
    if verb is None:
        return 0
    past = verb.tag_ == "VBD" or any(child.lower_ in ("had", "has", "have") for child in verb.children)
    return -1 if past else 0


def _is_reference(ent: Any) -> bool:
    before = ent.doc[ent.start - 1].lower_ if ent.start > 0 else ""
    two_before = ent.doc[ent.start - 2].lower_ if ent.start > 1 else ""
    return before in _REFERENCE_WORDS or (before == "to" and two_before == "prior")


def hypothetical(token: Any) -> bool:
    """The token sits in a modal or future clause ("would be dismissed before 2028")."""
    for ancestor in [token, *token.ancestors]:
        if any(child.tag_ == "MD" for child in ancestor.children):
            return True
    return False


def is_date_label(text: str) -> bool:
    """Only date words: "18 March 2025", "March 6, 2025" (a list item's date label)."""
    tokens = _date_tokens(text)
    return bool(tokens) and all(token.isdigit() or token in MONTH_NUMBER for token in tokens)


def title_year(title: str) -> int | None:
    found = _YEAR.search(title)
    return int(found.group(1)) if found else None


def heading_text(line: str) -> str | None:
    """The title when the line is a section heading (marked up, or short without closing punctuation)."""
    line = line.strip()
    marked = _HEADING.match(line)
    if marked:
        return marked.group(2)
    if line and len(line.split()) <= 10 and not line.endswith((".", "!", "?", ":", '"', "\u201d", ")", ";")):
        return line
    return None


def lead_lines(text: str) -> list[str]:
    """The paragraphs before the first heading (headings before any paragraph are passed over)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    lead: list[str] = []
    for line in lines:
        if heading_text(line) is not None:
            if lead:
                break
            continue
        lead.append(line)
    return lead
