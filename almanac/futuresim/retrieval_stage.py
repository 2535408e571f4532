"""DVC stage ``futuresim_retrieval``: each released OpenForesight question's top-k chunks under its cut-off,
beside the splits (``data/foresight/retrieval/<split>/<month>.parquet``)."""

from __future__ import annotations

import time

from almanac.core.io import atomic_dir, read_parquet, write_parquet
from almanac.core.layout import (
    articles_dir,
    foresight_retrieval_dir,
    foresight_splits_dir,
    futuresim_index_dir,
)
from almanac.core.params import parse_section
from almanac.core.stage import StageError, end_stage, parse_stage_args
from almanac.futuresim.dense import embedder_from_params
from almanac.futuresim.index import MANIFEST
from almanac.futuresim.own_article import article_texts
from almanac.futuresim.retrieval import STAGE, RetrievalConfig, RetrievalTally, index_search, retrieve


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(RetrievalConfig, params.get("futuresim") or {}, "retrieval")
    index_root = futuresim_index_dir()
    if not (index_root / MANIFEST).is_file():
        raise StageError(f"no index in {index_root}: run `dvc repro futuresim_index` first")
    embedder = embedder_from_params(params)
    search = index_search(index_root, embedder.embed_query if embedder else None)
    splits = foresight_splits_dir()
    files = sorted(splits.glob("*/*.parquet"))
    questions = chunks = 0
    backends_used: set[str] = set()
    tally = RetrievalTally()
    # Each question's own article (by id, URL or near-duplicate text) is kept out of its context.
    source_ids = {str(row) for path in files for row in read_parquet(path).column("article_id").to_pylist()}
    texts = article_texts(articles_dir(), source_ids)
    with atomic_dir(foresight_retrieval_dir()) as staging:
        for path in files:
            rows = read_parquet(path).to_pylist()
            table = retrieve(rows, config, search, texts, tally)
            write_parquet(table, staging / path.relative_to(splits))
            questions += len(rows)
            chunks += sum(1 for rank in table.column("rank").to_pylist() if rank > 0)
            backends_used.update(table.column("retrieval_backend").to_pylist())
    backends = ", ".join(sorted(backends_used)) or "no search made"
    skipped = f"{tally.skipped} hits of {len(tally.own_article)} questions' own articles skipped"
    end_stage(STAGE, f"{questions} questions, {chunks} chunks retrieved, {skipped} ({backends})", started)
    return 0
