"""Incremental cross-month dedup: a new crawl month is probed against a persistent band index.

The dedup stage keeps its state in ``data/dedup/index/`` (a DVC output with ``persist: true``, so DVC
leaves it, and ``data/articles/``, in place when the stage reruns):

- ``bands/<crawl month>.{hashes,rows}.npy`` and ``.meta.arrow``: the band index and the month's metadata
  rows (almanac.dedup.band_index), one segment per crawl month, a function of its signatures alone;
- ``edges.parquet``: every verified near-duplicate pair ``(left_id, right_id, jaccard)``, by article id;
- ``manifest.json``: the index format, the params that decide, the months in scope, a digest of every
  crawl month's signature file, ingest files and segment, of ``edges.parquet`` and of each corpus file
  with a digest of the rows it holds (its kept set).

Why reuse is exact: an id is a hash of the URL and the text, so a signature, a band hash, a candidate
pair and a pair's Jaccard depend on ids alone, whichever copy of an id is kept. When only crawl months
are added (and months in scope, none of them holding an old crawl month's article), the pairs the full
rebuild would verify are the stored ones (both ids seen before) plus those with a fresh id, which are
exactly the pairs a new month's fresh documents find by probing the index and among themselves. Scope,
first copies and the clusters' keepers are then decided over all articles from the metadata the index
keeps (the same code as a full rebuild; no text is read for it), so a late-crawled earlier copy still
wins. Only corpus parts whose kept rows changed are rewritten. Anything else (another param, a changed
old month, a damaged or missing state) falls back to a full rebuild, which writes the same state.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.io import atomic_dir, read_json, write_json, write_parquet
from almanac.core.layout import (
    articles_dir,
    articles_path,
    dedup_index_dir,
    dedup_signatures,
    ingest_articles_dir,
)
from almanac.core.parallel import RayConfig
from almanac.core.rejects import TableLedger
from almanac.dedup.allocator import release_free_memory
from almanac.dedup.band_index import (
    MonthSlice,
    load_meta,
    load_segment,
    meta_path,
    probe_sorted,
    segment_paths,
    write_metas,
    write_segments,
)
from almanac.dedup.banding import BandColumns, _band_pair_keys, pairs_from_keys
from almanac.dedup.corpus_io import Part, StoredTexts, corpus_parts, write_parts
from almanac.dedup.file_digests import digest, remember
from almanac.dedup.held_meta import id_strings, unify
from almanac.dedup.near_duplicates import DedupConfig
from almanac.dedup.reject_spill import SpilledLedger
from almanac.dedup.signature_store import ingest_files, read_signed
from almanac.dedup.survivors import Selection, clustered_rows, decide, renumber, select_survivors
from almanac.dedup.verify import verify_pairs

INDEX_FORMAT = 3  # bump when the state's layout or meaning changes: an old state then means a full rebuild
_ALL = 1 << 64


def _decisive(config: DedupConfig) -> dict[str, Any]:
    """The params a stored decision depends on (``workers`` and ``band_shards`` change no output), and
    the dedup code itself: after any change to it the stored pairs are not trusted (a full rebuild)."""
    names = ("ngram", "num_perm", "bands", "rows", "threshold", "seed", "text_batch_rows")
    code = hashlib.blake2b(digest_size=16)
    for path in sorted(Path(__file__).parent.glob("*.py")):
        code.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return {**{name: getattr(config, name) for name in names}, "code": code.hexdigest()}


def _crawl_digests(crawl: str) -> dict[str, str]:
    folder = ingest_articles_dir(crawl)
    ingest = hashlib.blake2b(digest_size=16)
    for path in ingest_files(folder):
        ingest.update(f"{path.relative_to(folder).as_posix()}\t{digest(path)}\n".encode())
    return {"signatures": digest(dedup_signatures(crawl)), "ingest": ingest.hexdigest()}


def _segment_digest(folder: Path, crawl: str) -> str:
    return "+".join(digest(path) for path in (*segment_paths(folder, crawl), meta_path(folder, crawl)))


def _kept_digests(meta: pa.Table, parts: list[Part]) -> dict[str, str]:
    """What each corpus part is made of: its rows' ingest files and positions, in storage order."""
    found = {}
    for part in parts:
        chosen = meta.select(["ingest_file", "ingest_row"]).take(pa.array(part.rows))
        files = pc.dictionary_encode(chosen.column("ingest_file").cast(pa.string()).combine_chunks())
        made = hashlib.sha256("\n".join(files.dictionary.to_pylist()).encode())
        made.update(np.asarray(files.indices.to_numpy(zero_copy_only=False), dtype=np.int64).tobytes())
        made.update(np.asarray(chosen.column("ingest_row").to_numpy(), dtype=np.int64).tobytes())
        found[part.key] = made.hexdigest()[:32]
    return found


