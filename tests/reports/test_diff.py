"""Version diffs of the released splits, read through DVC at two git revisions of a tiny repository.

The repository (conftest.py) has commit 1 with questions q-a, q-b (test) and q-c (train), and commit 2
where q-b is gone, q-d (test) and q-e (train) are new, q-a's title and answer changed and a column
"extra" was added. Every expected number below follows from those params.
"""

from __future__ import annotations

import json
import math
import tempfile
from contextlib import ExitStack
from pathlib import Path

import pyarrow as pa
import pytest
import yaml
from dvc.api import DVCFileSystem

from almanac.reports.diff import (
    RowExample,
    TableDiff,
    VersionDiff,
    compare_tables,
    diff_versions,
    render_markdown,
    same_value,
)
from almanac.reports.revisions import MissingDataError, RevisionReader, ValueChange, resolve_rev
from almanac.reports.styles import STYLES, TableKey, read_split_tables
from tests.reports.conftest import PARAMS_2, DiffRepo, git
from tests.support.project import run

FORESIGHT = STYLES["openforesight"]
TEST = TableKey("default", "test")


@pytest.fixture(scope="module")
def head_diff(diff_repo: DiffRepo) -> VersionDiff:
    return diff_versions(diff_repo.path, "HEAD~1", "HEAD")


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_question_level_diff_between_two_commits(head_diff: VersionDiff) -> None:
    tables = {(t.style, t.config, t.split): t for t in head_diff.tables}
    assert list(tables) == [
        ("openforesight", "default", "test"),
        ("openforesight", "default", "train"),
        ("mirai", "default", "test"),
    ]
    test = tables["openforesight", "default", "test"]
    assert (test.rows_a, test.rows_b, test.added, test.removed, test.changed, test.unchanged) == (
        2,
        2,
        1,
        1,
        1,
        0,
    )
    assert test.columns_added == ("extra",) and test.columns_removed == ()
    assert test.field_changes == (("answer", 1), ("question_title", 1))
    assert test.added_examples == (RowExample("q-d", "Will D happen?"),)
    assert test.removed_examples == (RowExample("q-b", "Will B happen?"),)
    assert test.changed_examples == (
        RowExample("q-a", "Will A happen by May?", ("answer", "question_title")),
    )
    train = tables["openforesight", "default", "train"]
    # q-c only gained the new column, which is not compared: unchanged.
    assert (train.rows_a, train.rows_b, train.added, train.removed, train.changed, train.unchanged) == (
        1,
        2,
        1,
        0,
        0,
        1,
    )
    assert [e.id for e in train.added_examples] == ["q-e"] and train.columns_added == ("extra",)
    mirai = tables["mirai", "default", "test"]
    assert (mirai.added, mirai.removed, mirai.changed, mirai.unchanged) == (0, 0, 0, 2) and not mirai.differs
    assert head_diff.notes == tuple(  # every style without data at either revision says so
        f"{style}: no released table at `HEAD~1` or `HEAD`."
        for style in ("openforecast", "series", "futuresim", "futurex")
    )


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_params_and_metrics_that_differ(head_diff: VersionDiff) -> None:
    q = "build.questions"
    assert head_diff.params == (
        ValueChange("params.yaml", "build.extra", False, True, None),
        ValueChange("params.yaml", f"{q}.q-a.title", "Will A happen?", "Will A happen by May?", None),
        ValueChange("params.yaml", f"{q}.q-b.split", "test", None, None),
        ValueChange("params.yaml", f"{q}.q-b.title", "Will B happen?", None, None),
        ValueChange("params.yaml", f"{q}.q-d.split", None, "test", None),
        ValueChange("params.yaml", f"{q}.q-d.title", None, "Will D happen?", None),
        ValueChange("params.yaml", f"{q}.q-e.split", None, "train", None),
        ValueChange("params.yaml", f"{q}.q-e.title", None, "Will E happen?", None),
    )
    # 3 -> 4 questions; LLM misses stay 3 (A, B, C, then A', D, E with C cached): not listed. The counts
    # file that dvc.yaml does not declare as metrics is compared too: train q-c, then q-c and q-e.
    assert head_diff.metrics == (
        ValueChange("reports/make.json", "questions", 3, 4, 1),
        ValueChange("reports/metrics/make.json", "train", 1, 2, 1),
    )


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_markdown_report(head_diff: VersionDiff) -> None:
    text = render_markdown(head_diff)
    assert text.startswith("# Dataset diff: `HEAD~1` → `HEAD`\n")
    assert "| openforesight | default | test | 2 | 2 | 1 | 1 | 1 | 0 |" in text
    assert "- mirai: default/test unchanged (2 rows)" in text  # an unchanged table takes no table row
    # the order a reader scans: the rows (with examples), then params, then metrics
    assert text.index("## openforesight · default/test") < text.index("## Params") < text.index("## Metrics")
    assert "## Params (8 differ)" in text
    assert "| params.yaml | build.questions.q-a.title | Will A happen? | Will A happen by May? |" in text
    assert "| params.yaml | build.questions.q-b.title | Will B happen? | (absent) |" in text
    assert "| reports/make.json | questions | 3 | 4 | 1 |" in text
    section = text.split("## openforesight · default/test")[1].split("## openforesight · default/train")[0]
    assert "- Columns added: `extra`" in section
    assert "- Fields that differ: `answer` (1), `question_title` (1)" in section
    assert "### Added (1)" in section and "| q-d | Will D happen? |" in section
    assert "### Removed (1)" in section and "| q-b | Will B happen? |" in section
    assert "| q-a | Will A happen by May? | answer, question_title |" in section
    assert "## mirai · default/test" not in text  # nothing differs there


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_split_and_style_filters(diff_repo: DiffRepo) -> None:
    diff = diff_versions(diff_repo.path, "HEAD~1", "HEAD", styles=["openforesight"], splits=["train", "dev"])
    assert [(t.style, t.split, t.added) for t in diff.tables] == [("openforesight", "train", 1)]
    assert diff.notes == ("No table has the split(s) dev.",)


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_unknown_revision(diff_repo: DiffRepo) -> None:
    with pytest.raises(ValueError, match="no-such-branch"):
        diff_versions(diff_repo.path, "no-such-branch", "HEAD")


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
@pytest.mark.parametrize("keep_listings", [False, True], ids=["objects-and-listings", "file-objects"])
def test_missing_cache_names_the_revision(diff_repo: DiffRepo, tmp_path: Path, keep_listings: bool) -> None:
    repo = diff_repo.copy(tmp_path / "repo")
    for relative in diff_repo.only_in_1:
        if not (keep_listings and relative.endswith(".dir")):
            (repo / relative).unlink()
    with pytest.raises(MissingDataError, match=r"'HEAD~1'.*dvc pull.*build_missing=True"):
        diff_versions(repo, "HEAD~1", "HEAD", styles=["openforesight"])


