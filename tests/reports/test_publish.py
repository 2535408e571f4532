"""Release folders: card front matter, data loading with ``datasets``, manifest, URLs-only, provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from huggingface_hub import DatasetCard

from almanac import cli
from almanac.foresight.release import RetrievedArticle, released_questions
from almanac.reports.card import size_category
from almanac.reports.publish import PublishConfig, _lock_excerpt, publish, verify_manifest
from almanac.reports.scope import ReportScope, report_scope
from almanac.reports.visibility import field_role, prompt_fields, roles_of
from tests.reports.publish_project import MONTHS, _params, _questions, project

__all__ = ["project"]  # pytest fixtures used by name


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
    assert sorted(lock["stages"]) == ["foresight_month@2025-04", "foresight_month@2025-05", "foresight_split"]
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
    assert sorted(lock["stages"]) == ["foresight_month@2025-05", "foresight_split"]


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
        yaml.safe_dump({"stages": {"foresight_month": {"foreach": "${months}", "do": {}}}})
    )
    assert cli.main(["status"]) == 0
    out = capsys.readouterr().out
    # the recipes' DVC stages: OpenForesight 2 corpus + foresight_month, question_dedup, split + check,
    # stats_report = 7 (the six steps of a month run in one stage, funnel + report in another); MIRAI 2 corpus +
    # 4 per month (gdelt_month = download + ingest) + check, stats_report = 8
    assert "| openforesight | 2025-04 | 2/7 |" in out and "| mirai | 2025-05 | 1/8 |" in out
    # released rows by split and by the month each belongs to: 3 train rows in April, 2 test in May
    assert "| Style | Split | 2025-04 | 2025-05 | All |" in out
    assert "| openforesight | train | 3 | - | 3 |" in out and "| openforesight | test | - | 2 | 2 |" in out
    assert "| mirai | nothing built | - | - | 0 |" in out


def test_report_scope_rejects_months_outside_params() -> None:
    with pytest.raises(ValueError, match=r"not in params\.yaml months"):
        report_scope("2025-09", {"months": MONTHS})
    assert report_scope("all", {"months": MONTHS}).months == tuple(MONTHS)


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


def test_styles_are_called_by_their_names_only() -> None:
    # No alias table: the packages (foresight, events, gdelt) are not style names.
    for package in ("foresight", "events", "gdelt"):
        with pytest.raises(ValueError, match="unknown dataset style"):
            prompt_fields(package)
