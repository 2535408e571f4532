"""Which articles survive dedup, decided from metadata and band hashes; texts only for candidate pairs.

The policy is the one dedup always had: articles published outside the months in scope are dropped;
of copies with one id (same canonical URL and text) the earliest (publish date, then id, then reading
order) stays; of a cluster of verified near-duplicates the earliest (publish date, then id) stays.
Texts are read only for the documents of candidate pairs, once each (almanac.dedup.verify).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from almanac.core.parallel import RayConfig
from almanac.core.rejects import TableLedger
from almanac.dedup.allocator import release_free_memory
from almanac.dedup.banding import BandColumns, Pairs, as_columns, candidate_pairs
from almanac.dedup.cluster import resolve_ordered
from almanac.dedup.held_meta import id_strings, strings
from almanac.dedup.signature_store import source_column
from almanac.dedup.verify import TextSource, VerifySettings, verify_pairs


@dataclass(frozen=True)
class Selection:
    kept: npt.NDArray[np.int64]  # metadata rows kept, sorted by (publish date, id)
    candidate_pairs: int
    verified_pairs: int
    in_scope: int
    rows: npt.NDArray[np.int64]  # the documents clustered: first copies in scope, by (publish date, id)
    verified: npt.NDArray[np.float64]  # (i, j, jaccard) rows, i < j indices into ``rows``, sorted


def select_survivors(
    meta: pa.Table,
    hashes: npt.NDArray[np.uint64] | BandColumns,
    empty: npt.NDArray[np.bool_],
    months: list[str],
    settings: SelectSettings,
    texts: TextSource,
    ledger: TableLedger,
    ray_config: RayConfig,
) -> Selection:
    """Kept rows of ``meta`` (columns id, month, publish_date, source); every other row gets a reject."""
    rows, in_scope = clustered_rows(meta, months, ledger)
    pairs = _candidates(hashes, empty, rows, settings, ray_config)
    verified = verify_pairs(pairs, lambda documents: texts(rows[documents]), settings.verify)
    candidates = len(pairs)
    del pairs
    release_free_memory()  # verification's text batches and sets, before clustering's arrays
    return decide(meta, rows, verified, candidates, in_scope, ledger)


def clustered_rows(
    meta: pa.Table, months: list[str], ledger: TableLedger
) -> tuple[npt.NDArray[np.int64], int]:
    """The rows near-duplicate clustering runs over, in (publish date, id) order, and the in-scope count:
    rows published outside ``months`` and later copies of an id get their rejects here."""
    ledger.items_in += meta.num_rows
    # Index arrays and narrow key tables only: ``meta`` itself is never copied whole.
    in_scope = _mask(pc.is_in(meta.column("month"), value_set=pa.array(months, type=pa.string())))
    out_of_scope = meta.take(pa.array(np.flatnonzero(~in_scope)))
    ledger.reject_table(
        _rejects(
            out_of_scope,
            ledger.stage,
            "publish_month_out_of_scope",
            pc.binary_join_element_wise("published in ", strings(out_of_scope.column("month")), ""),
            None,
        )
    )
    scoped = np.flatnonzero(in_scope)
    first = _first_copies(meta, scoped, in_scope, ledger)
    # Earliest first, ties by id (unique now): every later choice (which copy is kept) follows this order.
    # All rows are sorted on ``meta``'s own columns (no copy of the id strings) and the others dropped.
    chosen = np.zeros(meta.num_rows, dtype=bool)
    chosen[first] = True
    del first
    rows = _sorted_rows(meta, [("publish_date", "ascending"), ("id", "ascending")])
    return rows[chosen[rows]], len(scoped)


def _sorted_rows(meta: pa.Table, keys: list[tuple[str, str]]) -> npt.NDArray[np.int64]:
    """Every row of ``meta`` in a stable sort by ``keys`` (ties stay in reading order)."""
    order = pc.sort_indices(meta.select([name for name, _ in keys]), keys)
    # the indices' own buffer seen as int64 (row numbers < 2^63), not a second copy of 8 bytes a row
    rows: npt.NDArray[np.int64] = order.to_numpy().view(np.int64)
    return rows


def decide(
    meta: pa.Table,
    rows: npt.NDArray[np.int64],
    verified: npt.NDArray[np.float64],
    candidate_pairs: int,
    in_scope: int,
    ledger: TableLedger,
) -> Selection:
    """Clusters of the ``verified`` pairs (indices into ``rows``): each keeps its earliest member."""
    # ``rows`` is sorted by (publish date, id) and ids are unique in it, so a smaller index is a smaller
    # key: clusters are resolved over the documents of verified pairs only, keyed by their index.
    nodes = np.unique(verified[:, :2].astype(np.int64)) if len(verified) else np.zeros(0, dtype=np.int64)
    local = np.empty((len(verified), 2), dtype=np.int32 if len(nodes) < 2**31 else np.int64)
    for side in range(2):  # one column at a time: no int64 copy of both
        local[:, side] = np.searchsorted(nodes, verified[:, side].astype(np.int64))
    found = resolve_ordered(len(nodes), local[:, 0], local[:, 1], verified[:, 2].astype(np.float64))
    del local
    drop = np.zeros(len(rows), dtype=bool)
    if len(found.index):
        index = nodes[found.index]
        drop[index] = True
        ids = meta.column("id")
        for start in range(0, len(index), _PIECE):  # in pieces: one piece's reject rows at a time
            stop = start + _PIECE
            neighbours = id_strings(ids.take(pa.array(rows[nodes[found.neighbour[start:stop]]])))
            details = pa.array(
                [
                    f"jaccard={score:.3f} with {neighbour}"
                    for score, neighbour in zip(
                        found.jaccard[start:stop].tolist(), neighbours.to_pylist(), strict=True
                    )
                ],
                pa.string(),
            )
            kept_ids = ids.take(pa.array(rows[nodes[found.kept[start:stop]]]))
            dropped = meta.take(pa.array(rows[index[start:stop]]))
            ledger.reject_table(_rejects(dropped, ledger.stage, "near_duplicate", details, kept_ids))
    kept = rows[~drop]
    ledger.items_out += len(kept)
    return Selection(kept, candidate_pairs, len(verified), in_scope, rows, verified)


def _first_copies(
    meta: pa.Table, scoped: npt.NDArray[np.int64], in_scope: npt.NDArray[np.bool_], ledger: TableLedger
) -> npt.NDArray[np.int64]:
    """``scoped`` rows but the later copies of an id, which get duplicate_id rejects: of the copies of one
    id the earliest published stays, then the first read (the sort is stable, rows in reading order)."""
    by_id = _sorted_rows(meta, [("id", "ascending"), ("publish_date", "ascending")])
    by_id = by_id[in_scope[by_id]]
    repeated = np.zeros(len(scoped), dtype=bool)
    for start in range(0, len(scoped) - 1, _PIECE):  # ids in sorted order a piece at a time, not a copy
        ids = meta.column("id").take(pa.array(by_id[start : start + _PIECE + 1]))
        repeated[start + 1 : start + len(ids)] = _mask(pc.equal(ids.slice(1), ids.slice(0, len(ids) - 1)))
    copies = meta.take(pa.array(by_id[repeated]))
    ledger.reject_table(
        _rejects(copies, ledger.stage, "duplicate_id", "same canonical URL and text", copies.column("id"))
    )
    return by_id[~repeated]


def _candidates(
    hashes: npt.NDArray[np.uint64] | BandColumns,
    empty: npt.NDArray[np.bool_],
    rows: npt.NDArray[np.int64],
    settings: SelectSettings,
    ray_config: RayConfig,
) -> Pairs:
    """Candidate pairs as indices into ``rows``, found on the full hash matrix (no copy of it): rows not
    in ``rows`` are excluded, and each pair is renumbered and put back in (i, j) order."""
    count = as_columns(hashes).shape[0]
    excluded = np.ones(count, dtype=bool)
    excluded[rows] = False
    excluded |= empty
    found = candidate_pairs(hashes, excluded, settings.shards, ray_config, settings.workers)
    del excluded
    return renumber(found, rows, count)


def renumber(found: Pairs, rows: npt.NDArray[np.int64], count: int) -> Pairs:
    """Pairs of metadata rows (all in ``rows``) as indices into ``rows``, each (i < j), sorted."""
    inverse = np.full(count, -1, dtype=np.int64)
    inverse[rows] = np.arange(len(rows), dtype=np.int64)
    renumbered = inverse[found]
    renumbered.sort(axis=1)
    return renumbered[np.lexsort((renumbered[:, 1], renumbered[:, 0]))]


_PIECE = 1 << 18  # rows of Python strings built at once


@dataclass(frozen=True)
class SelectSettings:
    ngram: int
    threshold: float
    shards: int  # groups of bands, one parallel_map task each (1 = in this process)
    workers: int = 1  # threads of this process banding and hashing texts

    @property
    def verify(self) -> VerifySettings:
        return VerifySettings(self.ngram, self.threshold, self.workers)


def _mask(values: pa.ChunkedArray | pa.Array) -> npt.NDArray[np.bool_]:
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)


def _rejects(
    rows: pa.Table,
    stage: str,
    reason: str,
    detail: str | pa.Array | pa.ChunkedArray,
    related: pa.Array | pa.ChunkedArray | None,
) -> pa.Table:
    count = rows.num_rows
    if isinstance(detail, str):
        detail = pa.array([detail] * count, pa.string())
    return pa.table(
        {
            "id": id_strings(rows.column("id")),
            "stage": pa.array([stage] * count, pa.string()),
            "reason": pa.array([reason] * count, pa.string()),
            "detail": detail,
            "source": source_column(rows),
            "related_id": id_strings(related) if related is not None else pa.nulls(count, pa.string()),
        }
    )
