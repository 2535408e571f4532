"""A numeric answer as a value and its unit: "41 seats" -> (41.0, "seats"), "$2.5 billion" -> (2.5e9, "USD").

Level 4 keeps the numeric answers OpenForesight's answer-type filter drops; a forecaster is told the unit
(it is part of the question), the value is what the clipped squared error compares.
"""

from __future__ import annotations

import re
from typing import Final

_SCALES: Final = {
    "thousand": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "trillion": 1e12,
}
_CURRENCIES: Final = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}
_PERCENT: Final = ("%", "percent", "per cent", "percentage points")
_NUMBER = re.compile(
    r"^\s*(?P<currency>[$€£¥])?\s*(?P<number>-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?)\s*"
    r"(?P<rest>.*?)\s*$",
    re.IGNORECASE,
)


def parse_quantity(answer: str) -> tuple[float, str] | None:
    """(value, unit) of an answer that is one number with an optional currency, scale and unit; else None.

    A range ("10-12"), two numbers or a number inside prose is None: the score compares one value.
    """
    match = _NUMBER.match(answer)
    if match is None:
        return None
    value = float(match.group("number").replace(",", ""))
    rest = match.group("rest").strip().rstrip(".")
    words = rest.split()
    if words and words[0].lower() in _SCALES:
        value *= _SCALES[words[0].lower()]
        words = words[1:]
    unit_text = " ".join(words)
    if any(char.isdigit() for char in unit_text) or unit_text.startswith(("-", "to ", "\u2013")):
        return None
    currency = match.group("currency")
    if currency:
        unit = _CURRENCIES[currency] + (f" {unit_text}" if unit_text else "")
    elif unit_text.lower() in _PERCENT:
        unit = "percent"
    else:
        unit = unit_text or "count"
    return value, unit
