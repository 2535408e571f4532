"""Release folders: card front matter, data loading with ``datasets``, manifest, URLs-only, provenance."""

from __future__ import annotations

import hashlib
import json
import os
from datetime import UTC, date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from huggingface_hub import DatasetCard

from almanac import cli
from almanac.core.ids import content_id
from almanac.foresight.release import RetrievedArticle, released_questions
from almanac.reports import publish as publish_module
from almanac.reports.card import size_category
from almanac.reports.model import Report, Series, Table
from almanac.reports.publish import PublishConfig, _lock_excerpt, publish, verify_manifest
from almanac.reports.scope import ReportScope, check_report_scopes, report_scope
from almanac.reports.visibility import field_role, prompt_fields, roles_of

MONTHS = ["2025-04", "2025-05"]


def _questions(split: str, month: str, ids: list[str], hashed: bool = False) -> pa.Table:
    """Released split rows; ``hashed`` makes each id the project's content hash (for the round trip)."""
    day = date(int(month[:4]), int(month[5:]), 10)
    titles = [f"Who will win contest {i} by the end of {month}?" for i in ids]
    answers = [f"Person {i}" for i in ids]
    article_ids = [f"art-{i}" for i in ids]
    if hashed:
        ids = [content_id(a, t, x) for a, t, x in zip(article_ids, titles, answers, strict=True)]
    return pa.table(
        {
            "question_id": ids,
            "question_title": titles,
            "background": [f"Question start date: {month}-01. Contest {i} is under way." for i in ids],
            "resolution_criteria": ["Source of truth: the organisers.\nResolution date: as in the title."]
            * len(ids),
            "answer": answers,
            "answer_type": ["string (name)"] * len(ids),
            "answer_class": ["name"] * len(ids),
            "question_start_date": pa.array([day.replace(day=1)] * len(ids), pa.date32()),
            "resolution_date": pa.array([day] * len(ids), pa.date32()),
            "url": [f"https://news.example/{i}" for i in ids],
            "article_title": [f"Winner of contest {i} named" for i in ids],
            "article_publish_date": pa.array(
                [datetime(day.year, day.month, day.day, 15, 30, tzinfo=UTC)] * len(ids),
                pa.timestamp("s", "UTC"),
            ),
            "news_source": ["news.example"] * len(ids),
            "article_id": article_ids,
            "split": [split] * len(ids),
            "cross_question_leak": [False] * len(ids),
            "generator_model": ["m-gen"] * len(ids),
            "validator_model": ["m-val"] * len(ids),
        }
    )


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    splits = tmp_path / "data/foresight/splits"
    (splits / "train").mkdir(parents=True)
    (splits / "test").mkdir(parents=True)
    pq.write_table(_questions("train", "2025-04", ["a1", "a2", "a3"]), splits / "train/2025-04.parquet")
    pq.write_table(_questions("test", "2025-05", ["b1", "b2"]), splits / "test/2025-05.parquet")
    articles = tmp_path / "data/articles"
    articles.mkdir(parents=True)
    for month, ids in (("2025-04", ["a1", "a2", "a3", "zz"]), ("2025-05", ["b1", "b2"])):
        pq.write_table(
            pa.table(
                {
                    "id": [f"art-{i}" for i in ids],
                    "url": [f"https://news.example/{i}" for i in ids],
                    "source_domain": ["news.example"] * len(ids),
                    "title": [f"Story {i}" for i in ids],
                    "publish_date": pa.array(
                        [datetime(2025, 4, 1, tzinfo=UTC)] * len(ids), pa.timestamp("ms", "UTC")
                    ),
                    "word_count": pa.array([120] * len(ids), pa.int32()),
                    "text": [f"Full text of story {i}." for i in ids],
                }
            ),
            articles / f"{month}.parquet",
        )
    (tmp_path / "params.yaml").write_text(
        yaml.safe_dump(
            {
                "months": MONTHS,
                "dedup": {"ngram": 5, "threshold": 0.6},
                "llm": {
                    "prompts_dir": "prompts",
                    "roles": {"generator": {"backend": "offline", "model": "m-gen"}},
                },
                "foresight": {"question_dedup": {"threshold": 0.5}, "split": {"train_months": ["2025-04"]}},
                "publish": {"licenses": {"openforesight": "other"}, "maintainers": "test lab"},
            }
        )
    )
    (tmp_path / "dvc.lock").write_text(
        yaml.safe_dump(
            {
                "schema": "2.0",
                "stages": {
                    "foresight_qgen@2025-04": {"cmd": "q4"},
                    "foresight_qgen@2025-05": {"cmd": "q5"},
                    "foresight_split": {"cmd": "s"},
                    "gdelt_clean": {"cmd": "g"},
                },
            }
        )
    )
    monkeypatch.setattr(publish_module, "build_style_report", _fake_report)
    return tmp_path


