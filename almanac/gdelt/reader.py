"""The bytes of a raw GDELT file: the single CSV member of a GDELT zip, or a plain ``.CSV`` file.

A file that cannot be read to the end (not a zip, a zip cut short, a CRC mismatch, several members)
raises :class:`FileRejected`: its rows are unusable as a whole, because a cut can fall anywhere,
including inside a row that would then still parse. So does a file whose CSV is larger than
``max_bytes`` (``member_too_large``): a few hundred KB of zip can inflate to gigabytes, so the size is
judged from the zip directory first and then enforced while the member is read in chunks (the
directory can lie), and nothing over the cap is ever held in memory.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path
from typing import IO

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header, or the end record of an empty zip
_CHUNK = 1 << 20
# A GDELT 2.0 15-minute export is a few MB unzipped, a 1.0 daily file tens of MB; a monthly 1.0
# backfile can be larger and needs the param raised.
DEFAULT_MAX_BYTES = 512 * 1024 * 1024


class FileRejected(Exception):
    """The whole file is unreadable; ``reason`` is a reject reason (not_a_zip, truncated_zip, ...)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def read_file_bytes(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    if not path.name.lower().endswith(".zip"):
        size = path.stat().st_size
        if size > max_bytes:
            raise FileRejected("member_too_large", f"{size} bytes > max_member_bytes {max_bytes}")
        with open(path, "rb") as handle:
            return _read_capped(handle, max_bytes, "the file")
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
                return _read_capped(stream, max_bytes, member.filename)
        except (EOFError, zlib.error) as error:
            raise FileRejected("truncated_zip", f"compressed data ends early ({error})") from error
        except zipfile.BadZipFile as error:  # CRC-32 mismatch or a damaged local header
            raise FileRejected("corrupt_zip", str(error)) from error


def _read_capped(stream: IO[bytes], max_bytes: int, name: str) -> bytes:
    """All of ``stream``, read a chunk at a time; FileRejected as soon as it passes ``max_bytes``."""
    data = bytearray()
    while chunk := stream.read(min(_CHUNK, max_bytes + 1 - len(data))):
        data += chunk
        if len(data) > max_bytes:
            raise FileRejected("member_too_large", f"{name} holds more than max_member_bytes {max_bytes}")
    return bytes(data)
