"""A byte stream for mwxml in which no run of character data is larger than a cap.

mwxml builds each element with ``iterparse``, which gathers an element's whole text before handing it
over: a 200 MB ``<text>`` costs gigabytes (the pieces, the joined string, the copies downstream) however
small the compressed file is. This stream stands between the decompressor and mwxml and pre-parses the
XML with its own expat parser (element events only, so the character data costs no Python call):

* a *run* is the bytes between the end of one tag and the start of the next (an element's text, or the
  whitespace after it); the run is held back until the next tag shows where it ends;
* a run longer than ``max_run_bytes`` is dropped, never held: its bytes are counted and discarded as
  they arrive, and mwxml sees the element empty. The run is reported by the ordinal of the ``<page>``
  it belongs to (:attr:`CappedXml.oversize`), so the reader rejects that page with its size;
* a single token (a tag, a comment) larger than ``max_token_bytes`` cannot be cut out of well-formed
  XML: the stream fails with :class:`TokenTooLarge` there, and the pages before it are kept.

Held bytes stay under the cap plus one read block, so memory is bounded by construction. Everything
else reaches mwxml unchanged, in order; a parse error of the pre-parser hands the rest over as it is,
so mwxml reports it exactly as it would have.
"""

from __future__ import annotations

import io
import re
from typing import Any, Protocol
from xml.parsers import expat

_BLOCK = 1 << 16
# Past this many bytes without a tag, the character data is tracked piece by piece, so that a run can
# be dropped up to the last complete piece without cutting a token (the common case pays no callback).
_TRACK_AFTER = 1 << 16
_PAGE_DEPTH = 2  # <mediawiki> is depth 1, its <page> children depth 2
# A whole tag: up to the first ">" outside a quoted attribute value (a value may hold ">").
_TAG = re.compile(rb"<(?:[^>\"']|\"[^\"]*\"|'[^']*')*>")


class _Source(Protocol):
    def read(self, size: int = -1) -> bytes: ...


class TokenTooLarge(ValueError):
    """One XML token (a tag, a comment, a processing instruction) is larger than the cap."""


