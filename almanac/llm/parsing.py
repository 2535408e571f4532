"""Extraction of structured answers from model text: XML-like tags or a JSON object.

Tolerant of what models wrap around an answer (reasoning in ``<think>`` blocks, prose, Markdown
fences), strict about the answer itself: a required tag must be present exactly once (or repeated
with identical content), enumerated fields must take one of their allowed values, and nothing is
guessed. A verdict is read only from its dedicated tag, never from "the last digit in the text".
Every failure is a :class:`ParseError` whose message is specific enough to put in a repair prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_UNCLOSED_THINK = re.compile(r"\A\s*<(think|thinking|reasoning)>.*?(?=<[a-z_]+>)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"^```[a-zA-Z]*\s*$", re.MULTILINE)
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class ParseError(ValueError):
    """The answer does not follow the requested format; the message says how."""


def clean(text: str) -> str:
    """Drop reasoning blocks and Markdown fence lines that some servers leave in the content."""
    text = _THINK.sub("", text)
    text = _UNCLOSED_THINK.sub("", text)
    return _FENCE.sub("", text).strip()


def find_tags(text: str, tag: str) -> list[str]:
    """Contents of every ``<tag>...</tag>`` (tag names case-insensitive), stripped."""
    pattern = re.compile(rf"<{re.escape(tag)}>(.*?)</{re.escape(tag)}>", re.DOTALL | re.IGNORECASE)
    return [match.strip() for match in pattern.findall(text)]


def one_tag(text: str, tag: str, *, allow_empty: bool = False) -> str:
    """The content of ``<tag>``, which must occur once (or several times with identical content)."""
    found = find_tags(text, tag)
    if not found:
        raise ParseError(f"missing <{tag}>...</{tag}>")
    if len(set(found)) > 1:
        raise ParseError(f"<{tag}> appears {len(found)} times with different contents; give it exactly once")
    if not found[0] and not allow_empty:
        raise ParseError(f"<{tag}> is empty")
    return found[0]


def optional_tag(text: str, tag: str) -> str:
    found = find_tags(text, tag)
    if len(set(found)) > 1:
        raise ParseError(f"<{tag}> appears {len(found)} times with different contents")
    return found[0] if found else ""


def choice(value: str, allowed: Iterable[str], field: str) -> str:
    """``value`` normalised to one of ``allowed`` (case and surrounding punctuation ignored)."""
    options = {option.lower(): option for option in allowed}
    normal = value.strip().strip(".!*\"'`").strip().lower()
    if normal not in options:
        raise ParseError(
            f"{field} must be exactly one of {sorted(options.values())}, got {value.strip()[:40]!r}"
        )
    return options[normal]


def iso_date_or_unknown(value: str, field: str) -> str:
    """A ``YYYY-MM-DD`` calendar date (validated) or the literal ``unknown``."""
    value = value.strip()
    if value.lower() == "unknown":
        return "unknown"
    if not _ISO_DATE.match(value):
        raise ParseError(f"{field} must be a date written YYYY-MM-DD or 'unknown', got {value[:40]!r}")
    try:
        date.fromisoformat(value)
    except ValueError:
        raise ParseError(f"{field} is not a real calendar date: {value!r}") from None
    return value


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text`` that parses, surrounding prose ignored."""
    decoder = json.JSONDecoder()
    for index, char in enumerate(text):
        if char in "{[":
            try:
                value, _ = decoder.raw_decode(text, index)
            except ValueError:
                continue
            return value
    raise ParseError("no JSON object found")


def require_fields(record: Any, types: Mapping[str, type]) -> dict[str, Any]:
    """Check a JSON object has every field with the right type (bool is not accepted as int)."""
    if not isinstance(record, dict):
        raise ParseError(f"expected a JSON object, got {type(record).__name__}")
    for name, kind in types.items():
        if name not in record:
            raise ParseError(f"missing field {name!r}")
        value = record[name]
        if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
            raise ParseError(f"field {name!r} must be {kind.__name__}, got {type(value).__name__}")
    return record


def collapse(text: str) -> str:
    """Whitespace runs to single spaces (models wrap long tag contents over several lines)."""
    return " ".join(text.split())


def json_as_tags(text: str) -> str:
    """A structured (JSON) reply written as the tags the task's parser reads: ``{"verdict": "valid"}`` is
    ``<verdict>valid</verdict>``, a nested object nested tags, a list its items' tags one after another."""
    value = extract_json(clean(text))
    if not isinstance(value, dict):
        raise ParseError(f"expected a JSON object, got {type(value).__name__}")
    return _as_tags(value)


def _as_tags(value: Any, tag: str = "") -> str:
    if isinstance(value, dict):
        inner = "\n".join(_as_tags(item, str(name)) for name, item in value.items())
    elif isinstance(value, list):
        return "\n".join(_as_tags(item, tag) for item in value)
    elif isinstance(value, bool):
        inner = "yes" if value else "no"
    elif value is None:
        inner = ""
    else:
        inner = str(value)
    return f"<{tag}>{inner}</{tag}>" if tag else inner
