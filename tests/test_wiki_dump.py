"""Wikipedia dump reader and wikitext sections, on real export excerpts and hand-built broken files.

Expected counts and titles were read off the files by hand (``grep '<title>\\|<ns>\\|<redirect'``).
"""

from __future__ import annotations

import bz2
import importlib.util
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from almanac.ccnews.records import Unreadable
from almanac.wiki.dump import SKIP_NAMESPACE, SKIP_REDIRECT, DumpItem, Skipped, WikiPage, read_dump
from almanac.wiki.sections import (
    Section,
    WikitextError,
    is_event_section,
    is_redirect_text,
    select_event_sections,
    split_sections,
    word_count,
)

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "wikipedia"
SIMPLEWIKI = REALDATA / "simplewiki.xml.bz2"
ENWIKI = REALDATA / "enwiki-articles-partial.xml"
needs_realdata = pytest.mark.skipif(
    not (SIMPLEWIKI.exists() and ENWIKI.exists()),
    reason=f"real Wikipedia excerpts not found under {REALDATA}",
)

# enwiki-articles-partial.xml in file order: (page id, title, what the reader must make of it).
ENWIKI_PAGES = [
    (7697605, "Konica Minolta Cup", "page"),
    (7697606, "Wikipedia:DABMOS", SKIP_REDIRECT),  # ns 4, but a redirect first
    (7697611, "Archer (typeface)", "page"),
    (7697612, "Stockton Airport", "page"),
    (7697615, "Category:Protected areas of Canada", SKIP_NAMESPACE),
    (7697617, "Suzzana Owiyo", SKIP_REDIRECT),
    (7697626, "Ricky Minard", "page"),
    (7697627, "Wikipedia:Articles for deletion/Katisha", SKIP_NAMESPACE),
    (7697629, "Penny-and-dime scam", SKIP_REDIRECT),
    (7697632, "Mr. & Mrs.", SKIP_REDIRECT),
    (7697635, "Category:Amblyornis", SKIP_NAMESPACE),
]


def _kinds(items: list[DumpItem]) -> list[tuple[str, str]]:
    """(title or reason, kind) per item, to compare whole streams at once."""
    out = []
    for item in items:
        if isinstance(item, WikiPage):
            out.append((item.title, "page"))
        elif isinstance(item, Skipped):
            out.append((item.title, item.kind))
        else:
            out.append((item.reason, "unreadable"))
    return out


def _split_pages(xml: bytes) -> tuple[bytes, list[bytes], bytes]:
    """Header (up to the first <page>), each <page> block, and the closing tag."""
    first = xml.index(b"  <page>")
    end = xml.rindex(b"</mediawiki>")
    pages = [b"  <page>" + chunk for chunk in xml[first:end].split(b"  <page>")[1:]]
    return xml[:first], pages, xml[end:]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@needs_realdata
def test_simplewiki_bz2_pages_namespaces_and_fields() -> None:
    items = list(read_dump(SIMPLEWIKI))
    assert len(items) == 7
    pages = [item for item in items if isinstance(item, WikiPage)]
    assert [page.title for page in pages] == [
        "April",
        "August",
        "Art",
        "A",
        "Air",
        "Autonomous communities of Spain",
    ]
    assert [page.page_id for page in pages] == [1, 2, 6, 8, 9, 12]
    assert items[5] == Skipped(SKIP_NAMESPACE, "Wikipedia:Administrators", 4, "simplewiki.xml.bz2:page:11")
    april = pages[0]
    assert april.revision_id == 6516364
    assert april.timestamp == datetime(2019, 4, 26, 3, 40, 24, tzinfo=UTC)
    assert april.text.startswith("{{monththisyear|4}}")
    assert april.source == "simplewiki.xml.bz2:page:1"
    # Asking for the project namespace too turns the skip into a page.
    wider = [item for item in read_dump(SIMPLEWIKI, namespaces=(0, 4)) if isinstance(item, WikiPage)]
    assert len(wider) == 7 and wider[5].namespace == 4


