"""The reference meaning of every GDELT field: one raw row (a list of strings) -> typed values or a reason.

Export rows are recognised by their field count: 61 (GDELT 2.0), 58 (GDELT 1.0 daily files: the same
fields without the three ``*Geo_ADM2Code`` columns, DATEADDED as YYYYMMDD) and 57 (GDELT 1.0
historical backfiles: the 58 without the final SOURCEURL), both mapped into the 2.0 layout with the
fields they lack null. A backfile's DATEADDED is the day the row entered GDELT (in 2013 for a 1979
event), never earlier than its Day; it is kept as written and not replaced by Day, so no row claims to
have been known before GDELT had it. Values are strict: an
integer is ASCII digits with an optional minus, a decimal has no spaces, NaN or infinity, a date is a
real calendar date. The vectorised reader (``columns.py``) only accepts what it can prove these rules
accept, and hands every other row to these functions, which decide.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

import pyarrow as pa

from almanac.gdelt.schema import (
    EXPORT_FIELDS_V1,
    EXPORT_FIELDS_V2,
    EXPORT_SCHEMA,
    HISTORICAL_FIELD_COUNT,
    MENTIONS_FIELDS,
    MENTIONS_SCHEMA,
)

_DECIMAL = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?", re.ASCII)
# Counts: a negative value is a damaged row, not an event GDELT could have written. (The mentions
# character offsets are not counts: -1 means the actor was not found in the text.)
NON_NEGATIVE_FIELDS = frozenset({"NumMentions", "NumSources", "NumArticles", "MentionDocLen"})


class BadValue(ValueError):
    pass


def _int(bits: int) -> Callable[[str], int | None]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1

    def parse(text: str) -> int | None:
        if not text:
            return None
        digits = text[1:] if text[0] == "-" else text
        if not (digits.isdigit() and digits.isascii()):  # int() would also take " 7", "+7", "1_0"
            raise BadValue(f"{text!r} is not an integer")
        value = int(text)
        if not low <= value <= high:
            raise BadValue(f"{text} does not fit in int{bits}")
        return value

    return parse


def _float(text: str) -> float | None:
    if not text:
        return None
    if not _DECIMAL.fullmatch(text):  # also refuses nan/inf, which float() would take
        raise BadValue(f"{text!r} is not a decimal number")
    value = float(text)
    if not math.isfinite(value):
        raise BadValue(f"{text!r} is out of range")
    return value


def _string(text: str) -> str | None:
    return text or None


def _bool(text: str) -> bool | None:
    if not text:
        return None
    if text not in ("0", "1"):
        raise BadValue(f"{text!r} is not 0 or 1")
    return text == "1"


def _day(text: str) -> date | None:
    if not text:
        return None
    if len(text) != 8 or not text.isdigit() or not text.isascii():
        raise BadValue(f"{text!r} is not a YYYYMMDD date")
    try:
        return date(int(text[:4]), int(text[4:6]), int(text[6:]))
    except ValueError as error:
        raise BadValue(f"{text!r} is not a calendar date ({error})") from None


def _timestamp(text: str) -> datetime | None:
    """YYYYMMDDHHMMSS (GDELT 2.0) as UTC; an 8-digit YYYYMMDD (GDELT 1.0) is that day's midnight."""
    if not text:
        return None
    if len(text) not in (8, 14) or not text.isdigit() or not text.isascii():
        raise BadValue(f"{text!r} is not a YYYYMMDDHHMMSS time")
    try:
        if len(text) == 8:
            return datetime(int(text[:4]), int(text[4:6]), int(text[6:]), tzinfo=UTC)
        return datetime(
            int(text[:4]),
            int(text[4:6]),
            int(text[6:8]),
            int(text[8:10]),
            int(text[10:12]),
            int(text[12:]),
            tzinfo=UTC,
        )
    except ValueError as error:
        raise BadValue(f"{text!r} is not a calendar time ({error})") from None


_PARSERS: dict[pa.DataType, Callable[[str], Any]] = {
    pa.int8(): _int(8),
    pa.int32(): _int(32),
    pa.int64(): _int(64),
    pa.float64(): _float,
    pa.string(): _string,
    pa.bool_(): _bool,
    pa.date32(): _day,
}


def _parser(field: pa.Field) -> Callable[[str], Any]:
    return _timestamp if pa.types.is_timestamp(field.type) else _PARSERS[field.type]


@dataclass(frozen=True)
class Layout:
    names: tuple[str, ...]
    parsers: tuple[Callable[[str], Any], ...]
    required: tuple[int, ...]  # positions that may not be empty (non-nullable columns)
    non_negative: tuple[int, ...] = ()  # positions of counts (NON_NEGATIVE_FIELDS)


