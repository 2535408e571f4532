"""Turn an HTML payload into article fields with trafilatura, and identify its language.

The publication date is not trafilatura's: see :mod:`almanac.ccnews.dates` for why and how.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

import charset_normalizer
import py3langid

from almanac.ccnews.charset_labels import codec_for_label
from almanac.ccnews.dates import DateFinding, find_page_date
from almanac.core.lazy import lazy_module
from almanac.core.text import word_count

if TYPE_CHECKING:
    import trafilatura
else:
    trafilatura = lazy_module("trafilatura")  # .settings, .utils: loaded by its __init__

# A page whose "main text" has no line this long (in words of any script, almanac.core.text.word_count)
# is navigation or teaser boilerplate, not an article.
MIN_PARAGRAPH_WORDS = 8
# Non-ASCII bytes needed before charset-normalizer's guess is trusted (16 CJK characters' worth).
MIN_DETECTION_BYTES = 32
_ASCII = bytes(range(128))
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


@dataclass(frozen=True)
class Decoded:
    text: str
    charset: str  # the Python codec the text was decoded with ("utf-8", "gb18030", "cp1252", ...)
    source: str  # where the charset came from: bom | http | meta | default | detected


def decode_page(payload: bytes, declared: str | None, errors: str = "strict") -> Decoded:
    """Decode a page as browsers do, and say which charset was used and why.

    The WHATWG order: a byte-order mark, else the HTTP ``charset``, else the ``<meta>`` one, else UTF-8;
    labels are mapped to the encodings browsers actually use (gb2312 -> GB18030, iso-8859-1 ->
    windows-1252, ...) through the WHATWG label table only (:mod:`almanac.ccnews.charset_labels`), so a
    label naming a non-text Python codec (``hex``, ``rot13``, ``zlib`` ...) is treated as absent. Two cases
    are second-guessed: bytes that are valid UTF-8 with multibyte sequences under a legacy label are UTF-8
    (mislabelled CMS output, which stays garbled if read as labelled), and bytes that are invalid for their
    charset are given to charset-normalizer. Only when it finds nothing
    either does ``errors="strict"`` raise ``UnicodeDecodeError`` (the page is rejected, not garbled).
    """
    for bom, bom_codec in _BOMS:
        if payload.startswith(bom):
            return Decoded(payload[len(bom) :].decode(bom_codec, errors=errors), bom_codec, "bom")
    # A label no browser knows (or a non-text Python codec: hex, rot13, zlib) is ignored, as if absent.
    source, label = "http", codec_for_label(declared)
    if label is None:
        source, label = "meta", codec_for_label(_meta_charset(payload))
    if label is None:
        source, label = "default", "utf-8"
    codec: str = label
    if codec != "utf-8" and not payload.isascii() and _is_utf8(payload):
        return Decoded(payload.decode("utf-8"), "utf-8", "detected")
    try:
        return Decoded(_decode(payload, codec, "strict"), codec, source)
    except UnicodeDecodeError:
        guess = _detect(payload)
        if guess is not None:
            return Decoded(_decode(payload, guess, "replace"), guess, "detected")
        return Decoded(_decode(payload, codec, errors), codec, source)  # raises when strict


def decode_html(payload: bytes, declared: str | None, errors: str = "strict") -> str:
    """The text of :func:`decode_page`."""
    return decode_page(payload, declared, errors).text


_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def _meta_charset(payload: bytes) -> str | None:
    match = _META_CHARSET.search(payload[:4096])
    return match.group(1).decode("ascii", "replace") if match else None


def _is_utf8(payload: bytes) -> bool:
    try:
        payload.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode(payload: bytes, codec: str, errors: str) -> str:
    if codec == "cp1252" and errors == "strict":
        # WHATWG windows-1252 maps the five bytes Python leaves undefined to the C1 controls.
        return payload.decode(codec, errors="almanac-c1")
    return payload.decode(codec, errors=errors)


def _c1_controls(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return "".join(chr(byte) for byte in error.object[error.start : error.end]), error.end


codecs.register_error("almanac-c1", _c1_controls)


def _detect(payload: bytes) -> str | None:
    """The charset of bytes that do not fit their label, or None when no reading is credible.

    charset-normalizer's best guess, as windows-1252 when that reads the same (the browsers' guess). With
    only a few non-ASCII bytes there is too little evidence for a detector (one stray byte 0x81 "is"
    Ukrainian DOS to it): then windows-1252 if it reads every byte, else nothing.
    """
    if len(payload.translate(None, _ASCII)) < MIN_DETECTION_BYTES:
        try:
            payload.decode("cp1252")
        except UnicodeDecodeError:
            return None
        return "cp1252"
    best = charset_normalizer.from_bytes(payload).best()
    if best is None:
        return None
    if "cp1252" in best.could_be_from_charset:
        return "cp1252"
    return str(best.encoding)


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
    # None: nothing extracted (a dict only with as_dict=True)
    if not isinstance(document, trafilatura.settings.Document):
        return None
    text = normalize_text(document.text or "")
    if not any(word_count(line) >= MIN_PARAGRAPH_WORDS for line in text.splitlines()):
        return None
    return Extracted(
        title=(document.title or None),
        text=text,
        date=find_page_date(trafilatura.utils.load_html(html), url),
    )


def normalize_text(text: str) -> str:
    """One paragraph per line, inner whitespace collapsed: what IDs and word counts are taken over."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def detect_language(text: str) -> str:
    """ISO 639-1 code by py3langid (the detector trafilatura itself uses)."""
    language, _score = py3langid.classify(text[:5000])
    return str(language)
