"""Property tests of the dump readers (issue 24): random and mutated records give rows or rejects, never
an exception, and nothing over a cap is kept. Wikipedia pages, WCEP day pages and WCEP-MDS lines, GDELT
lines, and the two stream layers under them (the capped XML stream, the bounded line splitter).

Each property runs a fixed number of derandomized examples, so CI time is fixed and a failure repeats.
Mutated real records come from ``../shared/realdata`` when it is there, else from small built-in ones.
"""

from __future__ import annotations

import io
import itertools
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from almanac.ccnews.records import Unreadable
from almanac.core.bounded_lines import LongLine, split_blocks
from almanac.gdelt.ingest import FileTask, ingest_file
from almanac.wcep.days import parse_day_pages
from almanac.wcep.mds import MdsEvent, read_wcep_mds
from almanac.wiki.capped_xml import _BLOCK as BLOCK
from almanac.wiki.capped_xml import CappedXml
from almanac.wiki.dump import Skipped, WikiPage, read_dump
from tests.gdelt.test_ingest import v2_fields
from tests.test_dump_caps import DAY, WORDS, Trickle, dump, page, through
from tests.test_wcep import NESTED_PAGE, TITLE

REALDATA = Path(__file__).resolve().parents[2] / "shared" / "realdata"
FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)


def _real_or(path: Path, fallback: bytes) -> bytes:
    return path.read_bytes() if path.is_file() else fallback


WIKI_SEED = _real_or(
    REALDATA / "wikipedia" / "enwiki-articles-partial.xml",
    dump(page(1, WORDS * 30), page(2, b"#REDIRECT [[x]]"), page(3, WORDS * 40, title="T&amp;C")),
)
GDELT_SEED = b"\n".join(
    _real_or(REALDATA / "gdelt" / "20151027220000.export.CSV", b"").splitlines()[:12]
    or ["\t".join(v2_fields(GlobalEventID=str(n))).encode() for n in range(12)]
)


@st.composite
def mutated(draw: st.DrawFn, seed: bytes) -> bytes:
    """``seed`` after a few cuts, insertions, deletions and duplications of random spans."""
    data = seed
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["cut", "insert", "delete", "duplicate", "flip"]))
        if kind == "cut":
            data = data[:at]
        elif kind == "insert":
            noise = draw(
                st.binary(max_size=40) | st.sampled_from([b"<", b"</page>", b"&", b"\r", b"\t", b"\xff"])
            )
            data = data[:at] + noise + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 200)) :]
        elif kind == "duplicate":
            data = (
                data[:at] + data[at : at + draw(st.integers(1, 2000))] * draw(st.integers(2, 50)) + data[at:]
            )
        elif data:
            at = min(at, len(data) - 1)
            data = data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
    return data


# -- the bounded line splitter ----------------------------------------------------------------------


def _blocks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(cut, len(data)) for cut in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


@FUZZ
@given(
    st.binary(max_size=300).map(lambda b: bytes(b"ab\r\n\t"[x % 5] for x in b)),
    st.lists(st.integers(0, 300)),
    st.integers(0, 30),
)
def test_split_blocks_numbers_lines_as_splitlines_does(data: bytes, cuts: list[int], cap: int) -> None:
    expected = [
        (n, line) if len(line) <= cap else LongLine(n, len(line))
        for n, line in enumerate(data.splitlines(), 1)
    ]
    assert list(split_blocks(_blocks(data, cuts), cap)) == expected


@FUZZ
@given(
    st.binary(max_size=300).map(lambda b: bytes(b"ab\r\n"[x % 4] for x in b)),
    st.lists(st.integers(0, 300)),
    st.integers(0, 30),
)
def test_split_blocks_newline_only_is_iteration_over_the_file(data: bytes, cuts: list[int], cap: int) -> None:
    lines = [line.removesuffix(b"\n") for line in io.BytesIO(data)]
    expected = [(n, line) if len(line) <= cap else LongLine(n, len(line)) for n, line in enumerate(lines, 1)]
    assert list(split_blocks(_blocks(data, cuts), cap, universal=False)) == expected


# -- the capped XML stream ---------------------------------------------------------------------------

TEXT_PIECES = st.sampled_from(
    [
        b"word ",
        b"&amp;",
        b"&#233;",
        b"caf\xc3\xa9",
        b"<![CDATA[ <x> & ]]>",
        b"<!-- a > b -->",
        b"\n",
        b"\r\n",
        b"> ",
    ]
)