@dataclass(frozen=True)
class Plan:
    manifest: dict[str, Any]
    new: list[str]  # crawl months not in the index, in ``ccnews_months`` order


def plan(crawled: list[str], months: list[str], config: DedupConfig, index: Path) -> Plan | str:
    """What an incremental run reuses, or why it cannot (then the stage rebuilds in full)."""
    manifest_path = index / "manifest.json"
    if not manifest_path.is_file():
        return "no index yet"
    manifest = read_json(manifest_path)
    if manifest.get("format") != INDEX_FORMAT or manifest.get("config") != _decisive(config):
        return "index format or dedup params changed"
    if not set(manifest["months"]) <= set(months):
        return "a month left the scope"
    indexed = {entry["crawl"]: entry for entry in manifest["crawl_months"]}
    if not set(indexed) <= set(crawled):
        return "a crawl month was removed"
    for crawl, entry in indexed.items():
        if _crawl_digests(crawl) != {"signatures": entry["signatures"], "ingest": entry["ingest"]}:
            return f"crawl month {crawl} changed"
        if _segment_digest(index / "bands", crawl) != entry["segment"]:
            return f"band index of {crawl} is not the one recorded"
    if not (index / "edges.parquet").is_file() or digest(index / "edges.parquet") != manifest["edges"]:
        return "verified pairs are not the ones recorded"
    return Plan(manifest, [crawl for crawl in crawled if crawl not in indexed])


def dedup_corpus(
    crawled: list[str], months: list[str], config: DedupConfig, ray_config: RayConfig
) -> tuple[TableLedger, Selection]:
    """The stage's work: incremental when the index allows, else a full rebuild (same bytes either way)."""
    index = dedup_index_dir()
    found = plan(crawled, months, config, index)
    if isinstance(found, Plan):
        done = _incremental(found, crawled, months, config, index)
        if not isinstance(done, str):
            remember()
            return done
        found = done
    print(f"dedup: full rebuild ({found})", file=sys.stderr)
    rebuilt = _full(crawled, months, config, ray_config, index)
    remember()
    return rebuilt


def _slices(crawls: list[str]) -> list[MonthSlice]:
    slices, start = [], 0
    for crawl in crawls:
        stop = start + pq.ParquetFile(dedup_signatures(crawl)).metadata.num_rows
        slices.append(MonthSlice(crawl, start, stop))
        start = stop
    return slices


def _full(
    crawled: list[str], months: list[str], config: DedupConfig, ray_config: RayConfig, index: Path
) -> tuple[TableLedger, Selection]:
    signed = read_signed(
        [dedup_signatures(crawl) for crawl in crawled],
        config.num_perm,
        config.bands,
        config.rows,
        config.text_batch_rows,
    )
    release_free_memory()
    ledger = SpilledLedger("dedup")
    texts = StoredTexts(signed.meta, config.text_batch_rows)
    selection = select_survivors(
        signed.meta, signed.hashes, signed.empty, months, config.select, texts, ledger, ray_config
    )
    release_free_memory()  # before the corpus writer's buffers (the stage's peak)
    slices = _slices(crawled)
    parts = corpus_parts(signed.meta, selection.kept, months, [(one.crawl, one.start) for one in slices])
    with atomic_dir(articles_dir()) as staging:
        write_parts(signed.meta, parts, staging, config.text_batch_rows, config.select.workers)
    with atomic_dir(index) as staging:
        write_segments(staging / "bands", slices, signed.hashes, signed.empty)
        write_metas(staging / "bands", slices, signed.meta)
        kept_digests = _kept_digests(signed.meta, parts)
        _save(staging, signed.meta, selection, crawled, months, config, (kept_digests, {}), {})
    ledger.add_run_count("parts_written", len(parts))
    return ledger, selection