def _fake_report(style: object, scope: ReportScope) -> Report:
    # The style builders have their own tests; here only how a report lands in the folder matters.
    series = Series(
        "answer_types",
        "Answer types",
        "answer_class",
        "questions",
        ({"answer_class": "person", "questions": 5},),
    )
    table = Table("Questions per split", ("Split", "Questions"), (("train", 3), ("test", 2)))
    return Report("openforesight", scope.months, {"questions": 5}, (series,), (table,), ("a note",))


def _params(project: Path) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((project / "params.yaml").read_text())
    return loaded


def test_size_category_bounds() -> None:
    assert size_category(0) == "n<1K"
    assert size_category(999) == "n<1K"
    assert size_category(1000) == "1K<n<10K"
    assert size_category(250_000) == "100K<n<1M"


def test_publish_all_writes_card_data_manifest_and_provenance(project: Path) -> None:
    folder = publish(
        "openforesight", "all", _params(project), PublishConfig(maintainers="test lab"), project / "out"
    )
    card = DatasetCard.load(folder / "README.md")
    meta = card.data.to_dict()
    assert meta["license"] == "other"
    assert meta["annotations_creators"] == ["machine-generated"]
    assert meta["size_categories"] == ["n<1K"]  # 5 questions; the 5 cited articles are not counted
    configs = {entry["config_name"]: entry["data_files"] for entry in meta["configs"]}
    assert configs["default"] == [
        {"split": "train", "path": "data/default/train.parquet"},
        {"split": "test", "path": "data/default/test.parquet"},
    ]
    assert configs["articles"] == [{"split": "cited", "path": "data/articles/cited.parquet"}]
    for section in (
        "Motivation",
        "Composition",
        "Collection process",
        "Preprocessing",
        "Uses",
        "Distribution",
        "Maintenance",
    ):
        assert f"\n## {section}\n" in card.content
    assert "| `dedup.threshold` | `0.6` |" in card.content
    assert "| generator | offline | m-gen |" in card.content
    assert "![Answer types](report/figures/answer_types.png)" in card.content
    assert (folder / "report/figures/answer_types.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Articles: only the five cited ones (not "zz"), with text.
    articles = pq.read_table(folder / "data/articles/cited.parquet")
    assert articles.column("url").to_pylist() == [
        f"https://news.example/{i}" for i in ("a1", "a2", "a3", "b1", "b2")
    ]
    assert "maintext" in articles.column_names and "text" not in articles.column_names
    manifest = json.loads((folder / "manifest.json").read_text())
    listed = {entry["path"]: entry for entry in manifest["files"]}
    assert listed["data/default/train.parquet"]["rows"] == 3
    assert {"README.md", "provenance/params.yaml", "provenance/dvc.lock", "report/metrics.json"} <= set(
        listed
    )
    assert verify_manifest(folder) == []
    lock = yaml.safe_load((folder / "provenance/dvc.lock").read_text())
    assert sorted(lock["stages"]) == ["foresight_qgen@2025-04", "foresight_qgen@2025-05", "foresight_split"]
    assert "publish" not in yaml.safe_load((folder / "provenance/params.yaml").read_text())


def test_published_folder_loads_with_datasets(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    cache = str(project / "hf-cache")
    by_card = datasets.load_dataset(str(folder), "default", cache_dir=cache)
    assert sorted(by_card) == ["test", "train"]
    assert sorted(by_card["train"]["question_id"]) == ["a1", "a2", "a3"]
    direct = datasets.load_dataset(
        "parquet", data_files={"test": str(folder / "data/default/test.parquet")}, cache_dir=cache
    )
    assert direct["test"].num_rows == 2


def test_urls_only_drops_article_text_and_one_month_keeps_its_rows(project: Path) -> None:
    folder = publish(
        "openforesight", "2025-05", _params(project), PublishConfig(), project / "out", urls_only=True
    )
    articles = pq.read_table(folder / "data/articles/cited.parquet")
    assert "maintext" not in articles.column_names and "text" not in articles.column_names
    assert articles.column("url").to_pylist() == ["https://news.example/b1", "https://news.example/b2"]
    assert not (folder / "data/default/train.parquet").exists()  # April's train rows are not in May
    assert "URLs, titles and dates only" in (folder / "README.md").read_text()
    lock = yaml.safe_load((folder / "provenance/dvc.lock").read_text())
    assert sorted(lock["stages"]) == ["foresight_qgen@2025-05", "foresight_split"]


def test_publish_is_byte_identical_and_verify_catches_tampering(project: Path) -> None:
    first = publish("openforesight", "all", _params(project), PublishConfig(), project / "one")
    second = publish("openforesight", "all", _params(project), PublishConfig(), project / "two")
    assert (first / "manifest.json").read_bytes() == (second / "manifest.json").read_bytes()
    with open(first / "data/default/test.parquet", "ab") as handle:
        handle.write(b"x")
    (first / "extra.txt").write_text("not listed")
    assert verify_manifest(first) == [
        "data/default/test.parquet: size differs from the manifest",
        "extra.txt: not in manifest.json",
    ]


def test_lock_excerpt_keeps_style_stages_of_scope_months(tmp_path: Path) -> None:
    lock = tmp_path / "dvc.lock"
    lock.write_text(
        yaml.safe_dump({"schema": "2.0", "stages": {"a@2025-04": {}, "a@2025-05": {}, "b": {}, "c": {}}})
    )
    scope = ReportScope(("2025-05",), False, {})
    assert sorted(_lock_excerpt(lock, ("a", "b"), scope)["stages"]) == ["a@2025-05", "b"]


def test_cli_publish_rejects_unknown_month_and_empty_style(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["publish", "openforesight", "2024-01"]) == 1
    assert "not in params.yaml months" in capsys.readouterr().err
    assert cli.main(["publish", "mirai", "all"]) == 1
    err = capsys.readouterr().err  # `almanac check` runs first and may be the one to say so
    assert "mirai" in err.lower() and "run `dvc repro` first" in err
    assert cli.main(["publish", "nosuch", "all"]) == 1
    assert "unknown dataset style" in capsys.readouterr().err


def test_cli_status_counts_rows_per_month(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "dvc.yaml").write_text(
        yaml.safe_dump({"stages": {"foresight_qgen": {"foreach": "${months}", "do": {}}}})
    )
    assert cli.main(["status"]) == 0
    out = capsys.readouterr().out
    assert "| openforesight | 2025-04 |" in out and "| train 3 |" in out
    assert "| openforesight | 2025-05 |" in out and "| test 2 |" in out
    assert "| mirai | 2025-05 |" in out and "nothing built" in out


def test_report_scope_rejects_months_outside_params() -> None:
    with pytest.raises(ValueError, match=r"not in params\.yaml months"):
        report_scope("2025-09", {"months": MONTHS})
    assert report_scope("all", {"months": MONTHS}).months == tuple(MONTHS)


def test_report_scopes_must_be_the_months_then_all() -> None:
    check_report_scopes({"months": MONTHS, "report_scopes": [*MONTHS, "all"]})
    for wrong in (
        [*MONTHS],
        ["all", *MONTHS],
        [*MONTHS[:1], "all"],
        None,
    ):  # all missing, first, a month lost
        with pytest.raises(ValueError, match=r"report_scopes is .*, must be \["):
            check_report_scopes({"months": MONTHS, "report_scopes": wrong})


def test_published_questions_have_string_dates_prompts_and_field_roles(project: Path) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    table = pq.read_table(folder / "data/default/train.parquet")
    row = table.slice(0, 1).to_pylist()[0]
    # Dates as released by OpenForesight: plain strings, not date32 or epoch milliseconds.
    assert table.schema.field("resolution_date").type == pa.string()
    assert (row["question_start_date"], row["resolution_date"]) == ("2025-04-01", "2025-04-10")
    assert row["article_publish_date"] == "2025-04-10"  # the UTC day of 15:30 on April 10
    # No retrieval context is released: prompt is the same text as prompt_without_retrieval.
    assert row["prompt"] == row["prompt_without_retrieval"]
    for visible in (
        row["question_title"],
        row["background"],
        "Source of truth: the organisers.",
        "2025-04-01",
    ):
        assert visible in row["prompt"]
    for hidden in ("Person a1", "Winner of contest a1 named", "https://news.example/a1", "2025-04-10"):
        assert hidden not in row["prompt"]
    roles = roles_of(table.schema)
    assert [name for name, role in roles.items() if role == "prompt"] == [
        "question_title",
        "background",
        "resolution_criteria",
        "question_start_date",
        "prompt",
        "prompt_without_retrieval",
    ]
    assert roles["answer"] == roles["resolution_date"] == "answer"
    assert roles["article_title"] == roles["url"] == roles["article_id"] == "provenance"
    card = (folder / "README.md").read_text()
    assert "### Fields a forecaster sees" in card
    rules = card.split("### Split rules and dates", 1)[1]
    assert "passed" in rules and "start date <= article publish date <= resolution date" in rules
    assert (
        "| prompt | shown to the forecaster | `question_title`, `background`, `resolution_criteria`, "
        "`question_start_date` |" in card
    )
    articles = pq.read_table(folder / "data/articles/cited.parquet")
    assert articles.column_names[:4] == ["article_id", "url", "source_domain", "title"]
    assert {"date_publish", "maintext"} <= set(articles.column_names)
    assert articles.column("date_publish").to_pylist()[0] == "2025-04-01 00:00:00"  # news-please's format


def test_publish_then_import_gives_the_same_questions(project: Path) -> None:
    from almanac.foresight.release_import import import_openforesight

    splits = project / "data/foresight/splits"
    pq.write_table(
        _questions("train", "2025-04", ["a1", "a2"], hashed=True), splits / "train/2025-04.parquet"
    )
    pq.write_table(_questions("test", "2025-05", ["b1"], hashed=True), splits / "test/2025-05.parquet")
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    compared = ("question_id", "question_title", "answer", "answer_type", "background", "resolution_criteria")
    for split in ("train", "test"):
        published = pq.read_table(folder / f"data/default/{split}.parquet")
        # What a tool written for the OpenForesight release would hand over: one JSON object a line.
        jsonl = project / f"{split}.jsonl"
        jsonl.write_text("".join(json.dumps(row) + "\n" for row in published.to_pylist()), encoding="utf-8")
        result = import_openforesight(jsonl, project / "imported", split)
        assert result.ledger.rejected == 0
        original = pq.read_table(next((splits / split).glob("*.parquet"))).sort_by("question_id")
        month = "2025-04" if split == "train" else "2025-05"
        again = pq.read_table(project / f"imported/splits/{split}/{month}.parquet").sort_by("question_id")
        for name in (*compared, "question_start_date", "resolution_date", "article_id", "url", "split"):
            assert again.column(name).to_pylist() == original.column(name).to_pylist(), name
        assert [d.date() for d in again.column("article_publish_date").to_pylist()] == [
            d.date() for d in original.column("article_publish_date").to_pylist()
        ]


def test_prompt_holds_retrieved_articles_only_when_there_are_some() -> None:
    table = _questions("test", "2025-05", ["c1", "c2"])
    news = RetrievedArticle(
        "Contest c1 shortlist out", "2025-04-20", "news.example", "Three finalists remain."
    )
    released = released_questions(table, {"c1": [news]}).to_pylist()
    first, second = released
    assert first["prompt"] != first["prompt_without_retrieval"]
    assert (
        "[1] Contest c1 shortlist out (2025-04-20, news.example)\nThree finalists remain." in first["prompt"]
    )
    assert first["prompt"].startswith(first["prompt_without_retrieval"].rsplit("\n\n", 1)[0])
    assert second["prompt"] == second["prompt_without_retrieval"]
    with pytest.raises(ValueError, match="lack the prompt columns"):
        released_questions(table.drop_columns(["background"]))


def test_prompt_fields_are_declared_once_per_style() -> None:
    assert prompt_fields("openforesight") == (
        "question_title",
        "background",
        "resolution_criteria",
        "question_start_date",
    )
    assert "ce_title" not in prompt_fields("openforecast") and "background" in prompt_fields("openforecast")
    assert "answers" not in prompt_fields("mirai") and "query" in prompt_fields("mirai")
    assert field_role("openforesight", "some_new_column") == "provenance"  # unknown: never shown
    with pytest.raises(ValueError, match="unknown dataset style"):
        prompt_fields("nosuch")


# --- Where publish may write, what it replaces, file modes, and verify (issue 15) ---


def _snapshot(folder: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry below ``folder`` (links as links): kind, bytes or link text, mode."""
    entries: dict[str, tuple[str, bytes | str, int]] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        mode = path.lstat().st_mode & 0o7777
        if path.is_symlink():
            entries[relative] = ("link", str(path.readlink()), mode)
        elif path.is_dir():
            entries[relative] = ("dir", "", mode)
        else:
            entries[relative] = ("file", path.read_bytes(), mode)
    return entries


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".publish-" in p.name or ".old-" in p.name)


def _unrelated(folder: Path) -> Path:
    (folder / "notes").mkdir(parents=True)
    (folder / "thesis.tex").write_text("chapter one")
    (folder / "notes/todo.txt").write_text("do not lose me")
    return folder


def test_publish_replaces_its_own_earlier_release_and_removes_links_as_links(project: Path) -> None:
    outside = project / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep")
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    (folder / "link-to-file").symlink_to(outside / "precious.txt")
    (folder / "data/link-to-dir").symlink_to(outside, target_is_directory=True)
    (folder / "stale.txt").write_text("from the old release")
    again = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    assert again == folder
    assert not (folder / "link-to-file").exists() and not (folder / "data/link-to-dir").is_symlink()
    assert not (folder / "stale.txt").exists()
    assert (outside / "precious.txt").read_text() == "keep" and sorted(os.listdir(outside)) == [
        "precious.txt"
    ]
    assert verify_manifest(folder) == []
    assert json.loads((folder / ".almanac-publish.json").read_text()) == {
        "scope": "all",
        "style": "openforesight",
        "tool": "almanac publish",
    }
    assert _leftovers(project) == []


def test_publish_refuses_an_unrelated_folder_and_leaves_it_byte_identical(project: Path) -> None:
    target = _unrelated(project / "mine")
    before = _snapshot(target)
    with pytest.raises(
        ValueError, match=r"is a folder with files, not an earlier `almanac publish`.*--force"
    ):
        publish("openforesight", "all", _params(project), PublishConfig(), target)
    assert _snapshot(target) == before
    assert _leftovers(project) == []
    # An earlier publish of another scope is not "the same dataset" either.
    publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    release = _snapshot(project / "out")
    with pytest.raises(
        ValueError, match=r"holds the publish of openforesight all, not .* openforesight 2025-05"
    ):
        publish("openforesight", "2025-05", _params(project), PublishConfig(), project / "out")
    assert _snapshot(project / "out") == release


def test_publish_into_an_empty_folder_is_allowed(project: Path) -> None:
    (project / "empty").mkdir()
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "empty")
    assert verify_manifest(folder) == []


def test_cli_publish_force_moves_the_unrelated_folder_aside(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "_refuse_leaks", lambda *args: None)  # `almanac check` has its own tests
    target = _unrelated(project / "mine")
    before = _snapshot(target)
    assert cli.main(["publish", "openforesight", "all", "--out", "mine"]) == 1
    assert "refusing to replace it (pass --force" in capsys.readouterr().err
    assert _snapshot(target) == before
    assert cli.main(["publish", "openforesight", "all", "--out", "mine", "--force"]) == 0
    assert "moved the existing" in capsys.readouterr().err
    assert _snapshot(project / "mine.before-publish") == before  # moved, not deleted
    assert verify_manifest(target) == [] and (target / "README.md").is_file()
    assert _leftovers(project) == []


def test_publish_refuses_an_out_that_is_a_symlink_and_leaves_its_target_alone(project: Path) -> None:
    real = _unrelated(project / "real")
    before = _snapshot(real)
    (project / "link").symlink_to(real, target_is_directory=True)
    for force in (False, True):
        with pytest.raises(ValueError, match="is a symlink"):
            publish("openforesight", "all", _params(project), PublishConfig(), project / "link", force=force)
    assert (project / "link").is_symlink() and _snapshot(real) == before
    # Even a link to an earlier release of the same dataset: the link is not followed.
    old = publish("openforesight", "all", _params(project), PublishConfig(), project / "old")
    (project / "to-old").symlink_to(old, target_is_directory=True)
    released = _snapshot(old)
    with pytest.raises(ValueError, match="is a symlink"):
        publish("openforesight", "all", _params(project), PublishConfig(), project / "to-old")
    assert _snapshot(old) == released


@pytest.mark.parametrize(
    "out",
    ["data/release", "./data/../data/x", "data", ".dvc/x", ".git/x", "via-link/x", ".", ".."],
)
def test_publish_refuses_out_inside_project_data_dvc_git_or_over_the_project(project: Path, out: str) -> None:
    for name in (".dvc", ".git"):
        (project / name).mkdir()
    (project / "via-link").symlink_to(project / "data", target_is_directory=True)
    before = _snapshot(project / "data")
    with pytest.raises(
        ValueError, match=r"inside the project's (data|\.dvc|\.git)/|would replace the project"
    ):
        publish("openforesight", "all", _params(project), PublishConfig(), Path(out), repo=project)
    assert _snapshot(project / "data") == before
    assert not (project / ".dvc/x").exists() and not (project / ".git/x").exists()


def test_published_files_are_0644_and_folders_0755(project: Path) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    modes = {path: path.stat().st_mode & 0o7777 for path in [folder, *folder.rglob("*")]}
    assert modes[folder] == 0o755 and modes[folder / "data/default"] == 0o755
    assert modes[folder / "manifest.json"] == 0o644 and modes[folder / "data/default/train.parquet"] == 0o644
    assert {mode for path, mode in modes.items() if path.is_dir()} == {0o755}
    assert {mode for path, mode in modes.items() if path.is_file()} == {0o644}


def _add_entry(folder: Path, path: str, content: bytes) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    digest = hashlib.sha256(content).hexdigest()
    manifest["files"].append({"path": path, "bytes": len(content), "sha256": digest})
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_verify_refuses_dotdot_absolute_and_symlinked_paths(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    secret = b"outside the release"
    (project / "secret.txt").write_bytes(secret)
    (project / "elsewhere").mkdir()
    (project / "elsewhere/secret.txt").write_bytes(secret)
    (folder / "linked").symlink_to(project / "elsewhere", target_is_directory=True)
    # Each entry's size and checksum match the file a symlink-following reader would open.
    _add_entry(folder, "../secret.txt", secret)
    _add_entry(folder, str(project / "secret.txt"), secret)
    _add_entry(folder, "linked/secret.txt", secret)
    copy = project / "copy.parquet"
    copy.write_bytes((folder / "data/default/test.parquet").read_bytes())
    (folder / "data/default/test.parquet").unlink()
    (folder / "data/default/test.parquet").symlink_to(copy)
    assert verify_manifest(folder) == [
        "data/default/test.parquet: is a symlink (not followed)",
        "../secret.txt: '..' in a manifest path",
        f"{project / 'secret.txt'}: absolute path in the manifest",
        "linked/secret.txt: path goes through the symlink linked",
        "linked: symlink (not followed)",
    ]
    assert cli.main(["verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "mismatch: ../secret.txt: '..' in a manifest path" in out and "5 problem(s)" in out


def test_verify_refuses_a_symlinked_manifest(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    (project / "manifest.json").write_bytes((folder / "manifest.json").read_bytes())
    (folder / "manifest.json").unlink()
    (folder / "manifest.json").symlink_to(project / "manifest.json")
    assert cli.main(["verify", str(folder)]) == 1
    assert "manifest.json is missing, or is not a regular file" in capsys.readouterr().err


def test_styles_are_called_by_their_names_only() -> None:
    # No alias table: the packages (foresight, events, gdelt) are not style names.
    for package in ("foresight", "events", "gdelt"):
        with pytest.raises(ValueError, match="unknown dataset style"):
            prompt_fields(package)
