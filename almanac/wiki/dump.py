"""Stream pages out of a MediaWiki pages-articles export with mwxml, one page in memory at a time.

Accepted files: plain ``.xml``, bz2 (single-stream, or multistream: several bz2 streams back to back,
which ``bz2.open`` reads as one) and gzip; the compression is recognised by the file's magic bytes, not
its name. Every page becomes exactly one item:

* :class:`WikiPage` - a page in a wanted namespace with wikitext;
* :class:`Skipped` - a redirect, a page in another namespace, or non-wikitext content (counted, not
  rejected: they are not articles by type);
* :class:`~almanac.ccnews.records.Unreadable` - a page without revision or text, or the rest of the file
  when it is truncated or stops being well-formed XML. Pages read before such a failure are kept.

Reject reasons: ``not_a_dump`` (empty file, not XML, or XML whose root is not ``<mediawiki>``),
``truncated_file`` (the file, or its compressed data, ends early or is damaged), ``malformed_xml``
(ill-formed XML or an unexpected element mid-file), ``no_revision``, ``no_timestamp``, ``no_text``.
"""

from __future__ import annotations

import bz2
import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import mwxml
from mwxml.element_iterator import ElementIterator
from mwxml.errors import MalformedXML

from almanac.ccnews.records import Unreadable
from almanac.wiki.sections import is_redirect_text

MAIN_NAMESPACE = 0
SKIP_REDIRECT = "redirect"
SKIP_NAMESPACE = "other_namespace"
SKIP_CONTENT_MODEL = "non_wikitext"

# expat error codes that only occur when the input stops inside the document:
# 3 "no element found", 5 "unclosed token", 6 "partial character".
_EXPAT_ENDED_EARLY = frozenset({3, 5, 6})
_BZ2_MAGIC = b"BZh"
_GZIP_MAGIC = b"\x1f\x8b"
_STREAM_ERRORS = (ParseError, MalformedXML, EOFError, OSError, ValueError)


@dataclass(frozen=True)
class WikiPage:
    """The latest revision of one page, as wikitext."""

    page_id: int
    namespace: int
    title: str  # full title with its namespace prefix, e.g. "Portal:Current events/2025 April 3"
    revision_id: int
    timestamp: datetime  # UTC time of the revision
    text: str  # wikitext
    source: str  # "<file>:page:<page_id>"
    site: str = ""  # the export's <dbname> (e.g. "enwiki"): page ids are unique only within one wiki


@dataclass(frozen=True)
class Skipped:
    """A page that is not an article by type; counted by ``kind``, never a reject."""

    kind: str  # SKIP_REDIRECT | SKIP_NAMESPACE | SKIP_CONTENT_MODEL
    title: str = ""
    namespace: int = MAIN_NAMESPACE
    source: str = ""


DumpItem = WikiPage | Skipped | Unreadable


def read_dump(
    path: Path, label: str | None = None, namespaces: tuple[int, ...] = (MAIN_NAMESPACE,)
) -> Iterator[DumpItem]:
    """Yield one item per ``<page>`` of the export at ``path``; ``label`` names the file in sources."""
    name = label if label is not None else path.name
    size = path.stat().st_size
    if size == 0:
        yield Unreadable("not_a_dump", "empty file (0 bytes)", f"{name}:start")
        return
    with _open_decompressed(path) as stream:
        yield from _read_stream(_OneStepReader(stream), name, frozenset(namespaces))


class _OneStepReader:
    """Serve each ``read`` from a single decompression step (``read1``).

    The XML parser asks for 16 KiB at a time. A plain ``read`` keeps decompressing until it has that
    much, and when the data ends early it raises and drops what it had already decompressed, so the
    pages just before a truncation would be lost with it.
    """

    def __init__(self, stream: io.BufferedIOBase) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        return self._stream.read1(size)

    def tell(self) -> int:
        return self._stream.tell()


