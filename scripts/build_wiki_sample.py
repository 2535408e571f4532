"""Build the bundled fictional Wikipedia dump: python scripts/build_wiki_sample.py [--out F] [--portal-dir D]

Reads ``scripts/sample_wiki/pages.json`` (main-namespace pages: event articles, non-event articles,
redirects, a page with broken wikitext and a stub) plus, when present, the Current Events Portal day
pages in ``scripts/sample_wiki/portal/*.wikitext``, and writes one pages-articles export in the
MediaWiki XML format (schema 0.11) compressed with bz2 to
``data/raw/sample/wikipedia/enwiki-sample-pages-articles.xml.bz2``.

A portal file is named after its page title with ``__`` in place of the ``/`` that file names cannot
hold (``Portal:Current events__2025 April 3.wikitext``) or after the day alone (``2025 April 3.wikitext``);
both become the page ``Portal:Current events/2025 April 3`` in namespace 100. They get page ids from
90001 upwards in date order and a revision timestamp at the end of their day.

The output is byte-for-byte reproducible: ids and timestamps are fixed in the sources, pages are
written in a fixed order, and bz2 output depends only on its input and compression level.
"""

from __future__ import annotations

import argparse
import bz2
import hashlib
import json
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from almanac.core.io import atomic_path

SAMPLE_DIR = Path(__file__).resolve().parent / "sample_wiki"
DEFAULT_OUT = (
    Path(__file__).resolve().parent.parent
    / "data"
    / "raw"
    / "sample"
    / "wikipedia"
    / "enwiki-sample-pages-articles.xml.bz2"
)
BZ2_LEVEL = 9
PORTAL_NAMESPACE = 100
PORTAL_PREFIX = "Portal:Current events/"
PORTAL_FIRST_ID = 90001
PORTAL_FIRST_REVISION = 1286600001
PORTAL_EDITOR = {"username": "Current events bot", "id": 4419000}
EXPORT_NS = "http://www.mediawiki.org/xml/export-0.11/"

# Namespaces as listed in an English Wikipedia export (a subset; the reader needs 0 and 100).
NAMESPACES: tuple[tuple[int, str], ...] = (
    (-2, "Media"),
    (-1, "Special"),
    (0, ""),
    (1, "Talk"),
    (2, "User"),
    (3, "User talk"),
    (4, "Wikipedia"),
    (5, "Wikipedia talk"),
    (6, "File"),
    (7, "File talk"),
    (10, "Template"),
    (11, "Template talk"),
    (14, "Category"),
    (15, "Category talk"),
    (100, "Portal"),
    (101, "Portal talk"),
    (118, "Draft"),
    (119, "Draft talk"),
    (828, "Module"),
    (829, "Module talk"),
)

Page = dict[str, Any]


