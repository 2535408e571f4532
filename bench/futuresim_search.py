"""FutureSim search benchmark: chunking, index build and date-capped query latency on a synthetic corpus.

    .venv/bin/python -m bench.futuresim_search [--articles 5000] [--days 90] [--queries 300] [--seed 0]

Articles are ~600 words over a Zipf-distributed vocabulary, spread over ``--days`` days (a tenth dated
``upper_bound``). Each query takes 1-4 words and a random cap; every hit is checked against its cap, so the
run also counts leaks (it must report 0). One process, one core for the index writer.
"""

from __future__ import annotations

import argparse
import platform
import shutil
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from almanac.core.io import write_json
from almanac.core.rejects import StageLedger
from almanac.futuresim.corpus import CorpusConfig, export_articles
from almanac.futuresim.index import BACKEND, IndexManifest, build_index
from almanac.futuresim.search import search_chunks
from almanac.futuresim.tokens import TOKENIZER

START = date(2025, 1, 1)


def make_articles(count: int, days: int, seed: int) -> tuple[list[dict[str, Any]], list[str]]:
    rng = np.random.default_rng(seed)
    letters = np.array(list("etaoinshrdlcumwfgypbvkjxqz"))
    vocabulary = sorted(
        {"".join(letters[rng.integers(0, 26, size=int(rng.integers(2, 10)))]) for _ in range(30_000)}
    )
    weights = 1.0 / np.arange(1, len(vocabulary) + 1)
    weights /= weights.sum()
    articles = []
    for index in range(count):
        words = rng.choice(len(vocabulary), size=int(rng.integers(400, 800)), p=weights)
        day = START + timedelta(days=int(rng.integers(0, days)))
        articles.append(
            {
                "id": f"a{index:06d}",
                "url": f"https://bench.example/{index}",
                "source_domain": "bench.example",
                "title": None,
                "text": " ".join(vocabulary[w] for w in words),
                "publish_date": datetime(day.year, day.month, day.day, tzinfo=UTC),
                "date_precision": "upper_bound" if rng.random() < 0.1 else "day",
            }
        )
    return articles, vocabulary


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--articles", type=int, default=5_000)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/futuresim_search.json"))
    args = parser.parse_args(argv)
    articles, vocabulary = make_articles(args.articles, args.days, args.seed)
    started = time.perf_counter()
    _, chunks = export_articles(articles, CorpusConfig(), StageLedger("futuresim_corpus"))
    chunked = time.perf_counter() - started
    root = Path(tempfile.mkdtemp(prefix="futuresim-bench-")) / "index"
    try:
        started = time.perf_counter()
        build_index(chunks, root, IndexManifest(BACKEND, TOKENIZER, 512, chunks.num_rows, ()))
        built = time.perf_counter() - started
        rng = np.random.default_rng(args.seed + 1)
        latencies, hits, leaks = [], 0, 0
        for _ in range(args.queries):
            words = rng.choice(len(vocabulary), size=int(rng.integers(1, 5)), replace=False)
            cap = START + timedelta(days=int(rng.integers(0, args.days)))
            started = time.perf_counter()
            found = search_chunks(root, " ".join(vocabulary[w] for w in words), None, cap, args.k)
            latencies.append(time.perf_counter() - started)
            hits += len(found)
            leaks += sum(hit.available_date > cap for hit in found)
        index_bytes = sum(path.stat().st_size for path in root.rglob("*") if path.is_file())
    finally:
        shutil.rmtree(root.parent)
    report = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "backend": BACKEND,
        "articles": len(articles),
        "chunks": chunks.num_rows,
        "chunk_seconds": round(chunked, 2),
        "index_seconds": round(built, 2),
        "index_mb": round(index_bytes / 1e6, 1),
        "queries": args.queries,
        "query_ms_p50": round(1000 * float(np.percentile(latencies, 50)), 2),
        "query_ms_p95": round(1000 * float(np.percentile(latencies, 95)), 2),
        "hits": hits,
        "leaks": leaks,
    }
    for key, value in report.items():
        print(f"{key:>15}: {value}")
    write_json(report, args.out)


if __name__ == "__main__":
    main()
