"""Dense vectors of the chunks, for hybrid search when an embeddings endpoint is configured.

The ``embedder`` role (``llm.roles.embedder``) embeds every chunk through almanac.llm's cached client;
``futuresim_index`` writes the vectors beside the BM25 index. With ``backend: offline`` (the default) there
are no vectors and search is BM25 alone. As in the BM25 query, the date cap selects the candidate chunks
*before* any similarity is computed, so a later chunk is never scored.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from almanac.core.io import read_parquet, write_parquet
from almanac.core.rejects import StageLedger
from almanac.futuresim.dates import day_number
from almanac.llm import LLMCache, RoleConfig, parse_llm_config, run_embeddings

ROLE = "embedder"
DENSE_FILE = "dense.parquet"
Vector = tuple[float, ...]


@dataclass(frozen=True)
class Embedder:
    role: RoleConfig
    cache_path: str

    @property
    def model(self) -> str:
        return self.role.model

    def embed(self, texts: Sequence[str], ledger: StageLedger | None = None) -> list[Vector]:
        with LLMCache(self.cache_path) as cache:
            return run_embeddings(self.role, texts, cache, ledger)

    def embed_query(self, query: str) -> Vector:
        """One query's vector (cached like the chunks'): the ``embed`` argument of ``search_chunks``."""
        return self.embed([query])[0]


def embedder_from_params(params: dict[str, Any]) -> Embedder | None:
    """The ``embedder`` role when it names an OpenAI-compatible endpoint; None (BM25 only) otherwise."""
    config = parse_llm_config(params)
    role = config.roles.get(ROLE)
    if role is None or role.backend == "offline":
        return None
    return Embedder(role, config.cache_path)


def write_dense(chunks: pa.Table, root: Path, embedder: Embedder, ledger: StageLedger | None) -> None:
    """``root/dense.parquet``: chunk id, available day and unit-length float32 vector, in ``chunks`` order."""
    vectors = embedder.embed([str(text) for text in chunks.column("text").to_pylist()], ledger)
    matrix = _normalised(np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1))
    days = [day_number(day) for day in chunks.column("available_date").to_pylist()]
    table = pa.table(
        {
            "chunk_id": chunks.column("chunk_id"),
            "available_day": pa.array(days, pa.int32()),
            "vector": pa.array(list(matrix), pa.list_(pa.float32())),
        }
    )
    write_parquet(table, root / DENSE_FILE)


def _normalised(matrix: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


@functools.lru_cache(maxsize=2)
def _load(path: str, _modified: int) -> tuple[list[str], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    table = read_parquet(path)
    ids = [str(value) for value in table.column("chunk_id").to_pylist()]
    days = table.column("available_day").to_numpy()
    vectors = np.asarray(table.column("vector").to_pylist(), dtype=np.float32).reshape(len(ids), -1)
    return ids, days, vectors


def has_dense(root: Path) -> bool:
    return (root / DENSE_FILE).is_file()


def dense_top(root: Path, query: Vector, first: date, last: date, n: int) -> list[tuple[str, float]]:
    """The ``n`` chunks most similar to ``query`` (cosine) among those available in ``first..last``."""
    path = root / DENSE_FILE
    ids, days, vectors = _load(str(path), path.stat().st_mtime_ns)
    allowed = np.flatnonzero((days >= day_number(first)) & (days <= day_number(last)))  # the cap first
    if not len(allowed):
        return []
    unit = _normalised(np.asarray([query], dtype=np.float32))[0]
    scores = vectors[allowed] @ unit
    ranked = sorted(zip(allowed.tolist(), scores.tolist(), strict=True), key=lambda p: (-p[1], ids[p[0]]))
    return [(ids[index], float(score)) for index, score in ranked[:n]]
