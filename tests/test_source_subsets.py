"""A build from the sources a lab has: GDELT-only, with no CC-News raw folder at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from tests.support.project import BIN, dvc, make_project, run


@pytest.mark.slow
def test_gdelt_only_build_needs_no_ccnews_folder(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", ccnews_ingest__raw_dir="", ray__executor="serial")
    shutil.rmtree(project / "data/raw/sample/ccnews")
    dvc(["repro", "relation_split"], project)  # the MIRAI branch (the check stage reads every style)
    run([str(BIN / "python"), "-m", "stages.check", "--style", "mirai"], project)  # its check alone
    # The corpus is empty on purpose: dedup says which CC-News months it read (none).
    dedup = json.loads((project / "reports/metrics/dedup.json").read_text())
    assert (dedup["items_in"], dedup["ccnews_months"]) == (0, [])
    for month in ("2025-04", "2025-05", "2025-06"):
        assert pq.read_metadata(project / f"data/articles/{month}/empty.parquet").num_rows == 0
    # Without the corpus, only the sample's page archive gives the MIRAI events their text: the full build
    # links 244 pages from the archive and 9 from the corpus, and 1 of those 9 is in the archive too: 245.
    articles = json.loads((project / "reports/metrics/gdelt_articles.json").read_text())
    assert articles["linked_by"] == {"ccnews": 0, "archive": 245, "fetched": 0}
    assert json.loads((project / "reports/check/mirai.json").read_text())["ok"]
    # OpenForesight needs the CC-News corpus: it stops with the reason instead of building empty splits.
    result = run(
        [str(BIN / "python"), "-m", "stages.foresight_month", "--month", "2025-05"], project, check=False
    )
    assert result.returncode == 1
    assert "CC-News is off" in result.stderr.strip().splitlines()[-1]