def _incremental(
    found: Plan, crawled: list[str], months: list[str], config: DedupConfig, index: Path
) -> tuple[TableLedger, Selection] | str:
    manifest, new = found.manifest, found.new
    slices = {piece.crawl: piece for piece in _slices(crawled)}
    signed = read_signed(
        [dedup_signatures(crawl) for crawl in new],
        config.num_perm,
        config.bands,
        config.rows,
        config.text_batch_rows,
    )
    parts, start = [], 0
    for crawl in crawled:
        if crawl in new:
            size = slices[crawl].stop - slices[crawl].start
            parts.append(signed.meta.slice(start, size))
            start += size
        else:
            parts.append(load_meta(index / "bands", crawl))  # kept by the index, not decoded again
    meta = unify(parts)
    count = meta.num_rows
    new_rows = np.concatenate(
        [np.zeros(0, dtype=np.int64)]
        + [np.arange(slices[crawl].start, slices[crawl].stop, dtype=np.int64) for crawl in new]
    )
    old = np.ones(count, dtype=bool)
    old[new_rows] = False
    months_column = meta.column("month")
    added = pa.array(sorted(set(months) - set(manifest["months"])), pa.string())
    if np.count_nonzero(_mask(pc.is_in(months_column, value_set=added)) & old):
        return "a new month in scope holds articles of an old crawl month"
    ledger = SpilledLedger("dedup")
    rows, in_scope = clustered_rows(meta, months, ledger)
    ids = meta.column("id")
    seen_before = ids.filter(
        pa.array(old & _mask(pc.is_in(months_column, value_set=pa.array(manifest["months"], pa.string()))))
    )
    fresh = np.zeros(count, dtype=bool)
    fresh[rows[~_mask(pc.is_in(ids.take(pa.array(rows)), value_set=seen_before.combine_chunks()))]] = True
    eligible = np.zeros(count, dtype=bool)
    eligible[rows] = True
    eligible[new_rows[signed.empty]] = False
    pairs = renumber(
        _fresh_pairs(index, crawled, slices, new, new_rows, signed.hashes, fresh, eligible), rows, count
    )
    texts = StoredTexts(meta, config.text_batch_rows)
    settings = config.select
    checked = verify_pairs(pairs, lambda documents: texts(rows[documents]), settings.verify)
    row_ids = id_strings(ids.take(pa.array(rows))).combine_chunks()
    verified = np.concatenate([_stored_edges(index, row_ids), checked])
    verified = verified[np.lexsort((verified[:, 1], verified[:, 0]))]
    selection = decide(meta, rows, verified, int(manifest["candidate_pairs"]) + len(pairs), in_scope, ledger)
    recorded = manifest["articles"]
    parts = corpus_parts(meta, selection.kept, months, [(crawl, slices[crawl].start) for crawl in crawled])
    on_disk = {
        path.relative_to(articles_dir()).with_suffix("").as_posix()
        for month in months
        for path in articles_path(month).glob("*.parquet")
    }
    if not on_disk <= set(recorded):
        return "the corpus holds files the index did not record"
    kept_digests = _kept_digests(meta, parts)
    files = {}  # digests of the corpus parts left as they are
    for part in parts:
        target = articles_dir() / f"{part.key}.parquet"
        entry = recorded.get(part.key)
        if entry is not None and entry["kept"] == kept_digests[part.key] and target.is_file():
            files[part.key] = digest(target)
            if files[part.key] != entry["file"]:
                del files[part.key]
    stale = [part for part in parts if part.key not in files]
    write_parts(meta, stale, articles_dir(), config.text_batch_rows, settings.workers)
    for key in sorted(on_disk - set(kept_digests)):  # parts this stage wrote before, now without rows
        (articles_dir() / f"{key}.parquet").unlink()
    new_slices = []
    start = 0
    for crawl in new:
        size = slices[crawl].stop - slices[crawl].start
        new_slices.append(MonthSlice(crawl, start, start + size))
        start += size
    write_segments(index / "bands", new_slices, signed.hashes, signed.empty)
    write_metas(index / "bands", new_slices, signed.meta)
    _save(
        index,
        meta,
        selection,
        crawled,
        months,
        config,
        (kept_digests, files),
        {
            entry["crawl"]: {"signatures": entry["signatures"], "ingest": entry["ingest"]}
            for entry in manifest["crawl_months"]
        },
    )
    ledger.add_run_count("incremental", 1)
    ledger.add_run_count("parts_written", len(stale))
    return ledger, selection


