"""What one record raised, as a reject row's detail: the exception's class and the start of its message.

Readers catch any exception raised while handling one record (a page, a line) and file it as that
record's reject, so one bad record never stops a stage; infrastructure faults (disk, permissions, an
interrupted process) are raised outside the per-record code and still stop it.

KeyboardInterrupt and SystemExit are not ``Exception``s, so a per-record ``except Exception`` never
catches them; :func:`reraise_infrastructure` also lets :class:`MemoryError` through, which the size caps
are there to make impossible, so that one means a cap is wrong and must be seen.
"""

from __future__ import annotations

from typing import Final

MESSAGE_CHARS = 300  # a message can quote the whole record (a 1 MB line); the class and its start say why
RECORD_ERROR: Final = "record_error"  # the reject reason of the CC-News readers, page archives and fetcher


def describe_error(error: BaseException, limit: int = MESSAGE_CHARS) -> str:
    """``"ValueError: first line of the message"``, cut to ``limit`` characters of message."""
    try:
        text = str(error)
    except Exception:  # a broken __str__ must not escape the reject path
        text = ""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if len(first) > limit:
        first = first[:limit] + "..."
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


def reraise_infrastructure(error: BaseException) -> None:
    """Re-raise ``error`` when it is a fault of the machine rather than of one record."""
    if isinstance(error, MemoryError):
        raise error
