"""Adding a crawl month to a built corpus signs only that month; the stage's corpus equals in-memory dedup."""

from __future__ import annotations

import json
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
from tests.support.project import dvc, make_project, render_lists

pytestmark = pytest.mark.slow


def _ran(stdout: str) -> set[str]:
    return {line.split("'")[1] for line in stdout.splitlines() if line.startswith("Running stage")}


def _signed(project: Path, month: str) -> int:
    metrics = json.loads((project / "reports/metrics/dedup_signatures" / f"{month}.json").read_text())
    return int(metrics["signed_documents"])


def test_adding_a_month_signs_only_that_month(tmp_path: Path) -> None:
    project = make_project(
        tmp_path / "project",
        months=["2025-04", "2025-05"],
        ray__executor="serial",
    )
    first = _ran(dvc(["repro", "dedup"], project).stdout)
    assert {"dedup_signatures@2025-04", "dedup_signatures@2025-05", "dedup"} <= first
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["months"].append("2025-06")
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    render_lists(project)  # the CC-News months follow from months
    second = _ran(dvc(["repro", "dedup"], project).stdout)
    assert {name for name in second if name.startswith("dedup_signatures")} == {"dedup_signatures@2025-06"}
    assert "dedup" in second
    # DVC left the persisted band index and corpus in place, so dedup probed the index (no full rebuild)
    run = json.loads((project / "metrics/timings/dedup.json").read_text())["run"]
    assert run["incremental"] == 1
    june = read_parquet_dir(project / "data/ingest/2025-06/articles", ARTICLE_SCHEMA)
    assert _signed(project, "2025-06") == june.num_rows > 0  # every June crawl article, any publish month
    # the whole corpus read so far was signed exactly once, month by month
    dedup_metrics = json.loads((project / "reports/metrics/dedup.json").read_text())
    assert sum(_signed(project, month) for month in params["months"]) == dedup_metrics["items_in"]

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
