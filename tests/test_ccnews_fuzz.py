"""Property tests of the CC-News readers and the charset decoder (issue 24): random and mutated real
records give rows or rejects, never an exception, and nothing kept is over its cap.

Seeds: the bundled sample's WARC and news-please files, the real WARCs in ../shared/realdata/warc
(skipped when absent) and records built by tests.support. The budget is fixed (``derandomize``: the
same examples on every run, a few dozen each), so the suite takes seconds in CI.
"""

from __future__ import annotations

import contextlib
import gzip
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from almanac.ccnews.charset_labels import LABEL_CODECS
from almanac.ccnews.extract import decode_page
from almanac.ccnews.newsplease import read_newsplease
from almanac.ccnews.records import ParsedArticle, RawPage, Skipped, Unreadable
from almanac.ccnews.warc import WarcLimits, read_warc
from tests.support.bombs import good_newsplease, huge_int_line, nested_line
from tests.support.warc_factory import good_page, warc_bytes

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "raw" / "sample" / "ccnews"
REALDATA = ROOT.parent / "shared" / "realdata" / "warc"
FUZZ = settings(
    max_examples=100, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
LIMITS = WarcLimits(
    max_page_bytes=20_000, max_header_bytes=4_096, max_line_bytes=4_096, max_field_bytes=2_048
)


def _warc_seeds() -> list[bytes]:
    """Uncompressed WARC bytes: real files first (each cut to its first 64 KB), then a built one."""
    paths = sorted(SAMPLE.glob("*/*.warc.gz")) + sorted(REALDATA.glob("*.warc.gz"))
    seeds = []
    for path in paths[:6]:
        try:
            seeds.append(gzip.decompress(path.read_bytes())[:65_536])
        except (OSError, EOFError):  # a sample file cut short on purpose: its readable start is enough
            with gzip.open(path) as stream:
                seeds.append(stream.read(65_536) if _readable(stream) else b"")
    seeds.append(gzip.decompress(warc_bytes([good_page(1)])))
    return [seed for seed in seeds if seed]


def _readable(stream: gzip.GzipFile) -> bool:
    try:
        stream.peek(1)
    except (OSError, EOFError):
        return False
    return True


def _line_seeds() -> list[bytes]:
    import json

    lines = [line for path in sorted(SAMPLE.glob("*/*.jsonl")) for line in path.read_bytes().splitlines()]
    built = [json.dumps(good_newsplease(number)).encode() for number in range(2)]
    return [*lines[:6], *built, nested_line(50), huge_int_line(5_000)]


WARC_SEEDS = _warc_seeds()
LINE_SEEDS = _line_seeds()


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """A seed with a few byte edits: flips, inserted junk, deleted spans, a cut."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(0, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["flip", "insert", "delete", "cut", "newline"]))
        if edit == "flip":
            data[at] ^= draw(st.integers(1, 255))
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=64))
        elif edit == "delete":
            del data[at : at + draw(st.integers(1, 256))]
        elif edit == "cut":
            del data[at:]
        else:
            data[at:at] = b"\r\n"
    return bytes(data)


@contextmanager
def _written(data: bytes, name: str) -> Iterator[Path]:
    # Not pytest's tmp_path: a function-scoped fixture is shared by every example of a Hypothesis test.
    with tempfile.TemporaryDirectory(prefix="almanac-fuzz-") as folder:
        path = Path(folder) / name
        path.write_bytes(data)
        yield path


@FUZZ
@given(
    payload=st.one_of(st.binary(max_size=3_000), st.sampled_from(WARC_SEEDS).map(lambda seed: seed[-3_000:])),
    label=st.one_of(
        st.none(),
        st.sampled_from(sorted(LABEL_CODECS)),
        st.sampled_from(["hex", "rot13", "base64", "zlib", "undefined", "utf-32", "x-user-defined"]),
        st.text(max_size=30),
    ),
)
def test_decode_page_never_raises_but_for_strict_bytes(payload: bytes, label: str | None) -> None:
    decoded = decode_page(payload, label, "replace")
    assert isinstance(decoded.text, str) and decoded.source in {"bom", "http", "meta", "default", "detected"}
    with contextlib.suppress(UnicodeDecodeError):  # strict: rejected undecodable_payload by the stage
        decode_page(payload, label)


@FUZZ
@given(data=st.one_of(mutated(WARC_SEEDS), st.binary(max_size=2_000)), gzipped=st.booleans())
def test_warc_reader_gives_items_never_exceptions(data: bytes, gzipped: bool) -> None:
    with _written(gzip.compress(data) if gzipped else data, "f.warc.gz" if gzipped else "f.warc") as path:
        items = list(read_warc(path, path.name, LIMITS))
    for item in items:
        assert isinstance(item, RawPage | Skipped | Unreadable)
        if isinstance(item, RawPage):
            assert len(item.html) <= LIMITS.max_page_bytes


@FUZZ
@given(
    lines=st.lists(st.one_of(mutated(LINE_SEEDS), st.binary(max_size=300)), min_size=1, max_size=6),
    gzipped=st.booleans(),
)
def test_newsplease_reader_gives_one_item_per_line_never_exceptions(
    lines: list[bytes], gzipped: bool
) -> None:
    data = b"\n".join(lines)
    with _written(gzip.compress(data) if gzipped else data, "f.jsonl.gz" if gzipped else "f.jsonl") as path:
        items = list(read_newsplease(path, path.name, LIMITS.max_line_bytes, LIMITS.max_field_bytes))
    # One item per non-blank line (blank lines are skipped), or one empty_file item for an empty file.
    assert len(items) == (sum(1 for line in data.split(b"\n") if line.strip()) if data else 1)
    for item in items:
        assert isinstance(item, ParsedArticle | Unreadable)
        if isinstance(item, ParsedArticle):
            assert len(item.text.encode("utf-8", "surrogatepass")) <= LIMITS.max_field_bytes
