"""DVC stage ``futuresim_retrieval``: each released OpenForesight question's top-k chunks under its cut-off,
beside the splits (``data/foresight/retrieval/<split>/<month>.parquet``)."""

from __future__ import annotations

import sys
import time

from almanac.core.io import atomic_dir, read_json, read_parquet, write_parquet
from almanac.core.layout import foresight_retrieval_dir, foresight_splits_dir, futuresim_index_dir
from almanac.core.params import parse_section
from almanac.core.stage import StageError, end_stage, parse_stage_args
from almanac.futuresim.index import MANIFEST
from almanac.futuresim.retrieval import STAGE, RetrievalConfig, index_search, retrieve


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(RetrievalConfig, params.get("futuresim") or {}, "retrieval")
    index_root = futuresim_index_dir()
    if not (index_root / MANIFEST).is_file():
        raise StageError(f"no index in {index_root}: run `dvc repro futuresim_index` first")
    backend = str(read_json(index_root / MANIFEST)["backend"])
    search = index_search(index_root)
    splits = foresight_splits_dir()
    files = sorted(splits.glob("*/*.parquet"))
    questions = chunks = 0
    with atomic_dir(foresight_retrieval_dir()) as staging:
        for path in files:
            rows = read_parquet(path).to_pylist()
            table = retrieve(rows, config, search, backend)
            write_parquet(table, staging / path.relative_to(splits))
            questions += len(rows)
            chunks += sum(1 for rank in table.column("rank").to_pylist() if rank > 0)
    end_stage(STAGE, f"{questions} questions, {chunks} chunks retrieved ({backend})", started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