def _worktrees(repo: Path) -> int:
    return git(["worktree", "list", "--porcelain"], repo).count("worktree ")


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_build_missing_rebuilds_in_a_worktree_sharing_the_caches(
    diff_repo: DiffRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = diff_repo.copy(tmp_path / "repo")
    for relative in diff_repo.only_in_1:
        (repo / relative).unlink()
    # Re-answer C in the main LLM cache: a rebuild that reads this cache gives q-c the new answer.
    cache = repo / "data/cache/llm.jsonl"
    entries = [json.loads(line) for line in cache.read_text().splitlines()]
    assert len(entries) == 6  # A, B, C, then A', D, E
    for entry in entries:
        if entry["prompt"] == "Will C happen?":
            entry["answer"] = "CACHED C"
    cache.write_text("".join(json.dumps(entry) + "\n" for entry in entries))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))

    diff = diff_versions(repo, "HEAD~1", "HEAD", styles=["openforesight"], build_missing=True)

    tables = {t.split: t for t in diff.tables}
    test = tables["test"]
    assert (test.added, test.removed, test.changed, test.unchanged) == (1, 1, 1, 0)
    assert tables["train"].changed_examples == (RowExample("q-c", "Will C happen?", ("answer",)),)
    assert len(cache.read_text().splitlines()) == 6  # every prompt of commit 1 was a cache hit
    assert diff.notes[0] == "`HEAD~1` was rebuilt by `dvc repro` in a temporary worktree."
    assert "raw/source.txt" in diff.notes[1]  # the gitignored raw input, linked from the main repo
    assert _worktrees(repo) == 1 and list(scratch.iterdir()) == []


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_failed_rebuild_still_removes_the_worktree(
    diff_repo: DiffRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = diff_repo.copy(tmp_path / "repo")
    for relative in diff_repo.only_in_1:
        (repo / relative).unlink()
    (repo / "raw/source.txt").unlink()  # the stage's untracked input is gone: dvc repro fails
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    with pytest.raises(RuntimeError, match="dvc repro"):
        diff_versions(repo, "HEAD~1", "HEAD", styles=["openforesight"], build_missing=True)
    assert _worktrees(repo) == 1 and list(scratch.iterdir()) == []


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_workspace_against_head(diff_repo: DiffRepo, tmp_path: Path) -> None:
    repo = diff_repo.copy(tmp_path / "repo")
    params = json.loads(json.dumps(PARAMS_2))
    del params["build"]["questions"]["q-e"]
    (repo / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    run(["python", "make.py"], repo)  # not committed, not `dvc repro`: the working tree only
    (repo / "reports" / "metrics" / "new.json").write_text('{"items_out": 5}')  # a new stage's counts

    diff = diff_versions(repo, "HEAD", "workspace", styles=["openforesight"])

    assert diff.commit_b == "workspace"
    train = next(t for t in diff.tables if t.split == "train")
    assert (train.rows_a, train.rows_b, train.removed, train.unchanged) == (2, 1, 1, 1)
    assert train.removed_examples == (RowExample("q-e", "Will E happen?"),)
    assert [c.key for c in diff.params] == ["build.questions.q-e.split", "build.questions.q-e.title"]
    assert diff.metrics == (
        ValueChange("reports/make.json", "llm_calls", 3, 0, -3),  # every answer came from the cache
        ValueChange("reports/make.json", "questions", 4, 3, -1),
        ValueChange("reports/metrics/make.json", "train", 2, 1, -1),  # q-e gone
        ValueChange("reports/metrics/new.json", "items_out", None, 5, None),
    )
    assert not [note for note in diff.notes if "could not read" in note]  # absent at HEAD is no error


# ---- compare_tables and rendering, without git ----


def test_compare_tables_values_columns_and_duplicates() -> None:
    old = pa.table(
        {
            "question_id": ["a", "b", "c", "c"],
            "question_title": ["A?", "B?", "C?", "C again?"],
            "score": [math.nan, 1.0, 2.0, 2.0],
            "tags": [["x"], ["y"], [], []],
            "dropped": [1, 2, 3, 4],
        }
    )
    new = pa.table(
        {
            "question_id": ["a", "b", "c"],
            "question_title": ["A?", "B?", "C?"],
            "score": [math.nan, 1.0, 2.0],
            "tags": [["x"], ["y", "z"], []],
        }
    )
    diff = compare_tables(FORESIGHT, TEST, old, new)
    # NaN equals NaN; only b's tags differ; the second "c" row is a duplicate id and is not compared.
    assert (diff.added, diff.removed, diff.changed, diff.unchanged) == (0, 0, 1, 2)
    assert diff.changed_examples == (RowExample("b", "B?", ("tags",)),)
    assert diff.columns_removed == ("dropped",) and diff.columns_added == ()
    assert (diff.duplicates_a, diff.duplicates_b) == (1, 0)
    text = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (diff,), (), ()))
    assert "- 1 row(s) of the old version repeat an id; only the first was compared" in text
    assert "- Columns removed: `dropped`" in text and "| b | B? | tags |" in text


