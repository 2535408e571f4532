"""A build from the sources a lab has: GDELT-only, with no CC-News raw folder at all."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.support.make_repro import repro
from tests.support.project import BIN, render_lists, run

pytestmark = [
    pytest.mark.slow,
    pytest.mark.rebuilds(35),
]  # reruns the ~12 stages that read the corpus (~35 s)


def test_gdelt_only_build_needs_no_ccnews_folder(sample_build: Path, tmp_path: Path) -> None:
    # On a copy of the shared sample build: the GDELT stages, which never read CC-News, are built already
    # (from scratch they were 8 of the 21 stages upstream of check_mirai); every stage that reads the
    # corpus runs again, without the CC-News folder.
    project = tmp_path / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["ccnews_ingest"]["raw_dir"] = ""
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    render_lists(project)  # no CC-News months, so no ccnews_ingest (or signing) stage at all
    shutil.rmtree(project / "data/raw/sample/ccnews")
    ran = set(repro(["relation_split"], project)[0])  # the MIRAI branch (check reads every style)
    assert {"dedup", "gdelt_articles"} <= ran, sorted(ran)
    assert not any(name.startswith(("ccnews_", "gdelt_month")) for name in ran), sorted(ran)
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
