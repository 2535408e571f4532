"""wiki_ingest and wcep_ingest over the bundled sample dump, plus damaged inputs."""

from __future__ import annotations

import bz2
from pathlib import Path

from almanac.wcep.ingest import WcepIngestConfig, ingest_wcep
from almanac.wiki.ingest import DumpTask, find_dumps, ingest_dump

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data/raw/sample/wikipedia"
MDS = ROOT / "tests/fixtures/wcep/wcep_mds_sample.jsonl"


def test_wiki_ingest_keeps_articles_and_accounts_for_every_page() -> None:
    (dump,) = find_dumps(SAMPLE)
    rows, ledger = ingest_dump(DumpTask(str(dump), "sample", 200))
    ledger.check_balance()
    # scripts/sample_wiki/pages.json: 18 event articles (70101-70106, 70131-70142) + 3 other articles
    # (70107-70109) kept, 1 broken page, 1 stub, 2 redirects, and the portal day pages (namespace 100)
    # that are not articles.
    assert len(rows) == 21
    assert ledger.rejected_by_reason == {"broken_wikitext": 1, "too_short": 1}
    assert ledger.extra["skipped_pages"]["redirect"] == 2
    floods = next(row for row in rows if row["title"] == "2025 Veloria River floods")
    titles = [section["title"] for section in floods["sections"]]
    assert titles[0] == "" and "Background" in titles  # the lead first, then the headed sections
    assert all(
        "{{" not in section["text"] and "<ref" not in section["text"] for section in floods["sections"]
    )
    assert floods["word_count"] >= 200


def test_wiki_ingest_keeps_pages_before_a_truncated_stream(tmp_path: Path) -> None:
    (dump,) = find_dumps(SAMPLE)
    xml = bz2.decompress(dump.read_bytes())
    cut = xml[: xml.index(b"<title>Estravia</title>")]  # stop inside a later page
    damaged = tmp_path / "damaged.xml"
    damaged.write_bytes(cut)
    rows, ledger = ingest_dump(DumpTask(str(damaged), "damaged", 200))
    ledger.check_balance()
    assert ledger.rejected_by_reason.get("truncated_file") == 1
    assert 0 < len(rows) < 21  # the pages before the cut survive


def test_wcep_ingest_reads_portal_pages_from_the_dump_and_mds_lines() -> None:
    rows, ledger = ingest_wcep(WcepIngestConfig(dump_dir=str(SAMPLE), mds_files=(str(MDS),)))
    ledger.check_balance()
    # 13 portal day pages in the dump (one deliberately without categories) and 5 MDS lines (2 broken).
    assert ledger.items_in == 18
    assert ledger.rejected_by_reason == {"invalid_json": 1, "missing_field": 1, "unexpected_layout": 1}
    portal = [row for row in rows if row["origin"] == "portal"]
    assert {row["origin"] for row in rows} == {"portal", "wcep_mds"} and len(portal) == len(rows) - 3
    election = [row for row in portal if "2025 Norvale regional assembly election" in row["story_path"]]
    assert len(election) >= 5 and all(row["source_urls"] for row in election)
    dates = [row["date"] for row in rows]
    assert dates == sorted(dates)
