"""`dvc repro` on the bundled sample, end to end, in a scratch copy of the project."""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.layout import (
    articles_dir,
    dedup_index_dir,
    dedup_rejects,
    ingest_dir,
    metrics_path,
    month_files,
    read_month_articles,
)
from almanac.pipeline.dag import STEPS
from tests.support.make_repro import repro
from tests.support.project import BIN, ROOT, dvc, run

pytestmark = pytest.mark.slow
MONTHS = ["2025-04", "2025-05", "2025-06"]
STYLES = ("openforesight", "openforecast", "mirai")


@pytest.fixture(scope="module")
def built(sample_build: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This module's copy of the sample build for the tests that only read it or add files of their own
    (plots, a release folder); a test that changes params, commits or reruns stages takes `fresh`."""
    project = tmp_path_factory.mktemp("dvc") / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    return project


@pytest.fixture
def fresh(sample_build: Path, tmp_path: Path) -> Path:
    """A copy of the sample build for this test alone, so no test sees another's changes (any order)."""
    project = tmp_path / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    return project


def test_repro_builds_every_stage_with_balanced_metrics(built: Path) -> None:
    for month in MONTHS:
        metrics = json.loads((built / metrics_path("ccnews_ingest", month)).read_text())
        assert metrics["items_in"] == metrics["items_out"] + metrics["rejected"] > 0
        rejects = pq.read_table(built / ingest_dir(month) / "rejects.parquet")
        assert rejects.num_rows == metrics["rejected"]
        assert month_files(month, built)  # its parts, one per crawl month that holds its articles
    dedup = json.loads((built / metrics_path("dedup")).read_text())
    kept = sum(read_month_articles(m, built).num_rows for m in MONTHS)
    assert dedup["items_out"] == kept > 0
    assert pq.read_table(built / dedup_rejects()).num_rows == dedup["rejected"] > 0
    assert (built / "reports/corpus_stats.md").read_text().startswith("# Corpus statistics")
    assert pq.read_table(built / "data/wiki/articles.parquet").num_rows == 21  # see test_wiki_wcep_ingest
    assert pq.read_table(built / "data/wcep/events.parquet").num_rows > 0
    news = pq.read_table(built / "data/wcep/news.parquet")  # fetching is off: corpus hits only
    assert news.num_rows > 0 and set(news.column("origin").to_pylist()) == {"ccnews"}


def _here(args: list[str], project: Path, capfd: pytest.CaptureFixture[str]) -> str:
    """`almanac ARGS` run from ``project`` in this process, its stdout: the card and datasets libraries are
    loaded once per test process, not once more per command (~1-1.5 s of CPU each). (Not DVC's command line:
    its console and log handlers keep the first test's captured streams, closed by the next test.)"""
    from almanac.cli import main

    assert args[0] == "almanac", args
    with contextlib.chdir(project):
        code = main(args[1:])
    said = capfd.readouterr()
    assert code == 0, said.err
    return said.out


def test_every_released_row_passes_almanac_check(built: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """The sample build's splits hold every invariant; the check stages wrote their counts."""
    said = _here(["almanac", "check", "all"], built, capfd)
    assert said.rstrip().endswith("check: ok"), said
    for style in ("openforesight", "openforecast", "mirai", "futuresim", "futurex"):
        summary = json.loads((built / f"reports/check/{style}.json").read_text())
        assert summary["ok"] and summary["rows"] > 0, style
        assert all(item["checked"] > 0 and item["violations"] == 0 for item in summary["invariants"].values())


def test_the_sample_builds_futurex_tiers(built: Path) -> None:
    """Every level is non-empty on the sample: Level 4 from the series style's numeric test questions and
    the offline validator's numeric drops (the sample's June articles state exact figures: docs/sample.md)."""
    counts = {
        level: pq.read_table(built / f"data/futurex/tiers/level{level}.parquet").num_rows
        for level in (1, 2, 3, 4)
    }
    assert min(counts.values()) > 0, counts
    stats = json.loads((built / "reports/futurex_stats.json").read_text())
    assert [row["step"] for row in stats["funnel"]] == [
        "candidate events", "harmful", "subjective", "yes_no", "template_cap", "source_day_cap", "tiers"
    ]  # fmt: skip
    assert stats["funnel"][-1]["out"] == sum(counts.values())


def test_second_repro_is_a_no_op(fresh: Path) -> None:
    result = dvc(["repro"], fresh)
    assert "Data and pipelines are up to date" in result.stdout
    assert "Running stage" not in result.stdout


# Several DVC commands in one process: DVC's command line, imported once (~1.5 s of CPU a process), run for
# each, their outputs told apart by a line none of them prints. (Not in the test's own process: DVC's
# console and log handlers keep the captured streams of the first test that ran it.)
DVC_COMMANDS = """
import json, sys
from dvc.cli import main
for args in json.loads(sys.argv[1]):
    print("<next dvc command>", flush=True)
    if main(args) != 0:
        sys.exit(f"dvc {' '.join(args)} failed")
    sys.stdout.flush()
"""


def dvc_outputs(commands: list[list[str]], project: Path) -> list[str]:
    """The stdout of each `dvc ARGS` of ``commands``, run in order in one process in ``project``."""
    said = run([str(BIN / "python"), "-c", DVC_COMMANDS, json.dumps(commands)], project).stdout
    outputs = said.split("<next dvc command>\n")
    assert outputs[0] == "" and len(outputs) == len(commands) + 1, said
    return outputs[1:]


def test_metrics_show_prints_only_the_style_summaries(built: Path) -> None:
    as_json, table = dvc_outputs([["metrics", "show", "--json"], ["metrics", "show"]], built)
    shown = json.loads(as_json)
    files = next(iter(shown.values()))["data"]
    assert sorted(files) == sorted(f"reports/{style}/all/summary.json" for style in STYLES)
    for style in STYLES:
        summary = files[f"reports/{style}/all/summary.json"]["data"]
        assert summary["check"] == "ok", style
        released = summary["train"] + summary["validation"] + summary["test"]
        assert summary["released"].split(" ")[0] == str(released) and released > 0, style  # "7 questions"
    assert len(table.splitlines()) == 4 and len(table.encode()) < 10_000  # header + one row per style
    assert len(table.splitlines()[0].split()) <= 13  # "Path" and at most 12 columns


def test_report_stages_write_their_counts_and_panels(built: Path) -> None:
    for style in STYLES:
        for month in MONTHS:  # the detail stays, as git-tracked outputs
            assert (built / f"reports/{style}/{month}/metrics.json").is_file()
            assert (built / f"reports/{style}/{month}/figures/funnel.png").read_bytes()[:4] == b"\x89PNG"
    may = json.loads((built / "reports/mirai/2025-05/metrics.json").read_text())
    assert may["queries"] == pq.read_table(built / "data/mirai/queries/2025-05.parquet").num_rows
    assert (built / metrics_path("dedup")).is_file()


def test_plots_show_draws_the_panels_offline(built: Path) -> None:
    _, as_json = dvc_outputs([["plots", "show", "-o", "plots_html"], ["plots", "show", "--json"]], built)
    page = (built / "plots_html/index.html").read_text()
    assert "http" not in page.lower()  # no Vega from a CDN: the page works without network
    images = re.findall(r'<img src="(static/[^"]+)"', page)
    assert len(images) == 3 * len(STYLES)
    assert all((built / "plots_html" / image).read_bytes()[:4] == b"\x89PNG" for image in images)
    assert "static/workspace_reports_openforecast_all_panels_1_overview.png" in images
    plots = json.loads(as_json)["data"]
    assert {item["type"] for items in plots.values() for item in items} == {"image"}


def test_publish_folder_card_parses_and_data_loads(built: Path, capfd: pytest.CaptureFixture[str]) -> None:
    import datasets
    from huggingface_hub import DatasetCard

    out = built / "release"
    _here(["almanac", "publish", "openforesight", "all", "--out", str(out)], built, capfd)
    card = DatasetCard.load(out / "README.md")
    assert card.data.annotations_creators == ["machine-generated"]
    loaded = datasets.load_dataset(str(out), "default", cache_dir=str(built / "hf-cache"))
    released = {
        split: sum(
            pq.read_table(path).num_rows
            for path in (built / "data/foresight/splits" / split).glob("*.parquet")
        )
        for split in ("train", "validation", "test")
    }
    assert {split: loaded[split].num_rows for split in loaded} == released
    assert _here(["almanac", "verify", str(out)], built, capfd).strip().endswith("ok")
    lock = yaml.safe_load((out / "provenance/dvc.lock").read_text())
    assert "foresight_split" in lock["stages"] and "gdelt_clean" not in lock["stages"]
    status = _here(["almanac", "status"], built, capfd)
    # ccnews_ingest, dedup, gdelt_month (download + ingest), gdelt_clean, gdelt_articles, relation_split,
    # check and mirai_stats_report (gdelt_stats + mirai_report)
    assert "| mirai | 2025-05 | 8/8 |" in status


# `almanac diff` after one param change (queries_per_month: 5) is asserted in
# tests/test_readme_commands.py, on the rebuild README's journey 2 runs anyway (one rebuild, not two).


# One cheap stage of the corpus and of each style's chain: forcing them reruns each style's code on the same
# inputs in place (~10-30 s a stage on 2 busy cores, most of it DVC's bookkeeping and process start-up).
# Every stage's outputs, these and all others, are compared with the committed build's (another run on
# another machine) in test_the_sample_build_reproduces_the_committed_dvc_lock, for free.
FORCED = (
    "ccnews_ingest@2025-05",  # a month in the middle: its neighbours must not run (--single-item)
    "foresight_month@2025-06",  # OpenForesight (its six steps, qgen .. dates)
    "event_split",  # OpenForecast
    "relation_split@2025-06",  # MIRAI
    "futuresim_index",  # FutureSim
    "futurex_tiers",  # FutureX
)


def lock_entries(lock: Path) -> dict[str, dict[str, object]]:
    """Each stage of a dvc.lock as (inputs, outputs): its command, deps and params, and its outs' hashes."""

    def hashes(entry: dict[str, list[dict[str, object]]], key: str) -> dict[object, object]:
        return {item["path"]: item.get("md5", item.get("hash")) for item in entry.get(key, [])}

    stages = yaml.safe_load(lock.read_text())["stages"]
    return {
        name: {
            "inputs": (entry["cmd"], hashes(entry, "deps"), entry.get("params")),
            "outputs": hashes(entry, "outs"),
        }
        for name, entry in stages.items()
    }


def test_the_sample_build_reproduces_the_committed_dvc_lock(built: Path) -> None:
    """Byte-identical outputs across builds: the run's own `dvc repro` of the sample (another machine,
    another time, another process order) gives every stage whose inputs (command, deps' hashes, params) equal
    the committed dvc.lock's the same output hashes, Parquet, figures and reports alike. A stage whose inputs
    differ (code changed since dvc.lock was last committed) proves nothing either way and is left out."""
    committed = lock_entries(ROOT / "dvc.lock")
    fresh_build = lock_entries(built / "dvc.lock")
    comparable = [
        name
        for name, entry in fresh_build.items()
        if name in committed and committed[name]["inputs"] == entry["inputs"]
    ]
    if not comparable:
        pytest.skip("the committed dvc.lock predates every stage's code: `dvc repro` and commit it")
    differing = [name for name in comparable if committed[name]["outputs"] != fresh_build[name]["outputs"]]
    assert differing == [], differing


def project_digests(project: Path) -> dict[str, str]:
    """sha256 of every file of the project but git's and DVC's stores and the untracked run records."""
    skipped = {".git", ".dvc", "metrics/timings"}
    digests = {}
    for path in sorted(project.rglob("*")):
        relative = path.relative_to(project).as_posix()
        if path.is_file() and not any(relative == s or relative.startswith(s + "/") for s in skipped):
            digests[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


# rebuilds(N): its own repro's rough seconds on 2 busy cores, which orders the tests on the build (conftest.py)
@pytest.mark.rebuilds(25)
def test_forced_rerun_is_byte_identical_and_leaves_git_clean(fresh: Path) -> None:
    """A rebuild with no input change is no change to commit: no wall-clock time or run-state count in a
    tracked file (whether an LLM answer came from the cache or a GDELT file was copied goes to the run's
    untracked record in metrics/timings/, next to its seconds).

    FORCED reruns one stage of each style on the built project, alone (`--single-item`: not what follows
    it, not the other months' items); every output of the project is compared byte for byte."""
    before = project_digests(fresh)
    expected = {f"data/ingest/{m}/rejects.parquet" for m in MONTHS}
    assert expected | {"data/dedup/rejects.parquet", "data/futurex/tiers/level1.parquet"} <= set(before)
    assert all(any(name.startswith(f"data/articles/{m}/") for name in before) for m in MONTHS)
    run(["git", "add", "-A"], fresh)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "built"], fresh)
    tracked = run(["git", "ls-files"], fresh).stdout.split()
    assert "dvc.lock" in tracked and "reports/check/mirai.json" in tracked
    stages = set(yaml.safe_load((fresh / "dvc.lock").read_text())["stages"])
    assert len(stages) > 40 and set(FORCED) <= stages
    ran, result = repro(["--force", "--single-item", *FORCED], fresh)  # as `make repro` runs DVC
    assert project_digests(fresh) == before
    assert run(["git", "status", "--porcelain"], fresh).stdout == ""
    # Each stage run ended with its one summary line on stderr and left its record in metrics/timings/.
    assert sorted(ran) == sorted(FORCED)  # ccnews_ingest@2025-04 and @2025-06 did not run
    # A stage that runs steps (foresight_month@M: qgen .. dates) ends each step with the step's own line.
    for stage_name in ran:
        base, at, item = stage_name.partition("@")
        steps = [step.name for step in STEPS if step.runs_in == base] or [base]
        assert len(steps) == (6 if base == "foresight_month" else 1), (stage_name, steps)
        for name in (f"{step}{at}{item}" for step in steps):
            summaries = [line for line in result.stderr.splitlines() if line.startswith(f"{name}: ")]
            assert len(summaries) == 1 and re.search(r" \d+\.\ds$", summaries[0]), (name, summaries)
            assert (fresh / "metrics/timings" / f"{name}.json").is_file(), name


# Adding a month (which stages its rebuild runs, and its incremental dedup) is
# tests/test_dedup_incremental.py's: one copy of the build and one rebuild for both.


def test_dvc_yaml_paths_match_layout() -> None:
    """The stage code (almanac.core.layout) and dvc.yaml must name the same outputs."""
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]
    ingest_outs = [str(out) for out in stages["ccnews_ingest"]["do"]["outs"]]
    assert ingest_outs == [
        f"{ingest_dir('${item}')}/articles",
        f"{ingest_dir('${item}')}/rejects.parquet",
        str(metrics_path("ccnews_ingest", "${item}")),  # a DVC-cached out: keeps the stage's run-cache
    ]
    # the corpus and the band index persist between runs (incremental dedup), so DVC does not delete them
    assert stages["dedup"]["outs"] == [
        {str(articles_dir()): {"persist": True}},
        str(dedup_rejects()),
        {str(dedup_index_dir()): {"persist": True}},
        str(metrics_path("dedup")),
    ]


