"""spaCy access and small text helpers shared by the offline task rules."""

from __future__ import annotations

import importlib
import sys
import unicodedata
from datetime import date, timedelta
from functools import lru_cache
from types import ModuleType
from typing import Any

from almanac.core.months import MONTH_NAMES

# Entity labels that make good short answers, with how a question asks for them.
WH_WORD = {
    "PERSON": "Who",
    "ORG": "Which organization",
    "GPE": "Which place",
    "LOC": "Which place",
    "NORP": "Which group",
    "FAC": "Which venue",
    "EVENT": "Which event",
    "WORK_OF_ART": "Which work",
    "PRODUCT": "Which product",
    "LAW": "Which law",
}


ANSWER_TYPE = {
    "PERSON": "string (name)",
    "ORG": "string (organization)",
    "GPE": "string (location)",
    "LOC": "string (location)",
    "NORP": "string (group)",
    "FAC": "string (location)",
    "EVENT": "string (event)",
    "WORK_OF_ART": "string (title)",
    "PRODUCT": "string (product)",
    "LAW": "string (law)",
}


ANSWER_FORMAT = {
    "string (name)": "the full name of the person",
    "string (organization)": "the name of the organization",
    "string (location)": "the name of the place",
    "string (group)": "the name of the group",
    "string (event)": "the name of the event",
    "string (title)": "the title of the work",
    "string (product)": "the name of the product",
    "string (law)": "the name of the law",
}


PLACEHOLDER = {
    "string (name)": "a certain person",
    "string (organization)": "a certain organization",
    "string (location)": "a certain place",
    "string (group)": "a certain group",
}


MONTHS = MONTH_NAMES


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@lru_cache(maxsize=4)
def load_nlp(model: str) -> Any:
    """One spaCy pipeline per model per process (loading costs about a second)."""
    return import_spacy().load(model)


def import_spacy() -> Any:
    """``import spacy`` without its command line: spaCy's ``__init__`` imports ``spacy.cli`` (every CLI
    command, with typer, weasel, httpx and requests) only to expose ``spacy.info``, about half of the
    ~1.5 s of CPU its import costs in every stage process that parses text. While spaCy's own modules
    load, ``spacy.cli`` is an empty placeholder; then it is dropped, so ``import spacy.cli`` later loads
    the real one, and so does the first call of ``spacy.info``. Nothing else of spaCy imports its CLI;
    loading and running a pipeline are the same code either way."""
    if "spacy" in sys.modules:
        return sys.modules["spacy"]
    package, module = ModuleType("spacy.cli"), ModuleType("spacy.cli.info")
    package.__path__ = []
    module.info = _spacy_info  # type: ignore[attr-defined]
    placeholders = {"spacy.cli": package, "spacy.cli.info": module}
    absent = {name: stub for name, stub in placeholders.items() if name not in sys.modules}
    sys.modules.update(absent)
    try:
        import spacy
    finally:
        for name, stub in absent.items():
            if sys.modules.get(name) is stub:
                del sys.modules[name]
    return spacy


def _spacy_info(*args: Any, **kwargs: Any) -> Any:
    # By name: spaCy's CLI is outside what mypy checks (pyproject.toml), and this only forwards to it.
    return importlib.import_module("spacy.cli.info").info(*args, **kwargs)


@lru_cache(maxsize=4096)
def parse(text: str, model: str) -> Any:
    """Parsed document, memoised: several tasks read the same article in one run. Room for every text
    of a stage on the sample (the timelines parse ~700 lines and clauses; at 512 a tenth were parsed
    twice); a document is a few KB."""
    return load_nlp(model)(text)


def fold(text: str) -> str:
    """Lower case, accents stripped, whitespace collapsed; unlike almanac.core.text.fold it keeps
    punctuation, which the date and sentence rules here read."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    return " ".join(stripped.casefold().split())


def long_date(day: date) -> str:
    return f"{MONTHS[day.month - 1].capitalize()} {day.day}, {day.year}"


def resolve_date(text: str, anchor: date) -> date | None:
    """A calendar day for a DATE mention, read relative to the article's date; None if vague."""
    words = fold(text).replace(",", " ").split()
    if not words:
        return None
    if words[-1] in ("today", "tonight") or words == ["this", "morning"]:
        return anchor
    if words[-1] == "yesterday":
        return anchor - timedelta(days=1)
    if len(words) <= 2 and words[-1] in WEEKDAYS:
        # "Monday" in news copy means the most recent Monday up to the publish day.
        back = (anchor.weekday() - WEEKDAYS.index(words[-1])) % 7
        return anchor - timedelta(days=back)
    return _calendar_date(words, anchor)


def _calendar_date(words: list[str], anchor: date) -> date | None:
    month = day = year = None
    for word in words:
        token = word.rstrip(".")
        for suffix in ("st", "nd", "rd", "th"):
            if token.endswith(suffix) and token[: -len(suffix)].isdigit():
                token = token[: -len(suffix)]
        if token in MONTHS:
            month = MONTHS.index(token) + 1
        elif token.isdigit() and len(token) == 4:
            year = int(token)
        elif token.isdigit() and 1 <= int(token) <= 31:
            day = int(token)
    if month is None or day is None:
        return None
    for candidate_year in [year] if year else [anchor.year, anchor.year - 1]:
        try:
            found = date(candidate_year, month, day)
        except ValueError:
            return None
        if year or found <= anchor:
            return found
    return None
