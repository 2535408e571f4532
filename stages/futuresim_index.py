"""DVC stage ``futuresim_index``: one BM25 index over the chunks of every month (scores comparable across
months, so a search spanning months ranks them together)."""

from __future__ import annotations

import sys
import time

import pyarrow as pa

from almanac.core.io import read_parquet
from almanac.core.layout import futuresim_chunks, futuresim_index_dir
from almanac.core.params import months_in_scope, parse_section
from almanac.core.stage import StageError, end_stage, parse_stage_args
from almanac.futuresim.corpus import CorpusConfig
from almanac.futuresim.index import BACKEND, IndexManifest, build_index
from almanac.futuresim.schema import CHUNK_SCHEMA
from almanac.futuresim.tokens import TOKENIZER

STAGE = "futuresim_index"


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    config = parse_section(CorpusConfig, params.get("futuresim") or {}, "corpus")
    missing = [str(futuresim_chunks(month)) for month in months if not futuresim_chunks(month).is_file()]
    if missing:
        raise StageError(f"no chunks {missing}: run `dvc repro futuresim_corpus` first")
    chunks = pa.concat_tables(
        [CHUNK_SCHEMA.empty_table()]
        + [read_parquet(futuresim_chunks(month), CHUNK_SCHEMA) for month in months]
    )
    manifest = IndexManifest(BACKEND, TOKENIZER, config.chunk_tokens, chunks.num_rows, tuple(months))
    build_index(chunks, futuresim_index_dir(), manifest)
    end_stage(STAGE, f"{chunks.num_rows} chunks of {len(months)} months indexed ({BACKEND})", started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