def test_foresight_splits_are_non_empty_leak_free_and_dated(built: Path) -> None:
    from almanac.foresight.answer_types import AnswerTypeConfig, declared_answer_class
    from almanac.foresight.leakage_scan import LeakageScanConfig, find_leak
    from almanac.foresight.schema import RELEASED_COLUMNS

    test_files = sorted((built / "data/foresight/splits/test").glob("*.parquet"))
    rows = [row for path in test_files for row in pq.read_table(path).to_pylist()]
    assert rows, "the sample must yield a non-empty test split"
    everything = [
        row
        for path in sorted((built / "data/foresight/splits").rglob("*.parquet"))
        for row in pq.read_table(path).to_pylist()
    ]
    assert set(pq.read_table(test_files[0]).column_names) == set(RELEASED_COLUMNS)
    scan = LeakageScanConfig()
    for row in everything:
        texts = {name: row[name] for name in scan.fields}
        assert (
            find_leak(row["answer"], texts, declared_answer_class(row["answer"], row["answer_type"]), scan)
            is None
        ), row
        assert row["question_start_date"] < row["resolution_date"] <= row["article_publish_date"].date()
        assert row["answer_class"] in AnswerTypeConfig().allowed_classes
    for row in rows:
        assert row["split"] == "test" and row["resolution_date"].isoformat()[:7] == "2025-06"