def test_markdown_params_and_metrics_sections() -> None:
    params = (ValueChange("params.yaml", "publish.repo", None, ""),)
    metrics = (
        ValueChange("reports/a.json", "rows", 10, 12, 2),
        ValueChange("reports/a.json", "source", "x", "y"),
        ValueChange("reports/new.json", "rows", None, 3),
        ValueChange("reports/new.json", "seconds", None, 0.5),
        ValueChange("reports/old.json", "rows", 4, None),
    )
    text = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (), params, metrics))
    assert '| params.yaml | publish.repo | (absent) | "" |' in text  # an empty string stays visible
    assert "## Metrics (4 differ)" in text  # the folded timing key is not counted
    table = "| reports/a.json | rows | 10 | 12 | 2 |\n| reports/a.json | source | x | y |  |"
    assert table in text
    assert "- `reports/new.json`: 1 key(s) only in the new version" in text  # its `seconds` is a timing
    assert "- `reports/old.json`: 1 key(s) only in the old version" in text
    assert (
        "- 1 timing key(s) (`seconds`, written by revisions from before timings left the metrics) also differ"
        in text
    )
    assert "| reports/new.json" not in text and "No released table at either revision." in text
    with_timings = render_markdown(
        VersionDiff("a", "b", "a" * 40, "b" * 40, (), params, metrics), timings=True
    )
    assert "- `reports/new.json`: 2 key(s) only in the new version" in with_timings
    assert "## Metrics (5 differ)" in with_timings and "timing key(s)" not in with_timings


