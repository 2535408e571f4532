"""Stream pages out of a MediaWiki pages-articles export with mwxml, one page in memory at a time.

Accepted files: plain ``.xml``, bz2 (single-stream, or multistream: several bz2 streams back to back,
which ``bz2.open`` reads as one) and gzip; the compression is recognised by the file's magic bytes, not
its name. Every page becomes exactly one item:

* :class:`WikiPage` - a page in a wanted namespace with wikitext;
* :class:`Skipped` - a redirect, a page in another namespace, or non-wikitext content (counted, not
  rejected: they are not articles by type);
* :class:`~almanac.ccnews.records.Unreadable` - a page without revision or text, a page over the size
  cap, a page whose handling raised, or the rest of the file when it is truncated or stops being
  well-formed XML. Pages read before such a failure are kept.

Memory is bounded by construction: the XML reaches mwxml through :class:`~almanac.wiki.capped_xml.CappedXml`,
which empties any element text over ``max_page_bytes`` (raw XML bytes) before mwxml would gather it;
such a page becomes ``page_too_large`` with its size. Wikipedia refuses to save a page over 2 MiB of
wikitext, so the 4 MiB default (escaped XML is larger than the wikitext) keeps every real page.

Reject reasons: ``not_a_dump`` (empty file, not XML, or XML whose root is not ``<mediawiki>``),
``truncated_file`` (the file, or its compressed data, ends early or is damaged), ``malformed_xml``
(ill-formed XML or an unexpected element mid-file), ``token_too_large`` (one tag or comment over the
cap: the rest of the file), ``page_too_large``, ``content_too_large`` (text over the cap outside any
page, skipped), ``unreadable_page`` (handling the page raised: the exception's class and message),
``no_revision``, ``no_timestamp``, ``no_text``.
"""

from __future__ import annotations

import bz2
import gzip
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import ParseError

import mwxml
from mwxml.element_iterator import ElementIterator
from mwxml.errors import MalformedXML
from mwxml.iteration.site_info import SiteInfo

from almanac.ccnews.records import Unreadable
from almanac.core.record_errors import describe_error
from almanac.wiki.capped_xml import CappedXml, TokenTooLarge
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
# Raised by the XML stream, not by one page's values: after these nothing more can be read.
_STREAM_FAULTS = (ParseError, EOFError, OSError, TokenTooLarge, MemoryError)
DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024


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
    path: Path,
    label: str | None = None,
    namespaces: tuple[int, ...] = (MAIN_NAMESPACE,),
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
) -> Iterator[DumpItem]:
    """Yield one item per ``<page>`` of the export at ``path``; ``label`` names the file in sources."""
    name = label if label is not None else path.name
    size = path.stat().st_size
    if size == 0:
        yield Unreadable("not_a_dump", "empty file (0 bytes)", f"{name}:start")
        return
    with _open_decompressed(path) as stream:
        capped = CappedXml(_OneStepReader(stream), max_page_bytes, max_page_bytes)
        yield from _read_stream(capped, name, frozenset(namespaces), max_page_bytes)


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