class CappedXml(io.RawIOBase):
    """``read`` gives the XML of ``source`` with every run over ``max_run_bytes`` emptied."""

    def __init__(self, source: _Source, max_run_bytes: int, max_token_bytes: int) -> None:
        super().__init__()
        self._source = source
        self._max_run = max_run_bytes
        self._max_token = max_token_bytes
        self._parser = expat.ParserCreate()
        self._parser.StartElementHandler = self._on_start
        self._parser.EndElementHandler = self._on_end
        self._events: list[tuple[bool, str, int]] = []  # (is_start, name, byte index) of one feed
        self._out = bytearray()  # decided bytes; those from self._out_at on are still to hand to mwxml
        self._out_at = 0
        self._held = bytearray()  # stream bytes from offset self._base; decided up to self._held_start
        self._base = 0
        self._held_start = 0
        self._fed = 0  # stream bytes read so far
        self._handed = 0  # bytes handed out plus bytes dropped: mwxml's position in the stream
        self._names: list[str] = []
        self._run_start: int | None = None  # where the current run's bytes begin (None: before the root)
        self._run_page = 0  # ordinal of the page the current run belongs to (0: outside pages)
        self._run_element = ""
        self._dropping = False
        self._progress = 0  # byte index of the latest event of any kind
        self._tracking = False
        self._previous: tuple[bool, str, int] = (False, "", 0)  # the last tag seen: (is_start, name, index)
        self._pages = 0
        self._in_page = 0
        self._error: BaseException | None = None
        self._passthrough = False  # the pre-parser failed: mwxml gets the bytes as they are
        self._done = False
        # page ordinal -> (element, bytes) of its largest dropped run; dropped runs outside any page
        self.oversize: dict[int, tuple[str, int]] = {}
        self.outside: list[tuple[str, int]] = []

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        while self._out_at == len(self._out) and not self._done:
            if self._error is not None:
                raise self._error
            self._pump()
        available = len(self._out) - self._out_at
        size = available if size is None or size < 0 else min(size, available)
        piece = bytes(self._out[self._out_at : self._out_at + size])
        self._out_at += size
        if self._out_at == len(self._out):  # all handed out: start afresh rather than shift what is left
            self._out.clear()
            self._out_at = 0
        self._handed += len(piece)
        return piece

    def tell(self) -> int:
        return self._handed

    # -- feeding -------------------------------------------------------------------------------------

    def _pump(self) -> None:
        try:
            block = self._source.read(_BLOCK)
        except Exception as error:  # a cut or damaged stream: what came before it still reaches mwxml
            self._release_all()
            self._error = error
            return
        if not block:
            self._release_all()
            self._done = True
            return
        self._held += block
        self._fed += len(block)
        if self._passthrough:
            self._release_all()
            return
        try:
            self._parser.Parse(block, False)
        except expat.ExpatError:
            self._settle()  # the tags before the fault are decided as usual
            self._passthrough = True  # mwxml meets the same fault at the same byte and reports it
            self._release_all()
            return
        self._settle()

    def _settle(self) -> None:
        """Decide what the events of the last feed allow: release tags and runs that fit, drop the rest."""
        events, self._events = self._events, []
        tracked = self._tracking  # every token of this feed was reported: the gap is a real token's size
        # Two tags of one feed are at most a block apart, so with a cap of a block or more only the run
        # carried in from earlier feeds (ended by the first tag) and the one left open (after the last)
        # can pass it: the tags between only move the depth, and are released with the last one.
        skip_between = self._max_run >= _BLOCK
        last = len(events) - 1
        for position, (is_start, name, index) in enumerate(events):
            if skip_between and 0 < position < last:
                self._step_depth(is_start, name)
                self._previous = (is_start, name, index)
            else:
                self._on_tag(is_start, name, index)
        if events and self._tracking:
            self._track(False)
        gap = self._fed - max(self._progress, self._held_start)
        # Only bytes before the latest reported token are surely the run's (the rest may open a tag).
        if self._run_start is not None and self._progress - self._run_start > self._max_run:
            self._dropping = True  # nothing of the run was released: held bytes start with it
            self._drop_to(self._progress)  # up to the last whole token seen; the next tag ends the run
        if tracked and self._tracking and gap > self._max_token:
            self._release_all()
            self._error = TokenTooLarge(
                f"an XML token of more than {self._max_token} bytes starts near byte {self._progress}"
            )
        elif gap > _TRACK_AFTER and not self._tracking:
            self._track(True)
        self._compact()

    def _on_tag(self, is_start: bool, name: str, index: int) -> None:
        self._progress = max(self._progress, index)
        over = self._run_start is not None and index - self._run_start > self._max_run
        if self._dropping or over:  # the run ends here: all of it is dropped (held bytes start with it)
            size = index - (self._run_start or 0)
            if self._run_page:
                known = self.oversize.get(self._run_page, ("", 0))
                self.oversize[self._run_page] = max(known, (self._run_element, size), key=lambda x: x[1])
            else:
                self.outside.append((self._run_element, size))
            self._drop_to(index)
            self._dropping = False
        self._release_to(index)
        end = index if self._closes_empty_tag(is_start, name, index) else self._tag_end(index)
        self._release_to(end)
        self._step_depth(is_start, name)
        self._previous = (is_start, name, index)
        self._run_start = end
        self._run_page = self._in_page
        self._run_element = self._names[-1] if self._names else ""

    def _closes_empty_tag(self, is_start: bool, name: str, index: int) -> bool:
        """Whether this is the end of an empty-element tag (``<x/>``): expat reports it just past the
        tag, right after its start, instead of at a ``</x>`` of its own."""
        was_start, previous_name, _ = self._previous
        if is_start or not was_start or previous_name != name:
            return False
        return bytes(self._held[index - 2 - self._base : index - self._base]) == b"/>"

    def _step_depth(self, is_start: bool, name: str) -> None:
        if is_start:
            self._names.append(name)
            if len(self._names) == _PAGE_DEPTH and name.rpartition(":")[2] == "page":
                self._pages += 1
                self._in_page = self._pages
        else:
            if len(self._names) == _PAGE_DEPTH and self._names[-1].rpartition(":")[2] == "page":
                self._in_page = 0
            if self._names:
                self._names.pop()

    def _tag_end(self, index: int) -> int:
        """Offset just past the tag starting at ``index`` (quotes may hold ``>``); the tag is whole."""
        match = _TAG.match(self._held, index - self._base)
        return self._base + match.end() if match else self._fed  # expat reported the tag whole: it matches

    # -- held bytes ----------------------------------------------------------------------------------

    def _release_to(self, offset: int) -> None:
        if offset > self._held_start:
            self._out += self._held[self._held_start - self._base : offset - self._base]
            self._held_start = offset

    def _drop_to(self, offset: int) -> None:
        if offset > self._held_start:
            self._handed += offset - self._held_start
            self._held_start = offset

    def _compact(self) -> None:
        """Forget the decided bytes (once per feed: deleting from the front copies what is left)."""
        # Two decided bytes stay: the end event of <x/> may come in the next feed and look back at "/>".
        forget = max(0, self._held_start - self._base - 2)
        del self._held[:forget]
        self._base += forget

    def _release_all(self) -> None:
        self._release_to(self._base + len(self._held))
        self._compact()

    def _track(self, on: bool) -> None:
        """Report character data and other tokens (their positions mark where a run may be cut)."""
        self._tracking = on
        handler = self._on_piece if on else None
        parser: Any = self._parser
        parser.CharacterDataHandler = handler
        parser.CommentHandler = handler
        parser.ProcessingInstructionHandler = (lambda _target, _data: self._on_piece("")) if on else None
        parser.StartCdataSectionHandler = (lambda: self._on_piece("")) if on else None

    def _on_start(self, name: str, _attributes: dict[str, str]) -> None:
        self._events.append((True, name, self._parser.CurrentByteIndex))

    def _on_end(self, name: str) -> None:
        self._events.append((False, name, self._parser.CurrentByteIndex))

    def _on_piece(self, _data: str) -> None:
        self._progress = max(self._progress, self._parser.CurrentByteIndex)
