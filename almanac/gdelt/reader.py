"""The lines of a raw GDELT file (the single CSV member of a GDELT zip, or a plain ``.CSV``), streamed.

A file that cannot be read to the end (not a zip, a zip cut short, a CRC mismatch, several members)
raises :class:`FileRejected`: its rows are unusable as a whole, because a cut can fall anywhere,
including inside a row that would then still parse. So does a file whose CSV is larger than
``max_bytes`` (``member_too_large``): a few hundred KB of zip can inflate to gigabytes, so the size is
judged from the zip directory first and then enforced while the member is read (the directory can lie).

Memory is bounded by construction: the member is read in blocks of ``_BLOCK`` bytes and split into
lines here, and a line longer than ``max_line_bytes`` is never held: its bytes are counted and
dropped, and it comes out as a :class:`LongLine` with its size (the caller files a reject for it).
Lines end at ``\\n``, ``\\r\\n`` or ``\\r``, as :meth:`bytes.splitlines` and pyarrow.csv split them,
so line numbers are the same as a whole-file read would give.
"""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from almanac.core.bounded_lines import Line, LongLine, split_blocks

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or the end record of an empty zip
_BLOCK = 1 << 20
# A GDELT 2.0 15-minute export is a few MB unzipped, a 1.0 daily file tens of MB; a monthly 1.0
# backfile can be larger and needs the param raised.
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
# A GDELT row is a few hundred bytes to a few KB (its longest field is SOURCEURL); 1 MiB is far above
# any real row and far below what would strain memory.
DEFAULT_MAX_LINE_BYTES = 1024 * 1024


class FileRejected(Exception):
    """The whole file is unreadable; ``reason`` is a reject reason (not_a_zip, truncated_zip, ...)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def read_lines(
    path: Path, max_bytes: int = DEFAULT_MAX_BYTES, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[Line | LongLine]:
    """Every line of the file in order (blank ones too, so numbers are physical); FileRejected may
    come after some lines were yielded, and then the caller must drop them with the file."""
    if not path.name.lower().endswith(".zip"):
        size = path.stat().st_size
        if size > max_bytes:
            raise FileRejected("member_too_large", f"{size} bytes > max_member_bytes {max_bytes}")
        with open(path, "rb") as handle:
            yield from split_lines(handle, max_bytes, max_line_bytes, "the file")
        return
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic not in _ZIP_MAGIC:
        raise FileRejected("not_a_zip", f"starts with {magic!r}, not a zip signature")
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, EOFError) as error:  # no central directory: the end is missing
        raise FileRejected("truncated_zip", f"cannot open the zip directory ({error})") from error
    with archive:
        members = [info for info in archive.infolist() if not info.is_dir()]
        if len(members) != 1:
            names = [info.filename for info in members]
            raise FileRejected("unexpected_zip_members", f"expected one CSV member, found {names}")
        member = members[0]
        if member.file_size > max_bytes:
            raise FileRejected(
                "member_too_large",
                f"{member.filename} inflates to {member.file_size} bytes > max_member_bytes {max_bytes}"
                f" ({member.compress_size} bytes compressed)",
            )
        try:
            with archive.open(member) as stream:
                yield from split_lines(stream, max_bytes, max_line_bytes, member.filename)
        except (EOFError, zlib.error) as error:
            raise FileRejected("truncated_zip", f"compressed data ends early ({error})") from error
        except zipfile.BadZipFile as error:  # CRC-32 mismatch or a damaged local header
            raise FileRejected("corrupt_zip", str(error)) from error


def split_lines(
    stream: IO[bytes], max_bytes: int, max_line_bytes: int, name: str
) -> Iterator[Line | LongLine]:
    """Lines of ``stream`` read a block at a time; FileRejected as soon as it passes ``max_bytes``."""
    return split_blocks(_capped_blocks(stream, max_bytes, name), max_line_bytes)


def _capped_blocks(stream: IO[bytes], max_bytes: int, name: str) -> Iterator[bytes]:
    total = 0
    while block := stream.read(min(_BLOCK, max_bytes + 1 - total)):
        total += len(block)
        if total > max_bytes:
            raise FileRejected("member_too_large", f"{name} holds more than max_member_bytes {max_bytes}")
        yield block