def _read_stream(
    stream: CappedXml, label: str, namespaces: frozenset[int], max_page_bytes: int
) -> Iterator[DumpItem]:
    try:
        root = ElementIterator.from_file(stream)
    except _STREAM_ERRORS as error:
        reason = "truncated_file" if isinstance(error, EOFError) else "not_a_dump"
        yield Unreadable(reason, f"no MediaWiki export: {_describe(error)}", f"{label}:start")
        return
    if root.tag != "mediawiki":
        yield Unreadable("not_a_dump", f"root element is <{root.tag}>, not <mediawiki>", f"{label}:start")
        return
    pages_read = 0  # <page> elements begun: the ordinal CappedXml files oversize runs under
    pages_done = 0  # pages read to their end (kept, skipped or rejected)
    last_page_id: int | None = None
    try:
        namespace_map, site = None, ""
        seen_siteinfo = False
        for element in root:
            # mwxml empties each finished <page> but leaves it attached to the root; drop the husks
            # so that memory stays flat over millions of pages.
            del root.element[:-1]
            if element.tag == "siteinfo" and not pages_read:
                info = SiteInfo.from_element(element)
                namespace_map = {ns.name: ns for ns in info.namespaces or ()}
                site, seen_siteinfo = str(info.dbname or ""), True
                continue
            if not seen_siteinfo:  # as mwxml: a dump opens with its <siteinfo>
                raise MalformedXML(f"<siteinfo> not found before <{element.tag}> in <mediawiki>")
            if element.tag == "logitem":
                continue  # a log dump's entries: not pages
            if element.tag != "page":
                where = f"{label}:after_page:{last_page_id}"
                yield Unreadable("unreadable_page", f"<{element.tag}> where a <page> belongs", where)
                continue
            pages_read += 1
            for earlier in [n for n in stream.oversize if n < pages_read]:  # of pages skipped unread
                del stream.oversize[earlier]
            parsed = _guarded_page(element, namespace_map, f"{label}:page_number:{pages_read}")
            if isinstance(parsed, Unreadable):
                pages_done += 1
                yield parsed
                continue
            page_id, page = parsed
            oversize = partial(stream.oversize.pop, pages_read, None)  # known once its text is read
            yield _read_item(page, label, namespaces, site, oversize, max_page_bytes)
            last_page_id = page_id if page_id is not None else last_page_id  # read to its end
            pages_done += 1
    except _STREAM_ERRORS as error:
        where = "start" if last_page_id is None else f"after_page:{last_page_id}"
        detail = (
            f"{_describe(error)}; near byte {_position(stream)} of the XML;"
            f" {pages_done} pages read before it are kept"
        )
        yield Unreadable(_classify(error), detail, f"{label}:{where}")
    for element_name, size in stream.outside:
        detail = (
            f"{size} bytes of text in <{element_name}> outside any page > max_page_bytes {max_page_bytes}"
        )
        yield Unreadable("content_too_large", detail + "; skipped", f"{label}:{element_name}")


def _guarded_page(
    element: ElementIterator, namespace_map: Any, where: str
) -> tuple[int | None, mwxml.Page] | Unreadable:
    """The page's fields (revisions still to read), or the page's reject if mwxml cannot take them."""
    try:
        page = mwxml.Page.from_element(element, namespace_map)
        return _page_id(page, None), page
    except _STREAM_FAULTS:
        raise  # the stream itself failed: the rest of the file is lost, not just this page
    except Exception as error:  # a value or an element mwxml did not expect: this page's reject
        return Unreadable("unreadable_page", describe_error(error), where)


def _read_item(
    page: mwxml.Page,
    label: str,
    namespaces: frozenset[int],
    site: str,
    oversize: Callable[[], tuple[str, int] | None],
    max_page_bytes: int,
) -> DumpItem:
    """The page's item; whatever handling one page raises is that page's reject, never the file's."""
    try:
        item = _read_page(page, label, namespaces, site, oversize)
    except _STREAM_FAULTS:
        raise
    except Exception as error:
        return Unreadable("unreadable_page", describe_error(error), f"{label}:page:{_page_id(page, None)}")
    if isinstance(item, Unreadable) and item.reason == "page_too_large":
        return replace(item, detail=f"{item.detail} > max_page_bytes {max_page_bytes}")
    return item


def _page_id(page: Any, default: int | None) -> int | None:
    try:
        return int(page.id) if page.id is not None else default
    except (TypeError, ValueError):
        return default


def _read_page(
    page: Any,
    label: str,
    namespaces: frozenset[int],
    site: str = "",
    oversize: Callable[[], tuple[str, int] | None] = lambda: None,
) -> DumpItem:
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
    too_large = oversize()  # known now that its revisions are read
    if too_large is not None:  # its text never reached mwxml: the page is rejected with its size
        element, size = too_large
        return Unreadable("page_too_large", f"page {title!r}: <{element}> of {size} bytes", source)
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
    if isinstance(error, TokenTooLarge):
        return "token_too_large"
    if isinstance(error, EOFError | OSError):
        return "truncated_file"  # bz2/gzip data ends before its end marker, or is damaged
    if isinstance(error, ParseError) and getattr(error, "code", None) in _EXPAT_ENDED_EARLY:
        return "truncated_file"
    return "malformed_xml"


def _position(stream: CappedXml) -> str:
    try:
        return str(stream.tell())
    except (OSError, ValueError):
        return "?"


def _describe(error: Exception) -> str:
    message = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {message[:200]}" if message else type(error).__name__