def test_markdown_metrics_of_an_old_revision_whose_only_difference_is_its_seconds() -> None:
    """Against a revision from before timings left the metrics, its `seconds` keys are the only change."""
    metrics = (
        ValueChange("reports/metrics/dedup.json", "seconds", 1.476, None),
        ValueChange("reports/metrics/wiki_filter.json", "llm.classifier.seconds", 0.0, None),
    )
    text = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (), (), metrics))
    assert "## Metrics (0 differ)\n\nNo metric differs.\n- 2 timing key(s) (`seconds`" in text
    assert "dedup.json" not in text
    with_timings = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (), (), metrics), timings=True)
    assert "- `reports/metrics/dedup.json`: 1 key(s) only in the old version" in with_timings
    assert "- `reports/metrics/wiki_filter.json`: 1 key(s) only in the old version" in with_timings


def test_compare_tables_when_a_side_is_absent_and_examples_are_capped() -> None:
    table = pa.table({"question_id": [f"id-{i}" for i in range(5)], "question_title": ["T\nx"] * 5})
    added = compare_tables(FORESIGHT, TEST, None, table, max_examples=2)
    assert (added.rows_a, added.rows_b, added.added, added.removed, added.unchanged) == (0, 5, 5, 0, 0)
    assert added.added_examples == (RowExample("id-0", "T x"), RowExample("id-1", "T x"))
    assert added.columns_added == ()  # a new table is not a schema change
    removed = compare_tables(FORESIGHT, TEST, table, None)
    assert (removed.removed, removed.added) == (5, 0)
    diff = VersionDiff("a", "b", "0" * 40, "workspace", (added,), (), ())
    text = render_markdown(diff)
    assert "### Added (5)" in text and "… and 3 more." in text
    assert "No param differs." in text and "No metric differs." in text
    with pytest.raises(ValueError, match="question_id"):
        compare_tables(FORESIGHT, TEST, pa.table({"id": ["x"]}), None)


def test_same_value() -> None:
    assert same_value({"a": [math.nan, 1]}, {"a": [math.nan, 1]})
    assert not same_value([1, 2], [1, 2, 3]) and not same_value({"a": 1}, {"b": 1})
    assert not same_value(math.nan, 1.0)


def test_table_diff_differs_flag() -> None:
    base = TableDiff("s", "c", "t", "id", 1, 1, 0, 0, 0, 1)
    assert not base.differs
    assert TableDiff("s", "c", "t", "id", 1, 1, 0, 0, 0, 1, columns_removed=("x",)).differs


