"""A build from the sources a lab has: GDELT-only, with no CC-News raw folder at all."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.support.project import BIN, ROOT, dvc, make_project, run


@pytest.mark.slow
def test_gdelt_only_build_needs_no_ccnews_folder(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", ccnews_months=[], ray__executor="serial")
    shutil.rmtree(project / "data/raw/sample/ccnews")
    dvc(["repro", "check_mirai"], project)
    # The corpus is empty on purpose: dedup says which CC-News months it read (none).
    dedup = json.loads((project / "reports/metrics/dedup.json").read_text())
    assert (dedup["items_in"], dedup["ccnews_months"]) == (0, [])
    for month in ("2025-04", "2025-05", "2025-06"):
        assert pq.read_metadata(project / f"data/articles/{month}.parquet").num_rows == 0
    # Without the corpus, only the sample's page archive gives the MIRAI events their text: the full build
    # links 244 pages from the archive and 9 from the corpus, and 1 of those 9 is in the archive too: 245.
    articles = json.loads((project / "reports/metrics/gdelt_articles.json").read_text())
    assert articles["linked_by"] == {"ccnews": 0, "archive": 245, "fetched": 0}
    assert json.loads((project / "reports/check/mirai.json").read_text())["ok"]
    # OpenForesight needs the CC-News corpus: it stops with the reason instead of building empty splits.
    result = run(
        [str(BIN / "python"), "-m", "stages.foresight_qgen", "--month", "2025-05"], project, check=False
    )
    assert result.returncode == 1
    assert "ccnews_months is empty" in result.stderr.strip().splitlines()[-1]


def test_a_month_in_scope_without_its_ccnews_crawl_stops_dedup(tmp_path: Path) -> None:
    # months has 2025-06, ccnews_months does not: the corpus of June would be empty without anyone
    # having said so, so dedup refuses before reading anything.
    params = {"months": ["2025-05", "2025-06"], "ccnews_months": ["2025-05"]}
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    done = subprocess.run(
        [sys.executable, "-m", "stages.dedup"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": str(BIN)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "months ['2025-06'] are in `months` but not in `ccnews_months`" in done.stderr