def _open_decompressed(path: Path) -> io.BufferedIOBase:
    with open(path, "rb") as probe:
        magic = probe.read(3)
    if magic.startswith(_BZ2_MAGIC):
        return bz2.open(path, "rb")
    if magic.startswith(_GZIP_MAGIC):
        return gzip.open(path, "rb")
    return open(path, "rb")


def _read_stream(stream: _OneStepReader, label: str, namespaces: frozenset[int]) -> Iterator[DumpItem]:
    try:
        root = ElementIterator.from_file(stream)
    except _STREAM_ERRORS as error:
        reason = "truncated_file" if isinstance(error, EOFError) else "not_a_dump"
        yield Unreadable(reason, f"no MediaWiki export: {_describe(error)}", f"{label}:start")
        return
    if root.tag != "mediawiki":
        yield Unreadable("not_a_dump", f"root element is <{root.tag}>, not <mediawiki>", f"{label}:start")
        return
    pages_read = 0
    last_page_id: int | None = None
    try:
        dump = mwxml.Dump.from_element(root)
        site = str(dump.site_info.dbname or "") if dump.site_info is not None else ""
        for page in dump.pages:
            # mwxml empties each finished <page> but leaves it attached to the root; drop the husks
            # so that memory stays flat over millions of pages.
            del root.element[:-1]
            item = _read_page(page, label, namespaces, site)
            pages_read += 1
            last_page_id = int(page.id) if page.id is not None else last_page_id
            yield item
    except _STREAM_ERRORS as error:
        where = "start" if last_page_id is None else f"after_page:{last_page_id}"
        detail = (
            f"{_describe(error)}; near byte {_position(stream)} of the XML;"
            f" {pages_read} pages read before it are kept"
        )
        yield Unreadable(_classify(error), detail, f"{label}:{where}")


def _read_page(page: Any, label: str, namespaces: frozenset[int], site: str = "") -> DumpItem:
    page_id = int(page.id) if page.id is not None else -1
    title = str(page.title or "")
    namespace = int(page.namespace) if page.namespace is not None else MAIN_NAMESPACE
    source = f"{label}:page:{page_id}"
    if page.redirect:  # before the namespace test, so that redirects count the same whatever is wanted
        return Skipped(SKIP_REDIRECT, title, namespace, source)
    if namespace not in namespaces:
        return Skipped(SKIP_NAMESPACE, title, namespace, source)
    revision = None
    for newer in page:  # pages-articles has one revision; with several, the last is the newest
        revision = newer
    if revision is None:
        return Unreadable("no_revision", f"page {title!r} has no <revision>", source)
    if revision.model not in (None, "wikitext"):
        return Skipped(SKIP_CONTENT_MODEL, title, namespace, source)
    text = revision.text
    if revision.timestamp is None:
        return Unreadable("no_timestamp", f"revision {revision.id} of {title!r} has no <timestamp>", source)
    if not text or not str(text).strip():
        return Unreadable("no_text", f"revision {revision.id} of {title!r} has no text", source)
    if is_redirect_text(str(text)):  # a redirect whose <redirect/> element is missing
        return Skipped(SKIP_REDIRECT, title, namespace, source)
    return WikiPage(
        page_id=page_id,
        namespace=namespace,
        title=title,
        revision_id=int(revision.id),
        timestamp=datetime.fromtimestamp(int(revision.timestamp.unix()), tz=UTC),
        text=str(text),
        source=source,
        site=site,
    )


def _classify(error: Exception) -> str:
    if isinstance(error, EOFError | OSError):
        return "truncated_file"  # bz2/gzip data ends before its end marker, or is damaged
    if isinstance(error, ParseError) and getattr(error, "code", None) in _EXPAT_ENDED_EARLY:
        return "truncated_file"
    return "malformed_xml"


def _position(stream: _OneStepReader) -> str:
    try:
        return str(stream.tell())
    except (OSError, ValueError):
        return "?"


def _describe(error: Exception) -> str:
    message = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {message[:200]}" if message else type(error).__name__
