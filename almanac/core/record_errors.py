"""One record's exception is that record's reject, never its stage's failure.

Real inputs hold pages and lines that no parser was written for (a JSON line nested 100,000 deep, a date
at the end of year 9999, a charset label naming a codec that is not a text encoding). A reader or a step
that handles one record at a time catches whatever that record raises and files it as a reject with reason
``record_error`` and the exception's class and message, then goes on with the next record.

Only faults of the machine, not of the record, stop a stage: an interrupted process (KeyboardInterrupt and
SystemExit are not ``Exception``s, so they are never caught here) and :class:`MemoryError`, which the size
caps are there to make impossible, so that one means a cap is wrong and must be seen.
"""

from __future__ import annotations

from typing import Final

RECORD_ERROR: Final = "record_error"
_MAX_DETAIL_CHARS: Final = 300


def record_error_detail(error: BaseException) -> str:
    """``<class>: <first line of the message>``, at most a few hundred characters."""
    message = str(error).strip().splitlines()
    detail = f"{type(error).__name__}: {message[0]}" if message else type(error).__name__
    return detail if len(detail) <= _MAX_DETAIL_CHARS else detail[: _MAX_DETAIL_CHARS - 3] + "..."


def reraise_infrastructure(error: BaseException) -> None:
    """Re-raise ``error`` when it is a fault of the machine rather than of one record."""
    if isinstance(error, MemoryError):
        raise error
