"""wiki_ingest: the same page in two dumps is kept once (its latest revision), the other copy rejected."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.rejects import StageLedger, gather
from almanac.wiki.ingest import DumpTask, ingest_dump, keep_latest_revisions

BODY = " ".join(f"word{n}" for n in range(30))  # 30 words, above the min_words=10 used here


def _dump(path: Path, dbname: str, pages: list[tuple[int, str, int, str]]) -> Path:
    """pages: (page id, title, revision id, timestamp)."""
    xml = [
        '<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/"><siteinfo><sitename>W</sitename>'
        f"<dbname>{dbname}</dbname></siteinfo>"
    ]
    for page_id, title, revision_id, stamp in pages:
        xml.append(
            f"<page><title>{title}</title><ns>0</ns><id>{page_id}</id><revision><id>{revision_id}</id>"
            f"<timestamp>{stamp}</timestamp><text>{title} {BODY}</text></revision></page>"
        )
    xml.append("</mediawiki>")
    path.write_text("".join(xml), encoding="utf-8")
    return path


def _ingest(paths: list[Path]) -> tuple[list[dict[str, Any]], StageLedger]:
    results = [ingest_dump(DumpTask(str(p), p.name, 10)) for p in paths]
    rows, ledger = gather("wiki_ingest", results, dumps=len(paths))
    return keep_latest_revisions(rows, ledger), ledger


def test_same_page_in_two_dumps_keeps_the_latest_revision(tmp_path: Path) -> None:
    april = _dump(
        tmp_path / "enwiki-20250401.xml",
        "enwiki",
        [(7, "Storm", 100, "2025-03-30T10:00:00Z"), (8, "Flood", 200, "2025-03-01T00:00:00Z")],
    )
    may = _dump(
        tmp_path / "enwiki-20250501.xml",
        "enwiki",
        [(7, "Storm (2025)", 150, "2025-04-20T09:00:00Z"), (8, "Flood", 200, "2025-03-01T00:00:00Z")],
    )
    # Another wiki reuses page id 7 for another page: not a duplicate.
    simple = _dump(tmp_path / "simplewiki.xml", "simplewiki", [(7, "April", 5, "2019-04-26T03:40:24Z")])
    # Input order must not matter: the newer dump first, then the older.
    rows, ledger = _ingest([may, april, simple])
    ledger.check_balance()
    kept = sorted((row["site"], row["page_id"], row["revision_id"], row["source"]) for row in rows)
    assert kept == [
        ("enwiki", 7, 150, "enwiki-20250501.xml:page:7"),  # the later revision (renamed page)
        # Page 8 is the same revision in both dumps: the tie goes to the larger source name.
        ("enwiki", 8, 200, "enwiki-20250501.xml:page:8"),
        ("simplewiki", 7, 5, "simplewiki.xml:page:7"),
    ]
    assert (ledger.items_in, ledger.items_out) == (5, 3)
    rejects = sorted(ledger.rejects, key=lambda r: r.source)
    assert [(r.id, r.reason, r.source, r.related_id) for r in rejects] == [
        ("7", "duplicate_page", "enwiki-20250401.xml:page:7", "enwiki-20250501.xml:page:7"),
        ("8", "duplicate_page", "enwiki-20250401.xml:page:8", "enwiki-20250501.xml:page:8"),
    ]
    assert "revision 100 of 2025-03-30T10:00:00+00:00 superseded by revision 150" in rejects[0].detail
    again, _ = _ingest([april, simple, may])
    assert sorted(r["source"] for r in again) == sorted(r["source"] for r in rows)


def test_stage_writes_one_row_per_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stages import wiki_ingest

    raw = tmp_path / "dumps"
    raw.mkdir()
    _dump(raw / "a.xml", "enwiki", [(7, "Storm", 100, "2025-03-30T10:00:00Z")])
    _dump(raw / "b.xml", "enwiki", [(7, "Storm", 150, "2025-04-20T09:00:00Z")])
    (tmp_path / "params.yaml").write_text(
        yaml.safe_dump(
            {
                "months": ["2025-05"],
                "ray": {"executor": "serial"},
                "wiki_ingest": {"raw_dir": str(raw), "min_words": 10},
            }
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["wiki_ingest"])
    assert wiki_ingest.run() == 0
    articles = pq.read_table(tmp_path / "data/wiki/articles.parquet")
    assert articles.column("revision_id").to_pylist() == [150]
    assert "site" not in articles.column_names
    metrics = json.loads((tmp_path / "reports/metrics/wiki_ingest.json").read_text())
    assert (metrics["items_in"], metrics["items_out"], metrics["rejected_by_reason"]) == (
        2,
        1,
        {"duplicate_page": 1},
    )