def _fresh_pairs(
    index: Path,
    crawled: list[str],
    slices: dict[str, MonthSlice],
    new: list[str],
    new_rows: npt.NDArray[np.int64],
    hashes: BandColumns,
    fresh: npt.NDArray[np.bool_],
    eligible: npt.NDArray[np.bool_],
) -> npt.NDArray[np.int64]:
    """Candidate pairs (metadata rows) with at least one fresh document: the new months' documents
    banded among themselves, and the fresh ones probed against every old month's segment."""
    count = len(fresh)
    size = len(new_rows)
    new_eligible = eligible[new_rows]
    new_fresh = fresh[new_rows] & new_eligible
    queries = np.flatnonzero(new_fresh)
    segments = [
        (slices[crawl].start, load_segment(index / "bands", crawl)) for crawl in crawled if crawl not in new
    ]
    keys = []
    for band in range(hashes.shape[1]):
        column = hashes.column(band)
        local = _band_pair_keys(column, ~new_eligible, 0, _ALL)
        left, right = local // max(size, 1), local % max(size, 1)
        touched = new_fresh[left] | new_fresh[right]
        keys.append(_keys(new_rows[left[touched]], new_rows[right[touched]], count))
        wanted = column[queries]
        order = np.argsort(wanted, kind="stable")  # once per band, for every old segment
        ordered_queries, wanted = queries[order], wanted[order]
        for first, segment in segments:
            which, partner = probe_sorted(segment.hashes[band], segment.rows[band], wanted)
            partner = partner + first
            usable = eligible[partner]
            keys.append(_keys(new_rows[ordered_queries[which[usable]]], partner[usable], count))
    return pairs_from_keys(keys, count)


def _keys(left: npt.NDArray[np.int64], right: npt.NDArray[np.int64], count: int) -> npt.NDArray[np.int64]:
    keys: npt.NDArray[np.int64] = np.minimum(left, right) * count + np.maximum(left, right)
    return keys


def _stored_edges(index: Path, row_ids: pa.Array) -> npt.NDArray[np.float64]:
    """The stored verified pairs as ``(i, j, jaccard)`` rows, i < j indices into the clustered rows."""
    edges = pq.read_table(index / "edges.parquet")
    left = pc.index_in(edges.column("left_id"), value_set=row_ids)
    right = pc.index_in(edges.column("right_id"), value_set=row_ids)
    if left.null_count or right.null_count:
        raise RuntimeError(
            "dedup: a stored pair names an article no longer clustered; delete data/dedup/index"
        )
    a = left.to_numpy(zero_copy_only=False).astype(np.int64)
    b = right.to_numpy(zero_copy_only=False).astype(np.int64)
    scores = edges.column("jaccard").to_numpy()
    return np.stack([np.minimum(a, b), np.maximum(a, b), scores], axis=1).astype(np.float64).reshape(-1, 3)


def _save(
    folder: Path,
    meta: pa.Table,
    selection: Selection,
    crawled: list[str],
    months: list[str],
    config: DedupConfig,
    corpus: tuple[dict[str, str], dict[str, str]],
    known: dict[str, dict[str, str]],
) -> None:
    """``edges.parquet`` and, last, ``manifest.json`` (a crash before it leaves a state that does not
    match its manifest, so the next run rebuilds in full)."""
    ids, rows, verified = meta.column("id"), selection.rows, selection.verified
    # the ids of the pairs' rows only (not a copy of every clustered row's id first)
    first = ids.take(pa.array(rows[verified[:, 0].astype(np.int64)]))
    second = ids.take(pa.array(rows[verified[:, 1].astype(np.int64)]))
    before = pc.less(first, second)  # raw-byte ids are in their hex strings' order
    edges = pa.table(
        {
            "left_id": id_strings(pc.if_else(before, first, second)),
            "right_id": id_strings(pc.if_else(before, second, first)),
            "jaccard": pa.array(verified[:, 2], pa.float64()),
        }
    ).sort_by([("left_id", "ascending"), ("right_id", "ascending")])
    write_parquet(edges, folder / "edges.parquet")
    kept_digests, files = corpus  # digests of the files this run did not write are known already
    articles = {
        key: {"kept": kept, "file": files.get(key) or digest(articles_dir() / f"{key}.parquet")}
        for key, kept in kept_digests.items()
    }
    crawl_months = []
    for crawl in crawled:
        digests = known.get(crawl) or _crawl_digests(crawl)
        crawl_months.append({"crawl": crawl, **digests, "segment": _segment_digest(folder / "bands", crawl)})
    manifest = {
        "format": INDEX_FORMAT,
        "config": _decisive(config),
        "months": months,
        "crawl_months": crawl_months,
        "edges": digest(folder / "edges.parquet"),
        "candidate_pairs": selection.candidate_pairs,
        "articles": articles,
    }
    write_json(manifest, folder / "manifest.json")


def _mask(values: pa.ChunkedArray | pa.Array) -> npt.NDArray[np.bool_]:
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=bool)