def test_foresight_funnel_counts_add_up(built: Path) -> None:
    funnel = json.loads((built / "reports/foresight_funnel.json").read_text())
    stages = ["foresight_qgen", "foresight_validate", "foresight_select", "foresight_leakage",
              "foresight_answer_type", "foresight_dates"]  # fmt: skip
    previous_out = None
    for stage in stages:
        totals = {"items_in": 0, "items_out": 0, "rejected": 0, "candidates": 0}
        for month in MONTHS:
            metrics = json.loads((built / metrics_path(stage, month)).read_text())
            for key in totals:
                totals[key] += metrics.get(key, 0)
        assert totals["items_in"] == totals["items_out"] + totals["rejected"]
        if previous_out is not None:
            assert totals["items_in"] == previous_out, stage
        previous_out = totals["candidates"] if stage == "foresight_qgen" else totals["items_out"]
    split_metrics = json.loads((built / metrics_path("foresight_split")).read_text())
    final = sum(pq.read_table(p).num_rows for p in (built / "data/foresight/splits").rglob("*.parquet"))
    assert split_metrics["items_out"] == final
    assert "Question generation" in (built / "reports/foresight_funnel.md").read_text()
    assert funnel  # the JSON metrics exist and parse


def test_openforecast_tasks_exist_for_train_and_test(built: Path) -> None:
    """Issue 5's bar: all six task files for at least the train and test splits, from the offline backend."""
    tasks = ("stf", "ltf", "aqa", "mcnc", "mcac", "vqa")
    splits = built / "data/events/splits"
    for split in ("train", "test"):
        for task in tasks:
            table = pq.read_table(splits / split / f"{task}.parquet")
            assert table.num_rows > 0, f"{split}/{task} is empty"
            assert set(table.column("split").to_pylist()) == {split}
    test_start = yaml.safe_load((built / "params.yaml").read_text())["event_tasks"]["split"]["test_start"]
    for row in pq.read_table(splits / "train" / "ltf.parquet").to_pylist():
        assert all(event["day"] is None or event["day"].isoformat() < test_start for event in row["targets"])
    for name in ("wiki_filter", "complex_events", "event_timeline", "event_tasks", "event_split"):
        metrics = json.loads((built / metrics_path(name)).read_text())
        assert metrics["items_in"] == metrics["items_out"] + metrics["rejected"], name
    assert "Table 4" in (built / "reports/openforecast_stats.md").read_text()


def test_mirai_queries_per_month_with_answers(built: Path) -> None:
    """Issue 6's bar: a seeded query split per month, each query with its answer set."""
    for month in MONTHS:
        queries = pq.read_table(built / "data/mirai/queries" / f"{month}.parquet").to_pylist()
        assert queries, month
        for query in queries:
            assert query["date"].isoformat()[:7] == month
            assert query["answers"] and query["answers"] == sorted(query["answers"])
            assert {root for root in query["answer_roots"]} == {code[:2] for code in query["answers"]}
            assert query["subject"] != query["object"]
        metrics = json.loads((built / metrics_path("relation_split", month)).read_text())
        assert metrics["items_in"] == metrics["items_out"] + metrics["rejected"]
    clean = json.loads((built / metrics_path("gdelt_clean")).read_text())
    assert clean["items_in"] == clean["items_out"] + clean["rejected"] > 0
    assert "not_reported_today" in clean["rejected_by_reason"]
