"""Stage entry points run as DVC runs them: exit codes, messages, and statistics checked by hand."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pytest

from almanac.core.io import write_parquet
from almanac.core.schemas import ARTICLE_SCHEMA, REJECT_SCHEMA
from almanac.reports.corpus_stats import corpus_statistics
from tests.support.project import make_project, run


@pytest.mark.slow  # a project copy and the stage as a process
def test_unreadable_input_fails_the_stage_naming_the_file(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", ray__executor="serial")
    (project / "data/raw/sample/ccnews/2025-05/broken-link.warc.gz").symlink_to(tmp_path / "missing.warc.gz")
    result = run([sys.executable, "-m", "stages.ccnews_ingest", "--month", "2025-05"], project, check=False)
    assert result.returncode == 1
    assert "broken-link.warc.gz" in result.stderr and "No such file" in result.stderr


@pytest.mark.slow  # a project copy and the stage as a process
def test_missing_month_directory_is_a_clear_error(tmp_path: Path) -> None:
    # The month is in params (a month that is not is refused before any path is built), its folder is not.
    months = ["2025-04", "2025-05", "2025-06", "2031-01"]
    project = make_project(tmp_path / "p", ray__executor="serial", months=months)
    result = run([sys.executable, "-m", "stages.ccnews_ingest", "--month", "2031-01"], project, check=False)
    assert result.returncode == 1 and "data/raw/sample/ccnews/2031-01 does not exist" in result.stderr


def _article(article_id: str, source: str, month: str, words: int) -> dict[str, object]:
    return {
        "id": article_id,
        "url": f"https://{source}/{article_id}",
        "source_domain": source,
        "title": None,
        "text": "x",
        "publish_date": datetime.fromisoformat(f"{month}-02T00:00:00+00:00").astimezone(UTC),
        "publish_month": month,
        "date_source": "html_meta",
        "date_precision": "day",
        "language": "en",
        "word_count": words,
        "crawl_date": None,
        "source_format": "warc",
        "source_file": "f",
        "source_offset": 0,
        "charset": None,
        "truncated": False,
    }


def _rejects(reasons: list[str]) -> pa.Table:
    rows = [
        {"id": str(i), "stage": "s", "reason": r, "detail": "", "source": "", "related_id": None}
        for i, r in enumerate(reasons)
    ]
    return pa.Table.from_pylist(rows, schema=REJECT_SCHEMA)


def test_corpus_statistics_by_hand(tmp_path: Path) -> None:
    may = [_article("a", "one.example", "2025-05", 100), _article("b", "two.example", "2025-05", 300)]
    june = [_article("c", "one.example", "2025-06", 500), _article("d", "one.example", "2025-06", 900)]
    write_parquet(pa.Table.from_pylist(may, schema=ARTICLE_SCHEMA), tmp_path / "2025-05.parquet")
    write_parquet(pa.Table.from_pylist(june, schema=ARTICLE_SCHEMA), tmp_path / "2025-06.parquet")
    write_parquet(_rejects(["too_short", "too_short", "language"]), tmp_path / "ingest_rejects.parquet")
    write_parquet(
        _rejects(["near_duplicate", "publish_month_out_of_scope"]), tmp_path / "dedup_rejects.parquet"
    )
    stats = corpus_statistics(
        [tmp_path / "2025-05.parquet", tmp_path / "2025-06.parquet"],
        [tmp_path / "ingest_rejects.parquet"],
        tmp_path / "dedup_rejects.parquet",
    )
    assert stats["articles"] == 4 and stats["sources"] == 2
    assert stats["articles_by_source_month"] == [
        {"source_domain": "one.example", "publish_month": "2025-05", "articles": 1},
        {"source_domain": "one.example", "publish_month": "2025-06", "articles": 2},
        {"source_domain": "two.example", "publish_month": "2025-05", "articles": 1},
    ]
    words = stats["word_count"]
    assert (words["min"], words["median"], words["max"], words["mean"]) == (100, 400.0, 900, 450.0)
    histogram = {b["words"]: b["articles"] for b in words["histogram"]}
    assert histogram["100-199"] == 1 and histogram["200-399"] == 1 and histogram["400-799"] == 1
    assert histogram["800-1599"] == 1 and histogram["0-99"] == 0
    assert stats["ingest_rejected_by_reason"] == {"language": 1, "too_short": 2}
    assert (
        stats["dedup_rate"] == 0.2
    )  # 1 near duplicate of 5 in-scope articles; out-of-scope is not a duplicate
    json.dumps(stats)  # metrics must be JSON-serialisable