def _layout(schema: pa.Schema, names: Sequence[str]) -> Layout:
    fields = [schema.field(name) for name in names]
    required = tuple(index for index, field in enumerate(fields) if not field.nullable)
    counts = tuple(index for index, name in enumerate(names) if name in NON_NEGATIVE_FIELDS)
    return Layout(tuple(names), tuple(_parser(field) for field in fields), required, counts)


_EXPORT_V2 = _layout(EXPORT_SCHEMA, EXPORT_FIELDS_V2)
_EXPORT_V1 = _layout(EXPORT_SCHEMA, EXPORT_FIELDS_V1)
# GDELT 1.0 historical backfiles (1979 to March 2013): the daily layout up to DATEADDED, no SOURCEURL.
EXPORT_FIELDS_HISTORICAL: tuple[str, ...] = EXPORT_FIELDS_V1[:HISTORICAL_FIELD_COUNT]
assert EXPORT_FIELDS_V1[HISTORICAL_FIELD_COUNT:] == ("SOURCEURL",)
_EXPORT_HISTORICAL = _layout(EXPORT_SCHEMA, EXPORT_FIELDS_HISTORICAL)
_MENTIONS = _layout(MENTIONS_SCHEMA, MENTIONS_FIELDS)
# Where each GDELT 1.0 field goes in a 2.0 row (the three ADM2 columns, and SOURCEURL of a backfile
# row, stay null).
_V1_POSITIONS = [EXPORT_FIELDS_V2.index(name) for name in EXPORT_FIELDS_V1]


def parse_fields(fields: list[str], layout: Layout) -> list[Any]:
    """Typed values in ``layout`` order; BadValue names the first field that does not parse."""
    try:
        # Strings (half the columns) skip the function call: this line is the ingest's hot loop.
        values = [
            (text or None) if parse is _string else parse(text)
            for parse, text in zip(layout.parsers, fields, strict=True)
        ]
    except BadValue:
        for name, parse, text in zip(layout.names, layout.parsers, fields, strict=True):  # to say which
            try:
                parse(text)
            except BadValue as error:
                raise BadValue(f"{name}: {error}") from None
        raise
    for index in layout.required:
        if values[index] is None:
            raise BadValue(f"{layout.names[index]}: empty, but every row needs one")
    for index in layout.non_negative:
        count = values[index]
        if isinstance(count, int) and count < 0:
            raise BadValue(f"{layout.names[index]}: {count} is negative, but it is a count")
    return values


def parse_export_fields(fields: list[str]) -> tuple[list[Any], str]:
    """(the 61 typed values in GDELT 2.0 order, gdelt_version); raises BadValue or WrongShape."""
    count = len(fields)
    if count == len(EXPORT_FIELDS_V2):
        return parse_fields(fields, _EXPORT_V2), "2.0"
    if count in (len(EXPORT_FIELDS_V1), HISTORICAL_FIELD_COUNT):
        layout = _EXPORT_V1 if count == len(EXPORT_FIELDS_V1) else _EXPORT_HISTORICAL
        row: list[Any] = [None] * len(EXPORT_FIELDS_V2)
        for position, value in zip(_V1_POSITIONS, parse_fields(fields, layout), strict=False):
            row[position] = value
        return row, "1.0"
    raise WrongShape(
        "wrong_field_count",
        f"{count} fields; an export row has 61 (GDELT 2.0), 58 (GDELT 1.0 daily) or 57 (GDELT 1.0 backfile)",
    )


def parse_mentions_fields(fields: list[str]) -> list[Any]:
    """The 16 typed values of a mentions row."""
    if len(fields) != len(MENTIONS_FIELDS):
        raise WrongShape("wrong_field_count", f"{len(fields)} fields; a mentions row has 16")
    return parse_fields(fields, _MENTIONS)


def rows_to_table(rows: list[list[Any]], schema: pa.Schema) -> pa.Table:
    """Rows whose values are in ``schema`` order -> a table, built column by column."""
    if not rows:
        return schema.empty_table()
    columns = zip(*rows, strict=True)
    arrays = [pa.array(column, type=field.type) for column, field in zip(columns, schema, strict=True)]
    return pa.Table.from_arrays(arrays, schema=schema)


class WrongShape(ValueError):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def split_line(raw: bytes) -> tuple[list[str], bool]:
    """The tab-separated fields of one line (no quoting), and whether it held bytes that are not UTF-8.

    Bad bytes become U+FFFD in their field: GDELT's text fields are names and URLs, and keeping the
    event with one replaced character loses less than dropping it (the count goes to the metrics).
    """
    try:
        return raw.decode("utf-8").split("\t"), False
    except UnicodeDecodeError:
        return [part.decode("utf-8", "replace") for part in raw.split(b"\t")], True


def parse_row(fields: list[str], kind: str) -> tuple[list[Any], str | None]:
    """(typed values in schema order without provenance, gdelt_version or None for mentions)."""
    if kind == "export":
        return parse_export_fields(fields)
    return parse_mentions_fields(fields), None