@needs_realdata
def test_simplewiki_month_page_sections() -> None:
    april = next(item for item in read_dump(SIMPLEWIKI) if isinstance(item, WikiPage))
    sections = split_sections(april.text)
    headings = [(section.title, section.level) for section in sections]
    assert headings == [
        ("", 0),
        ("The Month", 2),
        ("April in poetry", 2),
        ("Events in April", 2),
        ("Fixed Events", 3),
        ("Moveable Events", 3),
        ("Selection of Historical Events", 2),
        ("Trivia", 2),
        ("References", 2),
    ]
    assert sections[0].text.startswith("April is the 4th month of the year, and comes between March and May.")
    assert "April 1 - April Fools' Day" in sections[4].text.splitlines()
    assert word_count(sections) > 1000


@needs_realdata
def test_enwiki_partial_redirects_and_namespaces() -> None:
    items = list(read_dump(ENWIKI, label="enwiki"))
    assert _kinds(items) == [(title, kind) for _, title, kind in ENWIKI_PAGES]
    assert [item.source for item in items] == [f"enwiki:page:{page_id}" for page_id, _, _ in ENWIKI_PAGES]
    assert sum(isinstance(item, Skipped) and item.kind == SKIP_REDIRECT for item in items) == 4
    minard = items[6]
    assert isinstance(minard, WikiPage)
    lead = split_sections(minard.text)[0]
    assert lead.text.startswith(
        "Ricky Donell Minard Jr. (born September 11, 1982) is an American professional"
    )
    assert "{{" not in lead.text and "Infobox" not in lead.text and "team15" not in lead.text


@needs_realdata
def test_multistream_bz2_reads_every_stream(tmp_path: Path) -> None:
    xml = ENWIKI.read_bytes()
    cut = xml.index(b"  <page>\n    <title>Ricky Minard")
    data = bz2.compress(xml[:cut]) + bz2.compress(xml[cut:])
    path = _write(tmp_path / "multi.xml.bz2", data)
    assert data.count(b"BZh9") >= 2
    assert _kinds(list(read_dump(path))) == _kinds(list(read_dump(ENWIKI)))


