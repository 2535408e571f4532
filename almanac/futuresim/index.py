"""The BM25 index over the chunks (tantivy), written so that the same chunks give the same bytes.

tantivy names each segment with a random UUID (file names, ``meta.json``, ``.managed.json``); the segment
files' contents are deterministic for one writer thread. After the commit the segments are renamed to ids
derived from the chunks' content and the two JSON files rewritten (the file list sorted), so a rebuild of
the same chunks is byte-identical and DVC's run-cache and ``dvc status`` see no change.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pyarrow as pa
import tantivy

from almanac.core.ids import content_id
from almanac.core.io import atomic_dir, write_json
from almanac.futuresim.dates import day_number
from almanac.futuresim.tokens import search_terms

# Which retrieval made a hit: outputs carry it (README "FutureSim corpus and search").
BACKEND = f"bm25:tantivy-{version('tantivy')}"
INDEX_FOLDER = "tantivy"
MANIFEST = "manifest.json"
# Each document stores its chunk row as JSON (not indexed), so a hit needs no Parquet lookup.
STORED_COLUMNS = ("chunk_id", "article_id", "url", "source", "date_precision", "ordinal", "text")
WRITER_HEAP_BYTES = 64_000_000  # tantivy's writer memory (it flushes a new segment when full)
_LOCK_FILES = (".tantivy-meta.lock", ".tantivy-writer.lock")  # empty; a reader recreates a missing one


@dataclass(frozen=True)
class IndexManifest:
    backend: str
    tokenizer: str
    chunk_tokens: int
    chunks: int
    months: tuple[str, ...]
    embeddings_model: str = ""  # the embedder role's model when dense vectors were written, else ""

    def to_json(self) -> dict[str, Any]:
        return {**self.__dict__, "months": list(self.months)}


def index_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_bytes_field("row", stored=True)
    builder.add_text_field("chunk_id", stored=False, tokenizer_name="raw")  # hybrid search fetches by id
    builder.add_text_field("terms", stored=False, tokenizer_name="whitespace")
    # yyyymmdd of the chunk's available_date: the range every query is capped with, and the stored value
    # the post-check reads back.
    builder.add_integer_field("available_day", stored=True, indexed=True, fast=True)
    return builder.build()


def build_index(
    chunks: pa.Table,
    root: Path,
    manifest: IndexManifest,
    dense: Callable[[pa.Table, Path], None] | None = None,
) -> None:
    """Write ``root/tantivy`` (the index), ``root/manifest.json`` and, with ``dense``, what it writes (the
    chunk vectors), replacing ``root`` as a whole: a failed embedding call leaves the old index."""
    ordered = chunks.sort_by([("available_date", "ascending"), ("chunk_id", "ascending")])
    with atomic_dir(root) as staging:
        if dense is not None:
            dense(ordered, staging)  # first: the call that may fail
        folder = staging / INDEX_FOLDER
        folder.mkdir()
        _write_segments(ordered.to_pylist(), folder)
        _normalise(folder, content_id(*ordered.column("chunk_id").to_pylist()))
        write_json(manifest.to_json(), staging / MANIFEST)


def _write_segments(rows: Iterable[dict[str, Any]], folder: Path) -> None:
    index = tantivy.Index(index_schema(), path=str(folder), reuse=False)
    writer = index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)  # one thread: deterministic segments
    for row in rows:
        document = tantivy.Document()
        stored = {name: row[name] for name in STORED_COLUMNS}
        document.add_bytes("row", json.dumps(stored, sort_keys=True, ensure_ascii=False).encode("utf-8"))
        document.add_text("chunk_id", str(row["chunk_id"]))
        document.add_text("terms", " ".join(search_terms(str(row["text"]))))
        document.add_integer("available_day", day_number(row["available_date"]))
        writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()


def _normalise(folder: Path, digest: str) -> None:
    """Rename tantivy's random segment ids to ``content_id(digest, position)``; sort ``.managed.json``."""
    meta_path = folder / "meta.json"
    meta_text = meta_path.read_text(encoding="utf-8")
    meta = json.loads(meta_text)
    for position, segment in enumerate(meta["segments"]):
        old = str(segment["segment_id"])
        new = content_id(digest, str(position))
        new_dashed = f"{new[:8]}-{new[8:12]}-{new[12:16]}-{new[16:20]}-{new[20:]}"
        for path in folder.glob(f"{old.replace('-', '')}.*"):
            os.replace(path, folder / (new + path.suffix))
        meta_text = meta_text.replace(old, new_dashed)
    meta_path.write_text(meta_text, encoding="utf-8")
    files = sorted(path.name for path in folder.iterdir() if not path.name.startswith("."))
    (folder / ".managed.json").write_text(json.dumps(files), encoding="utf-8")
    for name in _LOCK_FILES:
        (folder / name).write_bytes(b"")
