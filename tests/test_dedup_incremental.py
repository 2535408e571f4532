"""Adding a crawl month to a built corpus signs only that month; the stage's corpus equals in-memory dedup."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.io import read_parquet_dir
from almanac.core.layout import read_month_articles
from almanac.core.parallel import RayConfig
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.dedup.near_duplicates import DedupConfig, deduplicate
from tests.support.project import dvc, render_lists

pytestmark = pytest.mark.slow
ADDED = "2025-07"  # not in the sample: June's CC-News files again under a new crawl month


def _ran(stdout: str) -> set[str]:
    return {line.split("'")[1] for line in stdout.splitlines() if line.startswith("Running stage")}


def _signed(project: Path, month: str) -> int:
    metrics = json.loads((project / "reports/metrics/dedup_signatures" / f"{month}.json").read_text())
    return int(metrics["signed_documents"])


# rebuilds(N): its own repro's rough seconds on 2 busy cores, which orders the tests on the build (conftest.py)
@pytest.mark.rebuilds(20)
def test_adding_a_month_signs_only_that_month(sample_build: Path, tmp_path: Path) -> None:
    """On a copy of the run's sample build (its three crawl months signed and deduplicated by `dvc repro`), a
    fourth crawl month, June's files again under July (every article a re-crawl of one the corpus holds),
    is signed alone and probed against the persisted band index: 4 stages instead of a scratch project's
    two builds (10 stages)."""
    project = tmp_path / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    old = yaml.safe_load((project / "params.yaml").read_text())["months"]
    assert all((project / "data/dedup/signatures" / f"{month}.parquet").is_file() for month in old)
    before = json.loads((project / "reports/metrics/dedup.json").read_text())
    shutil.copytree(project / "data/raw/sample/ccnews/2025-06", project / f"data/raw/sample/ccnews/{ADDED}")
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["months"].append(ADDED)
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    render_lists(project)  # the CC-News months follow from months
    second = _ran(dvc(["repro", "dedup"], project).stdout)
    assert {name for name in second if name.startswith("dedup_signatures")} == {f"dedup_signatures@{ADDED}"}
    assert "dedup" in second and f"ccnews_ingest@{ADDED}" in second
    # DVC left the persisted band index and corpus in place, so dedup probed the index (no full rebuild)
    run = json.loads((project / "metrics/timings/dedup.json").read_text())["run"]
    assert run["incremental"] == 1
    added = read_parquet_dir(project / f"data/ingest/{ADDED}/articles", ARTICLE_SCHEMA)
    # every crawl article of the month, any publish month
    assert _signed(project, ADDED) == added.num_rows > 0
    # the whole corpus read so far was signed exactly once, month by month
    dedup_metrics = json.loads((project / "reports/metrics/dedup.json").read_text())
    assert sum(_signed(project, month) for month in params["months"]) == dedup_metrics["items_in"]
    # the added month's articles are June's again: each is a duplicate, so the corpus keeps as many as before
    assert dedup_metrics["items_out"] == before["items_out"]
    assert dedup_metrics["rejected"] == before["rejected"] + added.num_rows

    # The stage's files are what in-memory dedup of the same articles gives.
    articles = pa.concat_tables(
        [
            read_parquet_dir(project / "data/ingest" / month / "articles", ARTICLE_SCHEMA)
            for month in params["months"]
        ]
    )
    kept, ledger = deduplicate(articles, params["months"], DedupConfig(), RayConfig(executor="serial"))
    written = pa.concat_tables([read_month_articles(month, project) for month in params["months"]])
    assert written.cast(ARTICLE_SCHEMA).equals(kept)
    assert pq.read_table(project / "data/dedup/rejects.parquet").equals(ledger.rejects_table())
    assert {key: dedup_metrics[key] for key in ledger.metrics()} == ledger.metrics()
