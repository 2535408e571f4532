"""Lines of a byte stream with a cap on each: a longer line is counted and dropped, never held.

Reading ``for line in stream`` (or ``data.splitlines()``) holds a whole line, however long: a 400 MB
line in a 400 KB zip is 400 MB of bytes and more in every copy made of it. Here blocks are split as
they arrive, the current line is kept only while it is within ``max_line_bytes``, and a line over the
cap comes out as a :class:`LongLine` with its number and size, so the reader can reject it and go on.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class LongLine:
    """A line over ``max_line_bytes``: only its number and size were kept."""

    number: int
    size: int


Line = tuple[int, bytes]  # (physical line number from 1, the line without its terminator)


def split_blocks(
    blocks: Iterable[bytes], max_line_bytes: int, universal: bool = True
) -> Iterator[Line | LongLine]:
    """Every line of the concatenated ``blocks`` (blank ones too, so that numbers are physical).

    ``universal``: lines end at ``\\n``, ``\\r\\n`` or ``\\r``, as :meth:`bytes.splitlines` and
    pyarrow.csv split them; otherwise at ``\\n`` only, as iterating over a binary file does (the
    ``\\r`` of ``\\r\\n`` then stays on the line). The last line needs no terminator.
    """
    line = bytearray()  # the current line's bytes while it is within the cap
    size = 0  # the current line's length so far, kept or not
    number = 0
    skip_newline = False  # universal: the previous block ended with "\r", so a "\n" opening this one is its
    for block in blocks:
        if universal:
            if skip_newline and block.startswith(b"\n"):
                block = block[1:]
            skip_newline = block.endswith(b"\r")
            pieces = block.splitlines(keepends=True)
        else:
            pieces = block.split(b"\n")
            pieces = [piece + b"\n" for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        for piece in pieces:
            body = piece.rstrip(b"\r\n") if universal else piece.removesuffix(b"\n")
            ended = len(body) != len(piece)
            size += len(body)
            if size <= max_line_bytes:
                line += body
            else:
                line.clear()  # over the cap: count the rest, keep nothing
            if ended:
                number += 1
                yield (number, bytes(line)) if size <= max_line_bytes else LongLine(number, size)
                line.clear()
                size = 0
    if size or line:
        number += 1
        yield (number, bytes(line)) if size <= max_line_bytes else LongLine(number, size)