@st.composite
def xml_documents(draw: st.DrawFn, repeat: int = 1) -> bytes:
    pages = []
    for number in range(draw(st.integers(0, 4))):
        pieces = draw(st.lists(TEXT_PIECES, min_size=0 if repeat == 1 else 20, max_size=60))
        text = b"".join(pieces) * draw(st.integers(max(1, repeat // 2), repeat))
        attribute = draw(st.sampled_from([b"", b' bytes="3"', b" q='a>b'", b' xml:space="preserve"']))
        tail = draw(st.sampled_from([b"", b"\n", b"  \n  "]))
        closing = draw(st.booleans())
        body = b"<text" + attribute + (b">" + text + b"</text>" if closing or text else b"/>")
        pages.append(b"<page><title>P" + str(number).encode() + b"</title>" + tail + body + b"</page>" + tail)
    return b'<?xml version="1.0"?>\n<mediawiki><siteinfo/>' + b"".join(pages) + b"</mediawiki>"


def _texts(data: bytes) -> list[tuple[str, str, str]]:
    return [(element.tag, element.text or "", element.tail or "") for element in ET.fromstring(data).iter()]


@FUZZ
@given(xml_documents(), st.integers(1, 400), st.integers(1, 50))
def test_capped_xml_empties_only_runs_over_the_cap(data: bytes, cap: int, step: int) -> None:
    out, capped = through(data, cap, step)
    if not capped.oversize and not capped.outside:
        assert out == data  # nothing over the cap: not one byte changed
    before, after = _texts(data), _texts(out)
    assert [tag for tag, _, _ in before] == [
        tag for tag, _, _ in after
    ]  # the same elements, still well-formed
    for (_, text, tail), (_, new_text, new_tail) in zip(before, after, strict=True):
        assert new_text in (text, "") and new_tail in (tail, "")
        assert len(new_text.encode()) <= cap and len(new_tail.encode()) <= cap  # decoded is never longer
    assert all(size > cap for _, size in [*capped.oversize.values(), *capped.outside])


@settings(FUZZ, max_examples=10)
@given(xml_documents(repeat=1500), st.sampled_from([BLOCK, 2 * BLOCK]), st.integers(1000, 3 * BLOCK))
def test_capped_xml_with_a_cap_of_a_block_or_more(data: bytes, cap: int, step: int) -> None:
    # With such a cap the tags between the first and last of a read are passed over without a look.
    test_capped_xml_empties_only_runs_over_the_cap.hypothesis.inner_test(data, cap, step)  # type: ignore[attr-defined]


@FUZZ
@given(mutated(WIKI_SEED), st.integers(200, 20_000))
def test_read_dump_on_mutated_dumps_gives_pages_or_rejects(data: bytes, cap: int) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "m.xml"
        path.write_bytes(data)
        items = list(read_dump(path, namespaces=(0, 4, 100), max_page_bytes=cap))
    assert all(isinstance(item, WikiPage | Skipped | Unreadable) for item in items)
    assert all(len(item.text.encode()) <= cap for item in items if isinstance(item, WikiPage))


def test_capped_xml_passes_a_stream_that_is_not_xml_through() -> None:
    data = b"not <xml at all & \xff" * 3
    capped = CappedXml(Trickle(data, 3), 5, 5)
    assert b"".join(iter(lambda: capped.read(4), b"")) == data  # mwxml is the one to report it


# -- WCEP --------------------------------------------------------------------------------------------


@FUZZ
@given(
    mutated(NESTED_PAGE.encode()), st.sampled_from([TITLE, "Portal:Current events/2025 Aprl 3", TITLE + "x"])
)
def test_day_pages_on_mutated_wikitext_are_parsed_or_rejected(data: bytes, title: str) -> None:
    pages = [(title, data.decode("utf-8", "replace")), (TITLE, DAY.decode())]
    result = parse_day_pages(pages, "fuzz")
    assert result.pages_read == result.pages_parsed + len(result.page_rejects) + result.not_day_pages == 2


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
MDS_RECORDS = st.fixed_dictionaries(
    {},
    optional={
        "date": st.sampled_from(["2025-05-05", "2025-13-01", "", "2025-05-05T10:00:00", "9999-12-31"])
        | JSON_VALUES,
        "summary": st.text(max_size=30) | JSON_VALUES,
        "category": JSON_VALUES,
        "articles": st.lists(st.fixed_dictionaries({}, optional={"url": st.text(max_size=30) | JSON_VALUES}))
        | JSON_VALUES,
        "reference_urls": st.lists(st.text(max_size=30) | JSON_VALUES) | JSON_VALUES,
        "id": JSON_VALUES,
    },
)


@FUZZ
@given(
    st.lists(MDS_RECORDS.map(lambda r: json.dumps(r).encode()) | st.binary(max_size=60), max_size=8),
    st.integers(10, 200),
)
def test_mds_lines_become_events_or_rejects(lines: list[bytes], cap: int) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "m.jsonl"
        path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines))
        items = list(read_wcep_mds(path, "m", max_line_bytes=cap))
    assert all(isinstance(item, MdsEvent | Unreadable) for item in items)
    for item in items:
        if isinstance(item, Unreadable) and item.reason == "line_too_long":
            assert int(item.detail.split()[2]) > cap  # "line of N bytes > max_line_bytes CAP"


# -- GDELT -------------------------------------------------------------------------------------------


@FUZZ
@given(mutated(GDELT_SEED), st.integers(50, 3_000), st.integers(100, 5_000))
def test_gdelt_lines_become_rows_or_rejects(data: bytes, cap: int, chunk: int) -> None:
    with TemporaryDirectory() as folder:
        path = Path(folder) / "20151027220000.export.CSV"
        path.write_bytes(data)
        result = ingest_file(FileTask(str(path), path.name, "export", max_line_bytes=cap, chunk_bytes=chunk))
    ledger = result.ledger
    assert (
        ledger.items_in
        == ledger.items_out + len(ledger.rejects)
        == ledger.items_out + sum(ledger.rejected_by_reason.values())
    )
    assert result.events.num_rows == ledger.items_out
    lengths = dict(enumerate((len(line) for line in data.splitlines()), 1))
    for source in result.events.column("source").to_pylist():
        assert lengths[int(source.rsplit(":", 1)[1])] <= cap  # no kept row came from a line over the cap
