"""Turn an HTML payload into article fields with trafilatura, and identify its language.

The publication date is not trafilatura's: see :mod:`almanac.ccnews.dates` for why and how.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from datetime import datetime

import py3langid
import trafilatura
from trafilatura.settings import Document
from trafilatura.utils import load_html

from almanac.ccnews.dates import DateFinding, find_page_date

# A page whose "main text" has no line this long is navigation or teaser boilerplate, not an article.
MIN_PARAGRAPH_WORDS = 8
_META_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)


@dataclass(frozen=True)
class Extracted:
    title: str | None
    text: str
    date: DateFinding

    @property
    def publish_date(self) -> datetime | None:
        """A full publication day stated by the page, else None (never a year turned into 1 January)."""
        return self.date.day


def decode_html(payload: bytes, declared: str | None, errors: str = "strict") -> str:
    """Decode with the HTTP charset, else the ``<meta>`` charset, else UTF-8.

    Raises ``UnicodeDecodeError`` (strict) so that mis-encoded pages are rejected, not garbled.
    """
    charset = declared
    if charset is None:
        match = _META_CHARSET.search(payload[:4096])
        charset = match.group(1).decode("ascii", "replace").lower() if match else "utf-8"
    try:
        codecs.lookup(charset)
    except LookupError:
        charset = "utf-8"  # an unknown label is usually a typo for the web's default encoding
    return payload.decode(charset, errors=errors)


def extract_article(html: str, url: str) -> Extracted | None:
    """Main text, title and the page's own publication day; None when there is no article text."""
    document = trafilatura.bare_extraction(
        html,
        url=url,
        with_metadata=True,
        include_comments=False,
        include_tables=False,
        deduplicate=False,
        # Its date is unused, but non-extensive keeps htmldate from scanning the whole page for one.
        date_extraction_params={"original_date": True, "extensive_search": False},
    )
    if not isinstance(document, Document):  # None: nothing extracted (a dict only with as_dict=True)
        return None
    text = normalize_text(document.text or "")
    if not any(len(line.split()) >= MIN_PARAGRAPH_WORDS for line in text.splitlines()):
        return None
    return Extracted(
        title=(document.title or None),
        text=text,
        date=find_page_date(load_html(html), url),
    )


def normalize_text(text: str) -> str:
    """One paragraph per line, inner whitespace collapsed: what IDs and word counts are taken over."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def detect_language(text: str) -> str:
    """ISO 639-1 code by py3langid (the detector trafilatura itself uses)."""
    language, _score = py3langid.classify(text[:5000])
    return str(language)