@needs_realdata
def test_truncated_multistream_keeps_pages_of_complete_streams(tmp_path: Path) -> None:
    header, pages, footer = _split_pages(ENWIKI.read_bytes())
    streams = [bz2.compress(part) for part in [header, *pages, footer]]
    # Keep the header and the first six pages, then half of the seventh page's stream.
    data = b"".join(streams[:7]) + streams[7][: len(streams[7]) // 2]
    items = list(read_dump(_write(tmp_path / "cut.xml.bz2", data)))
    assert _kinds(items[:6]) == [(title, kind) for _, title, kind in ENWIKI_PAGES[:6]]
    assert len(items) == 7
    failure = items[6]
    assert isinstance(failure, Unreadable) and failure.reason == "truncated_file"
    assert failure.source == "cut.xml.bz2:after_page:7697617"
    assert "6 pages read" in failure.detail


@needs_realdata
def test_truncated_single_stream_and_plain_xml(tmp_path: Path) -> None:
    xml = ENWIKI.read_bytes()
    # One bz2 block holds the whole file: cut it and nothing at all can be decompressed.
    single = bz2.compress(xml)
    items = list(read_dump(_write(tmp_path / "one.xml.bz2", single[: len(single) // 2])))
    assert len(items) == 1 and isinstance(items[0], Unreadable)
    assert (items[0].reason, items[0].source) == ("truncated_file", "one.xml.bz2:start")
    # Plain XML cut inside Ricky Minard's text: the six pages before it survive.
    cut = xml.index(b"He was selected by the [[Sacramento Kings]]")
    items = list(read_dump(_write(tmp_path / "cut.xml", xml[:cut])))
    assert _kinds(items[:6]) == [(title, kind) for _, title, kind in ENWIKI_PAGES[:6]]
    assert isinstance(items[6], Unreadable) and items[6].reason == "truncated_file"
    assert items[6].source == "cut.xml:after_page:7697617" and len(items) == 7


@needs_realdata
def test_garbage_mid_file_is_malformed_xml(tmp_path: Path) -> None:
    header, pages, footer = _split_pages(ENWIKI.read_bytes())
    garbage = b"  <page><title>x</title></pag>\n"  # mismatched end tag
    items = list(read_dump(_write(tmp_path / "bad.xml", header + b"".join(pages[:2]) + garbage + footer)))
    assert _kinds(items[:2]) == [(title, kind) for _, title, kind in ENWIKI_PAGES[:2]]
    assert len(items) == 3 and isinstance(items[2], Unreadable)
    assert (items[2].reason, items[2].source) == ("malformed_xml", "bad.xml:after_page:7697606")
    # An element mwxml does not expect inside <page> is that page's reject; the next page is kept.
    odd = pages[0].replace(b"<ns>0</ns>", b"<ns>0</ns><surprise/>")
    items = list(read_dump(_write(tmp_path / "odd.xml", header + odd + pages[1] + footer)))
    assert len(items) == 2 and isinstance(items[0], Unreadable) and items[0].reason == "unreadable_page"
    assert items[0].detail == "MalformedXML: Unexpected tag found when processing a <page>: 'surprise'"
    assert _kinds(items[1:]) == [(title, kind) for _, title, kind in ENWIKI_PAGES[1:2]]


@pytest.mark.parametrize(
    ("name", "data", "expected_detail"),
    [
        ("empty.xml", b"", "empty file"),
        ("empty.xml.bz2", bz2.compress(b""), "ParseError"),
        ("feed.xml", b'<?xml version="1.0"?><rss><channel><title>t</title></channel></rss>', "<rss>"),
        ("notes.txt", b"just some text, not XML at all\n", "ParseError"),
        ("junk.xml.bz2", b"BZh91AY&SY this is not bzip2 data", "OSError"),
    ],
)
def test_files_that_are_not_dumps(tmp_path: Path, name: str, data: bytes, expected_detail: str) -> None:
    items = list(read_dump(_write(tmp_path / name, data)))
    assert len(items) == 1 and isinstance(items[0], Unreadable)
    assert items[0].reason == "not_a_dump" and items[0].source == f"{name}:start"
    assert expected_detail in items[0].detail


def test_pages_without_revision_or_text_and_text_only_redirects(tmp_path: Path) -> None:
    def page(page_id: int, title: str, revision: str) -> str:
        return f"<page><title>{title}</title><ns>0</ns><id>{page_id}</id>{revision}</page>"

    revision = "<revision><id>{}</id><timestamp>2025-05-01T10:00:00Z</timestamp>{}</revision>"
    xml = (
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/"><siteinfo><sitename>W</sitename>'
        "</siteinfo>"
        + page(1, "No revision", "")
        + page(2, "Blanked", revision.format(20, '<text bytes="0" xml:space="preserve" />'))
        + page(3, "Old redirect", revision.format(30, "<text>#REDIRECT [[Target page]]</text>"))
        + page(4, "Fine", revision.format(40, "<text>Some '''text'''.</text>"))
        + "</mediawiki>"
    )
    items = list(read_dump(_write(tmp_path / "small.xml", xml.encode())))
    assert [getattr(item, "reason", None) for item in items[:2]] == ["no_revision", "no_text"]
    assert items[0].source == "small.xml:page:1"
    assert items[2] == Skipped(SKIP_REDIRECT, "Old redirect", 0, "small.xml:page:3")
    assert items[3] == WikiPage(
        4, 0, "Fine", 40, datetime(2025, 5, 1, 10, tzinfo=UTC), "Some '''text'''.", "small.xml:page:4"
    )


HANDWRITTEN = """{{Infobox storm|name=Test|date=1 May}}
'''Storm Test''' was a [[storm]] that hit [[Port Alder|the port]] in May.<ref>{{cite news|title=X}}</ref>

It caused floods.<ref name="a">Plain ref text</ref>
[[File:Storm.jpg|thumb|A photo caption]]
== Background ==
Warm seas helped it grow.<!-- hidden note -->
=== Forecasts ===
* 1 May 2025 &ndash; Warnings issued.<ref name="a"/>
* 2 May 2025 &ndash; Landfall near [[Port Alder]].
{| class="wikitable"
! Day !! Rain
|-
| 1 May || 40 mm
|}
== Personal stories ==
==== Survivors ====
Two sailors were rescued.
== Aftermath ==
Repairs cost &pound;2 million. See [https://example.org the report].
[[Category:Storms]]
[[de:Sturm Test]]
"""


def test_sections_strip_markup_and_keep_levels() -> None:
    sections = split_sections(HANDWRITTEN)
    assert sections == [
        Section("", 0, "Storm Test was a storm that hit the port in May.\nIt caused floods."),
        Section("Background", 2, "Warm seas helped it grow."),
        Section(
            "Forecasts", 3, "1 May 2025 \u2013 Warnings issued.\n2 May 2025 \u2013 Landfall near Port Alder."
        ),
        Section("Personal stories", 2, ""),
        Section("Survivors", 4, "Two sailors were rescued."),
        Section("Aftermath", 2, "Repairs cost £2 million. See the report."),
    ]
    # 14 + 5 + 12 (the dashes are not words) + 4 + 7
    assert word_count(sections) == 42
    kept = select_event_sections(sections)
    assert [section.title for section in kept] == ["", "Background", "Forecasts", "Aftermath"]
    assert split_sections("") == [Section("", 0, "")]


@pytest.mark.parametrize(
    "wikitext",
    [
        "{{Infobox event\n| name = Unfinished\nThe lead never closes the box.\n== Background ==\nText.",
        "Lead.\n== Results ==\n{| class=wikitable\n| a || b\n|-\n| c\n== Aftermath ==\nMore.",
        "Stray closing braces }} in the middle.",
        "An unclosed link [[Somewhere\nand more text.",
        "{{" * 400 + "[[" * 400 + "<ref>" * 50,
    ],
)
def test_broken_wikitext_raises_only_wikitext_error(wikitext: str) -> None:
    with pytest.raises(WikitextError):
        split_sections(wikitext)


def test_event_section_titles_and_redirect_text() -> None:
    for title in [
        "Background",
        "Background and origins",
        "Timeline of events",
        "International reactions",
        "AFTERMATH",
    ]:
        assert is_event_section(title), title
    for title in ["Early life", "References", "See also", ""]:
        assert not is_event_section(title), title
    assert not is_event_section("Trial", ("Aftermath",))
    assert is_redirect_text("#REDIRECT [[X]]") and is_redirect_text("  #redirect:[[X]]")
    assert not is_redirect_text("Text then #REDIRECT [[X]]")


def _load_builder() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "scripts" / "build_wiki_sample.py"
    spec = importlib.util.spec_from_file_location("build_wiki_sample", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_sample_dump_is_reproducible_and_has_the_intended_pages(tmp_path: Path) -> None:
    builder = _load_builder()
    portal = tmp_path / "portal"
    portal.mkdir()
    (portal / "Portal:Current events__2025 April 3.wikitext").write_text(
        "* A day's story\n", encoding="utf-8"
    )
    first = builder.build(tmp_path / "a.xml.bz2", portal)
    second = builder.build(tmp_path / "b.xml.bz2", portal)
    assert first.read_bytes() == second.read_bytes()
    items = list(read_dump(first, namespaces=(0, 100)))
    pages = {item.title: item for item in items if isinstance(item, WikiPage)}
    assert sorted(item.title for item in items if isinstance(item, Skipped)) == [
        "Tessary eruption",
        "Veloria floods",
    ]
    assert pages["Portal:Current events/2025 April 3"].namespace == 100
    # 11 pages written for the first sample (70101-70111) and the portal day, then 12 event articles added
    # so that every split has four stories for the multiple-choice donors (70131-70142)
    assert len(pages) == 24
    assert {page.page_id for page in pages.values()} >= set(range(70131, 70143))
    events = [title for title, page in pages.items() if page.page_id <= 70106]
    date = re.compile(r"\b\d{1,2} (March|April|May|June|July) 2025\b")
    for title in events:
        sections = split_sections(pages[title].text)
        assert 400 <= word_count(sections) <= 900, title
        months = [match.group(1) for match in date.finditer("\n".join(s.text for s in sections))]
        assert len(months) >= 8 and {"March", "April", "June"} <= set(months), title
    with pytest.raises(WikitextError):
        split_sections(pages["Dunmore bridge collapse"].text)
    assert word_count(split_sections(pages["2025 Pellam ferry fire"].text)) < 200


def test_checked_in_sample_matches_its_sources(tmp_path: Path) -> None:
    builder = _load_builder()
    checked_in = builder.DEFAULT_OUT
    if not checked_in.exists():
        pytest.skip(f"{checked_in} not built yet")
    fresh = builder.build(tmp_path / "fresh.xml.bz2", builder.SAMPLE_DIR / "portal")
    assert fresh.read_bytes() == checked_in.read_bytes(), (
        "stale sample: run python scripts/build_wiki_sample.py"
    )
