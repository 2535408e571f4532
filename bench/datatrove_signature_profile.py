"""Where datatrove's MinHash signature step spends its time per document (behind bench.dedup_versus).

    <python with datatrove> bench/datatrove_signature_profile.py PARQUET [--docs 2000] [--no-memory-zone]
        [--profile 12]

Runs ``MinhashDedupSignature`` as bench/datatrove_minhash.py configures it (5-grams, 14 x 8 buckets,
English: datatrove's own tokenizer for it, a blank spaCy pipeline) on the first ``--docs`` documents of
one Parquet file, in one process, and prints its CPU per document. ``--profile K`` prints cProfile's K
costliest functions by own time. ``--no-memory-zone`` is a diagnosis, not a configuration a user has:
datatrove 0.10 tokenises each document inside spaCy's ``memory_zone()``, which frees every lexeme created
in it when the document ends, so a word seen in an earlier document is built again (its lexical
attributes computed in Python); replacing the zone by a no-op shows what that costs. Standard library and
datatrove only, like bench/datatrove_minhash.py (datatrove is not in Almanac's lock).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import pstats
import time
from itertools import islice
from pathlib import Path
from typing import Any


def main() -> None:
    from datatrove.pipeline.dedup.minhash import MinhashConfig, MinhashDedupSignature
    from datatrove.pipeline.readers import ParquetReader

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("parquet", type=Path)
    parser.add_argument("--docs", type=int, default=2000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/almanac-datatrove-signature-profile"))
    parser.add_argument("--no-memory-zone", action="store_true")
    parser.add_argument("--profile", type=int, default=0, help="print the K costliest functions")
    args = parser.parse_args()
    reader = ParquetReader(str(args.parquet.parent), glob_pattern=args.parquet.name, text_key="text")
    docs = list(islice(reader.run(), args.docs))
    config = MinhashConfig(n_grams=5, num_buckets=14, hashes_per_bucket=8)
    step = MinhashDedupSignature(output_folder=str(args.work), config=config)
    step.word_tokenizer.word_tokenize("warm up")  # spaCy's import and pipeline, once, outside the timing
    if args.no_memory_zone:
        pipeline: Any = step.word_tokenizer.tokenizer
        pipeline.memory_zone = contextlib.nullcontext
    profiler = cProfile.Profile()
    started, cpu = time.perf_counter(), time.process_time()
    if args.profile:
        profiler.enable()
    step.run(iter(docs), rank=0, world_size=1)
    profiler.disable()
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"{len(docs)} documents, memory zone {'off' if args.no_memory_zone else 'on'}, "
        f"profiled {bool(args.profile)}: wall {wall:.2f} s, CPU {cpu:.2f} s, "
        f"{1000 * cpu / max(len(docs), 1):.2f} ms of CPU a document"
    )
    if args.profile:
        pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()
