"""A small built project with a FutureSim question set, its corpus, index and retrieval, and FutureX tiers.

The corpus: four articles, one of them misfiled by the export (in the April folder, available on 1 May),
so the published tree must file it by its own day. One test question had its resolution date moved by the
repair from 25 May to 10 May: its retrieval context (retrieved with the cut-off 25 April) holds a chunk
available on 10 April (kept: the new cut-off is 10 April) and one of 20 April (must be dropped).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.rejects import StageLedger
from almanac.futuresim.corpus import CorpusConfig, export_articles, write_day_folders
from almanac.futuresim.index import BACKEND, IndexManifest, build_index
from almanac.futuresim.schema import RETRIEVAL_SCHEMA
from almanac.futurex.schema import TIER_NAMES, TIER_SCHEMA
from tests.futuresim.helpers import article
from tests.reports.publish_project import _questions

MONTHS = ["2025-04", "2025-05"]
ARTICLES = {
    "2025-04": [
        article("a1", "2025-04-10", "Harbour cranes at Kessling were ordered by the port authority today."),
        article("a2", "2025-04-20", "Kessling harbour expansion vote scheduled by the council for May."),
    ],
    "2025-05": [article("b1", "2025-05-03", "Council approves the Kessling harbour expansion plan.")],
}


def _write_corpus(root: Path) -> None:
    chunks_total = []
    for month, articles in ARTICLES.items():
        exported, chunks = export_articles(articles, CorpusConfig(512), StageLedger("futuresim_corpus"))
        folder = root / "data/futuresim/corpus/articles" / month
        write_day_folders(exported, folder)
        chunks_dir = root / "data/futuresim/corpus/chunks"
        chunks_dir.mkdir(parents=True, exist_ok=True)
        pq.write_table(chunks, chunks_dir / f"{month}.parquet")
        chunks_total.append(chunks)
    # An upper-bound article the export filed under April although it is available on 1 May.
    misfiled = {
        "available_date": "2025-05-01",
        "date_precision": "upper_bound",
        "id": "m1",
        "publish_date": "2025-05-01T00:00:00Z",
        "source": "news.example",
        "text": "Crawled late: harbour notes.",
        "title": "title m1",
        "url": "https://news.example/m1",
    }
    late = root / "data/futuresim/corpus/articles/2025-04/30"
    late.mkdir(parents=True)
    (late / "articles.jsonl").write_text(json.dumps(misfiled, sort_keys=True) + "\n", encoding="utf-8")
    every = pa.concat_tables(chunks_total)
    build_index(
        every,
        root / "data/futuresim/index",
        IndexManifest(BACKEND, "almanac-words-v1", 512, every.num_rows, tuple(MONTHS)),
    )


def _futuresim_questions(root: Path) -> None:
    folder = root / "data/futuresim/questions"
    folder.mkdir(parents=True)
    for split, month, ids in (("train", "2025-04", ["s1", "s2"]), ("test", "2025-05", ["t1"])):
        table = _questions(split, month, ids)
        n = table.num_rows
        original = table["resolution_date"]
        if split == "test":  # the repair moved t1 from 25 May to 10 May (the table's day)
            original = pa.array([date(2025, 5, 25)] * n, pa.date32())
        table = (
            table.append_column("resolution_date_original", original)
            .append_column("repair_moves", pa.array([1 if split == "test" else 0] * n, pa.int16()))
            .append_column("repair_model", pa.array(["offline"] * n))
            .append_column("answerability_model", pa.array(["offline"] * n))
        )
        pq.write_table(table, folder / f"{split}.parquet")
    # The set's evidence table is not a split: it must not be published as one.
    pq.write_table(pa.table({"question_id": ["t1"]}), folder / "evidence.parquet")


def _retrieval(root: Path, chunks: pa.Table) -> None:
    def hit(
        question: str, split: str, resolution: date, cutoff: date, rank: int, article_id: str
    ) -> dict[str, Any]:
        chunk = chunks.filter(pc.equal(chunks["article_id"], article_id)).to_pylist()[0]
        return {
            "question_id": question,
            "split": split,
            "resolution_date": resolution,
            "resolution_date_precision": "day",
            "cutoff_date": cutoff,
            "query": f"query {question}",
            "rank": rank,
            "chunk_id": chunk["chunk_id"],
            "article_id": article_id,
            "url": chunk["url"],
            "available_date": chunk["available_date"],
            "date_precision": "day",
            "score": 2.0 - rank / 10,
            "text": chunk["text"],
            "retrieval_backend": BACKEND,
        }

    test = [
        hit("t1", "test", date(2025, 5, 25), date(2025, 4, 25), 1, "a2"),  # 20 April: after the new cut-off
        hit("t1", "test", date(2025, 5, 25), date(2025, 4, 25), 2, "a1"),  # 10 April: kept, now rank 1
    ]
    for split, month, rows in (("test", "2025-05", test),):
        folder = root / "data/foresight/retrieval" / split
        folder.mkdir(parents=True)
        pq.write_table(pa.Table.from_pylist(rows, schema=RETRIEVAL_SCHEMA), folder / f"{month}.parquet")


def tier_row(level: int, question_id: str, **fields: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "question_id": question_id,
        "level": level,
        "tier": TIER_NAMES[level],
        "event_id": f"e-{question_id}",
        "origin": "numeric" if level == 4 else "mirai" if level == 2 else "openforesight",
        "source_id": f"src-{question_id}",
        "question": f"Question {question_id}?",
        "background": "Background.",
        "answers": ["Kessling"],
        "answer_type": "string (location)",
        "answer_class": "location",
        "value": None,
        "unit": None,
        "information_cutoff": date(2025, 5, 1),
        "resolution_date": date(2025, 5, 20),
        "news_source": "news.example",
        "source_day": date(2025, 5, 20),
        "resolution_source": f"https://news.example/{question_id}",
        "cross_style_duplicate": None,
        "options": [],
        "aliases": [],
        "volatility": None,
        "sigma": None,
        "sigma_source": None,
        "distractor_sources": [],
    }
    row.update(fields)
    return row


TIERS = {
    1: [tier_row(1, "x1", options=["Kessling", "Linden Cross", "Fairhaven"])],
    2: [tier_row(2, "x2", answers=["036", "042"], options=["010", "036", "042", "190"])],
    3: [tier_row(3, "x3", volatility="low")],
    4: [
        tier_row(4, "x4", answers=["2200"], value=2200.0, unit="people", sigma=220.0, sigma_source="relative")
    ],
}


@pytest.fixture()
def futures_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    _write_corpus(tmp_path)
    chunks = pa.concat_tables(
        [pq.read_table(tmp_path / f"data/futuresim/corpus/chunks/{m}.parquet") for m in MONTHS]
    )
    _futuresim_questions(tmp_path)
    _retrieval(tmp_path, chunks)
    tiers = tmp_path / "data/futurex/tiers"
    tiers.mkdir(parents=True)
    for level, rows in TIERS.items():
        pq.write_table(pa.Table.from_pylist(rows, schema=TIER_SCHEMA), tiers / f"level{level}.parquet")
    offline = {"backend": "offline", "model": "m-off"}
    (tmp_path / "params.yaml").write_text(
        yaml.safe_dump(
            {
                "months": MONTHS,
                "dedup": {"ngram": 5},
                "llm": {
                    "prompts_dir": "prompts",
                    "roles": {r: offline for r in ("generator", "validator", "editor")},
                },
                "futuresim": {"retrieval": {"cutoff_months": 1}},
                "futurex": {
                    "tiers": {"level4_sigma_relative": 0.1},
                    "score": {"weights": [0.1, 0.2, 0.3, 0.4], "judge_role": "validator"},
                },
            }
        )
    )
    (tmp_path / "dvc.lock").write_text(
        yaml.safe_dump({"schema": "2.0", "stages": {"futurex_tiers": {"cmd": "t"}, "mirai": {"cmd": "m"}}})
    )
    return tmp_path


def params_of(project: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((project / "params.yaml").read_text())
    return loaded
