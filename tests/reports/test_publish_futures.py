"""FutureSim and FutureX releases end to end: publish -> verify -> load, in the layouts their tools read."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from almanac import cli
from almanac.futuresim.search import search_chunks
from almanac.reports.publish import PublishConfig, publish
from almanac.reports.status import month_status, released_rows, status_markdown
from almanac.reports.styles import STYLES
from almanac.reports.visibility import roles_of
from tests.reports.futures_project import futures_project, params_of

__all__ = ["futures_project"]  # pytest fixtures used by name


def _load(folder: Path, config: str, cache: Path) -> dict[str, int]:
    import datasets

    loaded = datasets.load_dataset(str(folder), config, cache_dir=str(cache))
    return {split: part.num_rows for split, part in loaded.items()}


def test_futuresim_release_has_day_folders_chunks_index_and_recapped_retrieval(
    futures_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    folder = publish("futuresim", "all", params_of(futures_project), PublishConfig(), futures_project / "sim")
    assert cli.main(["verify", str(folder)]) == 0
    # The corpus under articles/YYYY/MM/DD/, each article in the folder of its own available day: the
    # misfiled one (export folder 2025-04/30) lands in 2025/05/01.
    days = sorted(p.relative_to(folder).as_posix() for p in (folder / "articles").rglob("*.jsonl"))
    assert days == [
        "articles/2025/04/10/articles.jsonl",
        "articles/2025/04/20/articles.jsonl",
        "articles/2025/05/01/articles.jsonl",
        "articles/2025/05/03/articles.jsonl",
    ]
    for path in days:
        for line in (folder / path).read_text().splitlines():
            assert json.loads(line)["available_date"] == "-".join(path.split("/")[1:4])
    cache = futures_project / "hf-cache"
    assert _load(folder, "default", cache) == {"train": 2, "test": 1}  # evidence.parquet is no split
    assert _load(folder, "chunks", cache) == {"corpus": 3}
    import datasets

    corpus = datasets.load_dataset(
        "json", data_files={"articles": str(folder / "articles/*/*/*/*.jsonl")}, cache_dir=str(cache)
    )
    assert corpus["articles"].num_rows == 4
    # Retrieval: t1's resolution date moved from 25 May to 10 May, so its cut-off is 10 April: the chunk
    # of 20 April is dropped, the one of 10 April becomes rank 1; train questions had no context (rank 0).
    retrieval = {
        split: pq.read_table(folder / f"data/retrieval/{split}.parquet") for split in ("train", "test")
    }
    t1 = retrieval["test"].to_pylist()
    assert [(r["rank"], r["article_id"], r["cutoff_date"]) for r in t1] == [(1, "a1", date(2025, 4, 10))]
    assert t1[0]["resolution_date"] == date(2025, 5, 10)
    assert sorted(retrieval["train"].column("rank").to_pylist()) == [0, 0]
    assert roles_of(retrieval["test"].schema)["resolution_date"] == "answer"
    # The shipped index answers a capped search: nothing available after the day asked.
    hits = search_chunks(folder / "index", "Kessling harbour", None, date(2025, 4, 15), 5)
    assert [hit.article_id for hit in hits] == ["a1"]
    card = DatasetCard.load(folder / "README.md")
    configs = {entry["config_name"] for entry in card.data.to_dict()["configs"]}
    assert configs == {"default", "chunks", "retrieval"}  # the JSON-lines corpus loads with "json"
    assert "`articles/YYYY/MM/DD/articles.jsonl`: 4 articles" in card.content
    assert "`bm25:tantivy" in card.content
    assert 'load_dataset("json", data_files={"articles": "articles/*/*/*/*.jsonl"})' in card.content


def test_futuresim_urls_only_ships_no_text_and_no_index(futures_project: Path) -> None:
    folder = publish(
        "futuresim", "all", params_of(futures_project), PublishConfig(), futures_project / "u", urls_only=True
    )
    assert not (folder / "index").exists()
    lines = [
        json.loads(x) for p in (folder / "articles").rglob("*.jsonl") for x in p.read_text().splitlines()
    ]
    assert len(lines) == 4 and all("text" not in line and line["url"] for line in lines)
    assert "text" not in pq.read_schema(folder / "data/chunks/corpus.parquet").names
    assert "text" not in pq.read_schema(folder / "data/retrieval/test.parquet").names
    assert "does not ship it" in (folder / "README.md").read_text()


def test_futurex_release_has_four_tiers_and_their_scoring(
    futures_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    folder = publish("futurex", "all", params_of(futures_project), PublishConfig(), futures_project / "fx")
    assert cli.main(["verify", str(folder)]) == 0
    cache = futures_project / "hf-cache"
    for level in (1, 2, 3, 4):
        assert _load(folder, f"level{level}", cache) == {"test": 1}
    scoring = json.loads((folder / "scoring.json").read_text())
    assert scoring["weights"] == [0.1, 0.2, 0.3, 0.4]
    assert scoring["levels"]["3"]["partial_credit"] == 0.8  # equation 1
    assert "0.1" in scoring["levels"]["4"]["sigma_rule"]
    assert scoring["levels"]["4"]["sigma_sources"] == {"relative": 1}
    roles = roles_of(pq.read_schema(folder / "data/level4/test.parquet"))
    assert (roles["question"], roles["options"], roles["value"], roles["sigma"]) == (
        "prompt",
        "prompt",
        "answer",
        "answer",
    )
    card = DatasetCard.load(folder / "README.md")
    meta = card.data.to_dict()
    assert [entry["config_name"] for entry in meta["configs"]] == ["level1", "level2", "level3", "level4"]
    assert meta["configs"][0].get("default") is True
    assert "`scoring.json`" in card.content and "sources in this release: relative 1" in card.content


def test_status_lists_futuresim_and_futurex(futures_project: Path) -> None:
    assert released_rows(STYLES["futuresim"], futures_project) == {
        "train": {"2025-04": 2},
        "test": {"2025-05": 1},
    }
    assert released_rows(STYLES["futurex"], futures_project) == {
        f"level{level}": {"2025-05": 1} for level in (1, 2, 3, 4)
    }
    rows = month_status(["2025-05"], futures_project)
    assert {row.style for row in rows} == set(STYLES)
    futurex = next(row for row in rows if row.style == "futurex")
    assert futurex.locked == 1 and not futurex.report  # futurex_tiers only; no futurex_stats report yet
    released = {name: released_rows(style, futures_project) for name, style in STYLES.items()}
    text = status_markdown(rows, False, released, ["2025-05"])
    assert "| futurex | level4 |" in text and "| futuresim | train |" in text