def mediawiki_sha1(text: str) -> str:
    """SHA-1 of the UTF-8 text in base 36, zero-padded to 31 digits, as in MediaWiki's <sha1>."""
    value = int(hashlib.sha1(text.encode("utf-8")).hexdigest(), 16)
    digits = ""
    while value:
        value, remainder = divmod(value, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[remainder] + digits
    return digits.rjust(31, "0")


def portal_pages(directory: Path) -> list[Page]:
    """Day pages from ``<directory>/*.wikitext``, ordered by day (unparseable names last, by name)."""
    if not directory.is_dir():
        return []
    files = sorted(
        directory.glob("*.wikitext"), key=lambda path: (_portal_day(path) or datetime.max, path.name)
    )
    pages = []
    for index, path in enumerate(files):
        parsed = _portal_day(path)
        stamp = (parsed or datetime(2025, 7, 31)).strftime("%Y-%m-%dT23:58:00Z")
        pages.append(
            {
                "id": PORTAL_FIRST_ID + index,
                "title": portal_title(path),
                "ns": PORTAL_NAMESPACE,
                "revision_id": PORTAL_FIRST_REVISION + index,
                "timestamp": stamp,
                "contributor": PORTAL_EDITOR,
                "comment": "daily summary",
                "text": path.read_text(encoding="utf-8").rstrip("\n").split("\n"),
            }
        )
    return pages


def portal_title(path: Path) -> str:
    stem = path.stem
    if stem.startswith("Portal:"):
        return stem.replace("__", "/").replace("%2F", "/")
    return PORTAL_PREFIX + stem.replace("_", " ")


def _portal_day(path: Path) -> datetime | None:
    day = portal_title(path).rsplit("/", 1)[-1]
    try:
        return datetime.strptime(day, "%Y %B %d")
    except ValueError:
        return None


def export_xml(site: dict[str, str], pages: Iterable[Page]) -> str:
    parts = [
        f'<mediawiki xmlns="{EXPORT_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
        f' xsi:schemaLocation="{EXPORT_NS} http://www.mediawiki.org/xml/export-0.11.xsd"'
        ' version="0.11" xml:lang="en">\n',
        "  <siteinfo>\n",
        f"    <sitename>{escape(site['sitename'])}</sitename>\n",
        f"    <dbname>{escape(site['dbname'])}</dbname>\n",
        f"    <base>{escape(site['base'])}</base>\n",
        f"    <generator>{escape(site['generator'])}</generator>\n",
        "    <case>first-letter</case>\n",
        "    <namespaces>\n",
    ]
    for key, name in NAMESPACES:
        if name:
            parts.append(f'      <namespace key="{key}" case="first-letter">{escape(name)}</namespace>\n')
        else:
            parts.append(f'      <namespace key="{key}" case="first-letter" />\n')
    parts += ["    </namespaces>\n", "  </siteinfo>\n"]
    parts += (_page_xml(page) for page in pages)
    parts.append("</mediawiki>\n")
    return "".join(parts)


def _page_xml(page: Page) -> str:
    text = "\n".join(page["text"])
    contributor = page["contributor"]
    lines = [
        "  <page>",
        f"    <title>{escape(page['title'])}</title>",
        f"    <ns>{page['ns']}</ns>",
        f"    <id>{page['id']}</id>",
    ]
    if page.get("redirect"):
        lines.append(f"    <redirect title={quoteattr(page['redirect'])} />")
    lines += [
        "    <revision>",
        f"      <id>{page['revision_id']}</id>",
        f"      <parentid>{page['revision_id'] - 11}</parentid>",
        f"      <timestamp>{page['timestamp']}</timestamp>",
        "      <contributor>",
        f"        <username>{escape(contributor['username'])}</username>",
        f"        <id>{contributor['id']}</id>",
        "      </contributor>",
        f"      <comment>{escape(page['comment'])}</comment>",
        "      <model>wikitext</model>",
        "      <format>text/x-wiki</format>",
        f'      <text bytes="{len(text.encode("utf-8"))}" xml:space="preserve">{_escape_text(text)}</text>',
        f"      <sha1>{mediawiki_sha1(text)}</sha1>",
        "    </revision>",
        "  </page>",
    ]
    return "\n".join(lines) + "\n"


def _escape_text(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def build(out: Path, portal_dir: Path) -> Path:
    source = json.loads((SAMPLE_DIR / "pages.json").read_text(encoding="utf-8"))
    pages = sorted(source["pages"], key=lambda page: page["id"]) + portal_pages(portal_dir)
    ids = [page["id"] for page in pages]
    if len(ids) != len(set(ids)):
        raise ValueError("duplicate page ids in the sample sources")
    data = bz2.compress(export_xml(source["site"], pages).encode("utf-8"), compresslevel=BZ2_LEVEL)
    with atomic_path(out) as temp:
        temp.write_bytes(data)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--portal-dir", type=Path, default=SAMPLE_DIR / "portal")
    args = parser.parse_args()
    path = build(args.out, args.portal_dir)
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