def _many_metric_changes() -> tuple[ValueChange, ...]:
    """A param change as the sample saw it: hundreds of MIRAI balance keys, a few funnel and row counts."""
    balance = [
        ValueChange("reports/mirai/all/metrics.json", f"balance.pair_{i:03d}.share", 0.5, 0.25, -0.25)
        for i in range(300)
    ]
    funnel = [
        ValueChange("reports/mirai/all/metrics.json", "funnel.relation_split.out", 28, 15, -13),
        ValueChange("reports/mirai/all/summary.json", "test", 28, 15, -13),
        ValueChange("reports/metrics/relation_split/2025-04.json", "items_out", 9, 5, -4),
        ValueChange("reports/metrics/relation_split/2025-04.json", "rejected", 52, 400, 348),
    ]
    new_month = [ValueChange("reports/mirai/2025-07/metrics.json", f"k{i}", None, 1) for i in range(5)]
    return tuple(balance + funnel + new_month)


def test_markdown_metrics_summary_when_hundreds_differ() -> None:
    metrics = _many_metric_changes()
    text = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (), (), metrics))
    section = text.split("## Metrics (309 differ)\n\n")[1]
    assert len(section.splitlines()) <= 30  # the budget, whatever the number of keys
    assert section.startswith(
        "309 metric(s) differ in 4 file(s); `almanac diff --metrics all` lists every one."
    )
    # files by the number of keys that differ: 301 in the MIRAI metrics (300 balance, 1 funnel)
    assert "| reports/mirai/all/metrics.json | 301 | `balance` 300, `funnel` 1 |" in section
    assert (
        "| reports/mirai/2025-07/metrics.json | 5 (only in the new version) | `k0` 1, `k1` 1, `k2` 1, 2 more |"
        in (section)
    )
    # the style summary's change first (what `dvc metrics show` prints), then the largest relative change:
    # rejected 52 -> 400 is (400 - 52) / 52 = 6.69 times its old value, 28 -> 15 is 13 / 28 = 0.46, then
    # 9 -> 5 (4 / 9 = 0.44) before the balance shares (0.25 / max(0.5, 1) = 0.25)
    largest = section.split("then relative to the old value):")[1]
    order = [line.split(" | ")[1] for line in largest.strip().splitlines()[2:7]]
    assert order == ["test", "rejected", "funnel.relation_split.out", "items_out", "balance.pair_000.share"]
    assert "balance.pair_299" not in section  # the long tail stays out of the summary

    full = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (), (), metrics), metrics_all=True)
    assert "| reports/mirai/all/metrics.json | balance.pair_299.share | 0.5 | 0.25 | -0.25 |" in full
    assert "- `reports/mirai/2025-07/metrics.json`: 5 key(s) only in the new version" in full


def test_unchanged_tables_fold_into_one_line_per_style() -> None:
    same = TableDiff("openforecast", "stf", "test", "sample_id", 4, 4, 0, 0, 0, 4)
    tables = tuple(
        same.__class__(**{**same.__dict__, "config": c}) for c in ("stf", "ltf", "aqa", "mcnc", "vqa")
    )
    moved = TableDiff("mirai", "default", "test", "query_id", 28, 15, 0, 13, 0, 15)
    text = render_markdown(VersionDiff("a", "b", "a" * 40, "b" * 40, (*tables, moved), (), ()))
    assert "| mirai | default | test | 28 | 15 | 0 | 13 | 0 | 15 |" in text
    assert "- openforecast: 5 tables unchanged (20 rows)" in text
    assert "| openforecast |" not in text


@pytest.mark.slow  # a git + DVC repo built with `dvc repro` (~20 s, once per module)
def test_tables_linked_from_the_cache_are_dvcfilesystems(diff_repo: DiffRepo) -> None:
    """A commit's splits, laid out from dvc.lock and the cache (revision_tree.py), read as DVC reads them."""
    for rev in ("HEAD~1", "HEAD"):
        dvc_fs = DVCFileSystem(str(diff_repo.path), rev=resolve_rev(diff_repo.path, rev))
        with ExitStack() as stack:
            reader = RevisionReader(diff_repo.path, rev, False, stack)
            for style in (FORESIGHT, STYLES["mirai"]):
                linked, read_by_dvc = reader.tables(style), read_split_tables(style, None, fs=dvc_fs)
                assert list(linked) == list(read_by_dvc) and linked  # the same tables, none empty
                assert all(linked[key].equals(read_by_dvc[key]) for key in linked)
