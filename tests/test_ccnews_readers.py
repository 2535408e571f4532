"""The CC-News reader table: a file goes to the first reader whose suffix ends its name, and every entry
is reachable (no earlier, more general suffix hides it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from almanac.ccnews.readers import READERS, UNKNOWN_KIND, Reader, read_file, reader_kind, without_limits
from almanac.ccnews.records import ReaderItem, Unreadable
from almanac.ccnews.warc import WarcLimits


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("CC-NEWS-20250401031522-00001.warc.gz", "warc"),
        ("crawl.warc", "warc"),
        ("newsplease-2025-04.jsonl", "newsplease_jsonl"),
        ("newsplease-2025-04.jsonl.gz", "newsplease_jsonl"),
        ("notes.txt", UNKNOWN_KIND),
        ("CRAWL.WARC.GZ", UNKNOWN_KIND),  # suffixes are compared as written
        ("archive.warc.gz.part", UNKNOWN_KIND),
    ],
)
def test_kind_by_suffix(name: str, kind: str) -> None:
    assert reader_kind(name) == kind


def test_every_entry_is_reachable_and_kinds_are_unique() -> None:
    kinds = [reader.kind for reader in READERS]
    assert len(set(kinds)) == len(kinds) and UNKNOWN_KIND not in kinds
    for reader in READERS:
        for suffix in reader.suffixes:
            assert reader_kind(f"file{suffix}") == reader.kind, f"{suffix} is taken by an earlier entry"


def _none(path: Path, label: str) -> Iterator[ReaderItem]:
    yield from ()


def test_the_first_matching_entry_wins() -> None:
    specific = Reader("special_jsonl", (".special.jsonl",), without_limits(_none))
    general = Reader("plain_jsonl", (".jsonl",), without_limits(_none))
    assert reader_kind("a.special.jsonl", (specific, general)) == "special_jsonl"
    assert reader_kind("a.special.jsonl", (general, specific)) == "plain_jsonl"  # hence: specific first
    assert reader_kind("a.jsonl", (specific, general)) == "plain_jsonl"


def test_a_file_no_reader_takes_is_one_unreadable_item(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    [item] = read_file(path, "notes.txt", reader_kind(path.name), WarcLimits())
    assert isinstance(item, Unreadable)
    assert (item.reason, item.source) == ("unknown_file_type", "notes.txt:0")
    assert item.detail.startswith("expected one of .warc.gz, .warc, ")  # names every suffix of the table
    assert all(suffix in item.detail for reader in READERS for suffix in reader.suffixes)
