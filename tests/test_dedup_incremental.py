"""Adding a crawl month to a built project: only that month's stages run, only that month is signed, and the
dedup stage's corpus equals in-memory dedup of every month's articles."""

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
from tests.support.make_repro import repro
from tests.support.project import render_lists

pytestmark = pytest.mark.slow
ADDED = "2025-07"  # not in the sample: June's CC-News files again under a new crawl month

# What the added month's rebuild runs: the corpus chain to its whole-dataset stages (dedup, corpus_stats),
# and one per-month stage of OpenForesight and of MIRAI (relation_split reads the earlier months' history).
# `dvc repro` of these checks (and skips when unchanged) every stage they depend on. The stages downstream
# (the whole-dataset splits, checks, reports, FutureX) read whole-dataset files and have no per-month item
# whose rerun this test is about; `almanac month add --build` is tests/test_month_command.py's.
ADDED_MONTH_TARGETS = ("corpus_stats", f"foresight_month@{ADDED}", f"relation_split@{ADDED}")


def _signed(project: Path, month: str) -> int:
    metrics = json.loads((project / "reports/metrics/dedup_signatures" / f"{month}.json").read_text())
    return int(metrics["signed_documents"])


# rebuilds(N): its own repro's rough seconds on 2 busy cores, which orders the tests on the build (conftest.py)
@pytest.mark.rebuilds(50)
def test_adding_a_month_runs_only_that_months_stages_and_signs_only_that_month(
    sample_build: Path, tmp_path: Path
) -> None:
    """On a copy of the run's sample build (its three crawl months signed and deduplicated by `dvc repro`), a
    fourth crawl month, June's files again under July (every article a re-crawl of one the corpus holds), is
    added and rebuilt once. Two things are asserted on that one rebuild (they were two tests, each with its
    own copy and rebuild of the same month): which stages it ran (only the new month's, and exactly GDELT's
    old ingests), and that dedup signed July alone and probed the persisted band index, writing what in-memory
    dedup of every month's articles writes."""
    # The single-month stage (`dvc repro --single-item ccnews_ingest@2025-05` runs that month's ingest
    # alone) is asserted in test_forced_rerun_is_byte_identical_and_leaves_git_clean.
    project = tmp_path / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    old = yaml.safe_load((project / "params.yaml").read_text())["months"]
    assert old == ["2025-04", "2025-05", "2025-06"]
    assert all((project / "data/dedup/signatures" / f"{month}.parquet").is_file() for month in old)
    before = json.loads((project / "reports/metrics/dedup.json").read_text())
    # July's CC-News crawl is June's files again (real records); the sample has no July GDELT files, so July is
    # listed empty for GDELT (else its ingest stops: tests/test_raw_input.py). CC-News's months keep their
    # params: 3 stage runs fewer.
    shutil.copytree(project / "data/raw/sample/ccnews/2025-06", project / f"data/raw/sample/ccnews/{ADDED}")
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["months"].append(ADDED)
    params["empty_months"]["gdelt"] = [ADDED]
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    render_lists(project)  # the CC-News months follow from months
    ran = set(repro(list(ADDED_MONTH_TARGETS), project)[0])  # as `make repro ARGS=...` runs DVC

    # A new month runs its own ingest, then the cross-month stages.
    assert {
        f"ccnews_ingest@{ADDED}",
        f"dedup_signatures@{ADDED}",
        "dedup",
        "corpus_stats",
        f"foresight_month@{ADDED}",
        f"gdelt_month@{ADDED}",
        f"relation_split@{ADDED}",
    } <= ran
    # Old months' corpus and GDELT files did not change: of their per-month stages only GDELT's ingests ran
    # (they read empty_months.gdelt, a changed param), with byte-identical outputs; CC-News's did not (their
    # params, empty_months.ccnews included, are as they were). (Reports rerun too.)
    rebuilt = {stage for stage in ran if stage.split("@")[-1] in old}
    assert rebuilt == {f"gdelt_month@{month}" for month in old}, rebuilt
    for month in old:
        assert f"foresight_month@{month}" not in ran and f"relation_split@{month}" not in ran
        assert f"dedup_signatures@{month}" not in ran
    assert {name for name in ran if name.startswith("dedup_signatures")} == {f"dedup_signatures@{ADDED}"}

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
