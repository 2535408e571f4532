"""Release folders: card front matter, data loading with ``datasets``, manifest, URLs-only, provenance."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from huggingface_hub import DatasetCard

from almanac import cli
from almanac.reports import publish as publish_module
from almanac.reports.card import size_category
from almanac.reports.model import Report, Series, Table
from almanac.reports.publish import PublishConfig, _lock_excerpt, publish, verify_manifest
from almanac.reports.scope import ReportScope, report_scope

MONTHS = ["2025-04", "2025-05"]


def _questions(split: str, month: str, ids: list[str]) -> pa.Table:
    day = date(int(month[:4]), int(month[5:]), 10)
    return pa.table(
        {
            "question_id": ids,
            "question_title": [f"Who will win contest {i}?" for i in ids],
            "answer": [f"Person {i}" for i in ids],
            "resolution_date": pa.array([day] * len(ids), pa.date32()),
            "url": [f"https://news.example/{i}" for i in ids],
            "split": [split] * len(ids),
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
    assert "text" in articles.column_names
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
    assert "text" not in articles.column_names
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
    assert verify_manifest(first) == ["data/default/test.parquet", "extra.txt"]


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
    assert "nothing is built for mirai all" in capsys.readouterr().err
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
