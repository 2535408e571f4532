"""datatrove's MinHash dedup over an Almanac ingest folder, for ``bench.dedup --versus-datatrove``.

    <python with datatrove> bench/datatrove_minhash.py INGEST_DIR WORK_DIR [--workers 2] [--buckets 14]
        [--hashes-per-bucket 8] [--ngrams 5]

Runs datatrove's four MinHash steps (signatures, buckets, clusters, filter) with its local executor on
``--workers`` processes, reading the ``text`` and ``id`` columns of every ``*.parquet`` file under
INGEST_DIR and writing the kept documents as Parquet (as Almanac's ``dedup`` writes its corpus) and the
removed ones to ``WORK_DIR/removed``. It imports datatrove and the standard library only, because it
runs in a separate environment: datatrove is not in Almanac's lock.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main() -> None:
    from datatrove.executor.local import LocalPipelineExecutor
    from datatrove.pipeline.dedup.minhash import (
        MinhashConfig,
        MinhashDedupBuckets,
        MinhashDedupCluster,
        MinhashDedupFilter,
        MinhashDedupSignature,
    )
    from datatrove.pipeline.readers import ParquetReader
    from datatrove.pipeline.writers import ParquetWriter

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("ingest", type=Path)
    parser.add_argument("work", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--buckets", type=int, default=14)
    parser.add_argument("--hashes-per-bucket", type=int, default=8)
    parser.add_argument("--ngrams", type=int, default=5)
    args = parser.parse_args()
    config = MinhashConfig(
        n_grams=args.ngrams, num_buckets=args.buckets, hashes_per_bucket=args.hashes_per_bucket
    )
    work = args.work
    # datatrove shards its input by file: one task per file, so that the few large files of a crawl (one
    # per crawl and publish month) do not all land on one worker while the other reads the small ones
    tasks = max(args.workers, len(list(args.ingest.rglob("*.parquet"))))

    def reader() -> ParquetReader:
        # every step reads the same files in the same order: the filter step counts documents by position
        return ParquetReader(str(args.ingest), glob_pattern="**/*.parquet", text_key="text", id_key="id")

    logs = str(work / "logs")
    stages = [
        LocalPipelineExecutor(
            [reader(), MinhashDedupSignature(output_folder=str(work / "signatures"), config=config)],
            tasks=tasks,
            workers=args.workers,
            logging_dir=f"{logs}/signatures",
        ),
        LocalPipelineExecutor(
            [
                MinhashDedupBuckets(
                    input_folder=str(work / "signatures"), output_folder=str(work / "buckets"), config=config
                )
            ],
            tasks=config.num_buckets,
            workers=args.workers,
            logging_dir=f"{logs}/buckets",
        ),
        LocalPipelineExecutor(
            [
                MinhashDedupCluster(
                    input_folder=str(work / "buckets"), output_folder=str(work / "clusters"), config=config
                )
            ],
            tasks=1,
            workers=1,
            logging_dir=f"{logs}/clusters",
        ),
        LocalPipelineExecutor(
            [
                reader(),
                MinhashDedupFilter(
                    input_folder=str(work / "clusters"),
                    exclusion_writer=ParquetWriter(str(work / "removed")),
                ),
                ParquetWriter(str(work / "kept")),
            ],
            tasks=tasks,
            workers=args.workers,
            logging_dir=f"{logs}/filter",
        ),
    ]
    for stage in stages:
        stage.run()


if __name__ == "__main__":
    main()
