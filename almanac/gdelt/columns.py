"""Fast path of gdelt_ingest: split a whole file with pyarrow.csv and type its columns with Arrow kernels.

A value is accepted here only when it provably meets the same rule as ``values.py``: ASCII digits for
an integer (at most 18, so int64 cannot overflow), a plain decimal that is finite, a date or time whose
digits format back to themselves (Arrow's strptime would roll 2025-02-30 over to March). Rows holding
any other value, and rows with another field count, go back by line number to the row path, which
accepts or rejects them. So both paths give the same table; this one is an order of magnitude faster
(bench/gdelt_ingest.py).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.csv as pacsv

from almanac.core.lazy import lazy_module
from almanac.gdelt.values import NON_NEGATIVE_FIELDS

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

# Plain decimals only (GDELT writes no exponents): anything else, e.g. "1e999", is left to values.py.
_DECIMAL = r"^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$"


@dataclass(frozen=True)
class FastRead:
    table: pa.Table  # typed columns named as ``names``, only rows every value of which was proven
    lines: list[int]  # physical line number of each row of ``table``
    row_path_lines: list[int]  # lines for values.py: other field counts, or a value not proven here
    invalid_utf8_rows: int  # rows of ``table`` in which some bytes were not UTF-8 (kept as U+FFFD)


def read_fast(
    data: bytes, lines: list[bytes], names: Sequence[str], schema: pa.Schema, nonblank: list[int]
) -> FastRead | None:
    """Type ``data`` (split into ``lines``, the non-empty ones at ``nonblank``); None when Arrow cannot
    split it, and the caller reads every line by rows."""
    column_type = pa.string()
    if not _is_utf8(data):
        # Arrow decodes a row of another width to hand it over, and fails on bytes that are not UTF-8.
        width = len(names) - 1
        if any(line.count(b"\t") != width for line in lines if line and not _is_utf8(line)):
            return None
        column_type = pa.binary()  # and decode column by column
    try:
        split = _split(data, names, column_type)
        if split is None:
            return None
        raw, ragged = split
        skipped = set(ragged)
        numbers = [line for index, line in enumerate(nonblank, start=1) if index not in skipped]
        if len(numbers) != raw.num_rows:
            return None  # Arrow and bytes.splitlines disagree on where lines are: trust neither
        columns, unproven, invalid = _type_columns(raw, schema)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None  # not lost: the caller re-reads every line on the row path, which rejects with reasons
    keep = pc.invert(unproven)
    line_array = pa.array(numbers, pa.int64())
    table = pa.Table.from_arrays(columns, names=list(names)).filter(keep)
    kept_lines = line_array.filter(keep).to_pylist()
    slow = sorted([nonblank[number - 1] for number in ragged] + line_array.filter(unproven).to_pylist())
    invalid_kept = pc.sum(pc.and_(invalid, keep)).as_py() or 0
    return FastRead(table, kept_lines, slow, invalid_kept)


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _split(data: bytes, names: Sequence[str], column_type: pa.DataType) -> tuple[pa.Table, list[int]] | None:
    """Columns of ``column_type`` and the rows of another width (1-based among non-empty lines)."""
    ragged: list[int] = []

    def other_width(row: Any) -> str:
        ragged.append(row.number)
        return "skip"

    try:
        table = pacsv.read_csv(
            io.BytesIO(data),
            read_options=pacsv.ReadOptions(
                column_names=list(names), use_threads=False, block_size=max(1 << 20, len(data) + 1)
            ),
            parse_options=pacsv.ParseOptions(
                delimiter="\t", quote_char=False, ignore_empty_lines=True, invalid_row_handler=other_width
            ),
            convert_options=pacsv.ConvertOptions(column_types=dict.fromkeys(names, column_type)),
        )
    except (pa.ArrowInvalid, UnicodeDecodeError):
        return None
    return table, ragged


def _type_columns(raw: pa.Table, schema: pa.Schema) -> tuple[list[pa.Array], pa.Array, pa.Array]:
    """(typed columns, rows with an unproven value, rows with bytes that are not UTF-8)."""
    nothing = pa.array([False] * raw.num_rows, pa.bool_())
    unproven, invalid = nothing, nothing
    columns = []
    for name in raw.column_names:
        field = schema.field(name)
        text, bad_bytes = _as_text(raw.column(name).combine_chunks())
        empty = pc.equal(pc.binary_length(text), 0)
        values, proven = _typed(text, field.type)
        if name in NON_NEGATIVE_FIELDS:  # a negative count is for values.py to reject
            proven = pc.and_(proven, pc.invert(pc.starts_with(text, "-")))
        refused = pc.and_(pc.invert(empty), pc.invert(proven))
        if not field.nullable:
            refused = pc.or_(refused, empty)
        unproven = pc.or_(unproven, refused)
        if bad_bytes is not None:
            invalid = pc.or_(invalid, bad_bytes)
        columns.append(pc.if_else(empty, pa.scalar(None, field.type), values))
    return columns, unproven, invalid


def _as_text(column: pa.Array) -> tuple[pa.Array, pa.Array | None]:
    """The column as strings, and which values had bytes that are not UTF-8 (None: none had)."""
    if pa.types.is_string(column.type):
        return column, None
    try:
        return column.cast(pa.string()), None
    except pa.ArrowInvalid:  # decode this column in Python, as values.py does
        decoded, flags = [], []
        for value in column.to_pylist():
            try:
                decoded.append(value.decode("utf-8"))
                flags.append(False)
            except UnicodeDecodeError:
                decoded.append(value.decode("utf-8", "replace"))
                flags.append(True)
        return pa.array(decoded, pa.string()), pa.array(flags, pa.bool_())


def _typed(text: pa.Array, target: pa.DataType) -> tuple[pa.Array, pa.Array]:
    """(values of ``target`` type, which of them were proven); unproven slots hold anything."""
    if pa.types.is_string(target):
        return text, pa.array([True] * len(text), pa.bool_())
    if pa.types.is_integer(target):
        unsigned = pc.if_else(pc.starts_with(text, "-"), pc.utf8_slice_codeunits(text, 1), text)
        length = pc.utf8_length(unsigned)
        proven = pc.and_(_all_digits(unsigned), pc.and_(pc.greater(length, 0), pc.less_equal(length, 18)))
        numbers = pc.cast(pc.if_else(proven, text, "0"), pa.int64())
        bits = target.bit_width
        if bits < 64:
            low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
            proven = pc.and_(proven, pc.and_(pc.greater_equal(numbers, low), pc.less_equal(numbers, high)))
        return pc.cast(pc.if_else(proven, numbers, 0), target), proven
    if pa.types.is_floating(target):
        proven = pc.and_(pc.match_substring_regex(text, _DECIMAL), pc.less_equal(pc.utf8_length(text), 30))
        numbers = pc.cast(pc.if_else(proven, text, "0"), pa.float64())
        return numbers, pc.and_(proven, pc.is_finite(numbers))
    if pa.types.is_boolean(target):
        return pc.equal(text, "1"), pc.is_in(text, value_set=pa.array(["0", "1"]))
    if pa.types.is_date32(target):
        moments, proven = _calendar(text, "%Y%m%d", 8)
        return pc.cast(moments, pa.date32()), proven
    if pa.types.is_timestamp(target):  # 14 digits (GDELT 2.0), or a GDELT 1.0 day at midnight
        seconds, to_second = _calendar(text, "%Y%m%d%H%M%S", 14)
        days, to_day = _calendar(text, "%Y%m%d", 8)
        moments = pc.if_else(to_second, seconds, days)
        return pc.cast(moments, target), pc.or_(to_second, to_day)
    raise TypeError(f"no fast path for {target}")


def _calendar(text: pa.Array, layout: str, width: int) -> tuple[pa.Array, pa.Array]:
    """Times of ``width``-digit strings in ``layout``, proven when every component reads back the same
    (checked field by field: strftime would be the obvious round trip but is ~20x slower here)."""
    shaped = pc.and_(_all_digits(text), pc.equal(pc.utf8_length(text), width))
    safe = pc.if_else(shaped, text, "19700101000000"[:width])
    moments = pc.strptime(safe, format=layout, unit="s", error_is_null=True)
    proven = pc.and_(shaped, pc.is_valid(moments))
    proven = pc.and_(
        proven, pc.greater(pc.cast(pc.utf8_slice_codeunits(safe, 0, 4), pa.int64()), 0)
    )  # year 1+
    filled = pc.fill_null(moments, pa.scalar(0, pa.timestamp("s")))
    components = (pc.year, pc.month, pc.day, pc.hour, pc.minute, pc.second)[: width // 2 - 1]
    for index, component in enumerate(components):
        start = 0 if index == 0 else 2 + 2 * index
        digits = pc.cast(pc.utf8_slice_codeunits(safe, start, 4 + 2 * index), pa.int64())
        proven = pc.and_(proven, pc.equal(component(filled), digits))
    return filled, proven


def _all_digits(text: pa.Array) -> pa.Array:
    return pc.fill_null(pc.ascii_is_decimal(text), False)
