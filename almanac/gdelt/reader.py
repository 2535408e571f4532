"""The bytes of a raw GDELT file: the single CSV member of a GDELT zip, or a plain ``.CSV`` file.

A file that cannot be read to the end (not a zip, a zip cut short, a CRC mismatch, several members)
raises :class:`FileRejected`: its rows are unusable as a whole, because a cut can fall anywhere,
including inside a row that would then still parse.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or the end record of an empty zip


class FileRejected(Exception):
    """The whole file is unreadable; ``reason`` is a reject reason (not_a_zip, truncated_zip, ...)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def read_file_bytes(path: Path) -> bytes:
    if not path.name.lower().endswith(".zip"):
        return path.read_bytes()
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
        try:
            return archive.read(members[0])
        except (EOFError, zlib.error) as error:
            raise FileRejected("truncated_zip", f"compressed data ends early ({error})") from error
        except zipfile.BadZipFile as error:  # CRC-32 mismatch or a damaged local header
            raise FileRejected("corrupt_zip", str(error)) from error
