"""GDELT masterfilelist parsing and month selection, and the bundled sample's list."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from almanac.core.ids import canonical_url
from almanac.gdelt.masterlist import month_problems, parse_masterfilelist, select_month

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data/raw/sample/gdelt"
V2 = "http://data.gdeltproject.org/gdeltv2/"
MD5 = "0123456789abcdef0123456789abcdef"

LISTING = f"""\
150383 297A16B493DE7CF6CA809A7CC31D0B93 {V2}20250430234500.export.CSV.zip
318084 bb27f78ba45f69a17ea6ed7755e9f8ff {V2}20250430234500.mentions.CSV.zip
10768507 ea8dde0beb0ba98810a92db068c0ce99 {V2}20250430234500.gkg.csv.zip

149211 2a91041d7e72b0fc6a629e2ff867b240 {V2}20250501000000.export.CSV.zip
339037 dec3f427076b716a8112b9086c342523 {V2}20250501000000.mentions.CSV.zip
   {V2}20250501001500.export.CSV.zip
12x {MD5} {V2}20250501003000.export.CSV.zip
99 not-an-md5 {V2}20250601000000.export.CSV.zip
99 {MD5} ftp://example.org/20250501004500.export.CSV.zip
99 {MD5} {V2}20250532000000.export.CSV.zip
99 {MD5} {V2}20250501011500.translation.export.CSV.zip
149211 2a91041d7e72b0fc6a629e2ff867b240 {V2}20250501000000.export.CSV.zip
5 {MD5} {V2}20250501000000.mentions.CSV.zip
158842 a5298ce3c6df1a8a759c61b5c0b6f8bb {V2}20250501234500.export.CSV.zip
"""


def test_parse_keeps_good_lines_and_reports_each_bad_one() -> None:
    files, problems = parse_masterfilelist(LISTING)
    assert [(f.line, f.kind, f.size) for f in files] == [
        (1, "export", 150383),
        (2, "mentions", 318084),
        (3, "gkg", 10768507),
        (5, "export", 149211),
        (6, "mentions", 339037),
        (12, "other", 99),  # a well-formed line for a product this module does not know
        (15, "export", 158842),
    ]
    assert files[0].md5 == "297a16b493de7cf6ca809a7cc31d0b93"  # upper-case hex normalised
    assert files[0].name == "20250430234500.export.CSV.zip" and files[0].month == "2025-04"
    reasons = {p.line: p.reason for p in problems}
    assert sorted(reasons) == [7, 8, 9, 10, 11, 14]  # line 4 is blank: nothing to report
    assert "got 1 space-separated parts" in reasons[7]
    assert "size '12x'" in reasons[8]
    assert "not 32 hex digits" in reasons[9]
    assert "not http(s)" in reasons[10]
    assert "valid YYYYMMDDHHMMSS" in reasons[11]
    assert "different size/MD5 (first on line 6)" in reasons[14]  # line 13 repeats line 5 exactly: fine


def test_select_month_takes_exports_and_mentions_of_that_month_only() -> None:
    files, problems = parse_masterfilelist(LISTING)
    may = select_month(files, "2025-05", include_mentions=True)
    assert [f.name for f in may] == [
        "20250501000000.export.CSV.zip",
        "20250501000000.mentions.CSV.zip",
        "20250501234500.export.CSV.zip",
    ]
    assert [f.name for f in select_month(files, "2025-05", include_mentions=False)] == [
        "20250501000000.export.CSV.zip",
        "20250501234500.export.CSV.zip",
    ]
    april = select_month(files, "2025-04", include_mentions=True)  # 23:45 of the 30th is still April
    assert [f.kind for f in april] == ["export", "mentions"]
    assert select_month(files, "2025-06", include_mentions=True) == []  # its only line was garbled
    assert [p.line for p in month_problems(problems, "2025-05")] == [7, 8, 10, 11, 14]
    assert [p.line for p in month_problems(problems, "2025-06")] == [9]
    with pytest.raises(ValueError, match="2025-05"):
        select_month(files, "2025-5", include_mentions=True)


def test_bundled_sample_list_matches_the_bundled_files() -> None:
    files, problems = parse_masterfilelist((SAMPLE / "masterfilelist.txt").read_text())
    assert [p.reason.split(",")[0] for p in problems] == ["expected '<size> <md5> <url>'"]
    assert {f.kind for f in files} == {"export", "mentions", "gkg"}
    assert {f.month for f in files} == {"2025-02", "2025-03", "2025-04", "2025-05", "2025-06"}
    for month in ("2025-04", "2025-05", "2025-06"):
        chosen = select_month(files, month, include_mentions=True)
        assert len(chosen) == 16 and sum(f.kind == "export" for f in chosen) == 8
        for entry in chosen:
            data = (SAMPLE / "files" / entry.name).read_bytes()
            assert len(data) == entry.size
            assert hashlib.md5(data, usedforsecurity=False).hexdigest() == entry.md5
    shipped = {path.name for path in (SAMPLE / "files").iterdir()}
    assert not any(".gkg." in name or name.startswith(("202502", "202503")) for name in shipped)


def test_sample_cites_articles_of_the_bundled_ccnews_sample() -> None:
    """The GDELT sample's corpus URLs (scripts/sample_gdelt/tables.json) are articles of the CC-News
    sample once canonicalised, so gdelt_articles has something to link."""
    tables = json.loads((ROOT / "scripts/sample_gdelt/tables.json").read_text())
    corpus = json.loads((ROOT / "scripts/sample_corpus/articles.json").read_text())
    article_urls = {canonical_url(article["url"]) for article in corpus["articles"]}
    cited = {canonical_url(url) for url in tables["corpus_urls"].values()}
    assert len(cited) == 9 and cited <= article_urls
    assert any("utm_source" in url for url in tables["corpus_urls"].values())  # differs before canonicalising
