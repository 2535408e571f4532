"""DVC stage ``dedup``: MinHash-LSH near-duplicate removal over all months in scope.

Reads the per-crawl-month signature files (``dedup_signatures``), bands them, reads back only the texts
of candidate pairs, and writes the kept articles month by month; texts are never all in memory. With
the band index of a previous run (``data/dedup/index``), added crawl months are probed against it and
only changed months are rewritten (almanac.dedup.incremental); the outputs are those of a full rebuild.
"""

from __future__ import annotations

import importlib.abc
import sys
import time
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pyarrow as pa

from almanac.core.layout import dedup_rejects, dedup_signatures, metrics_path
from almanac.core.parallel import RayConfig
from almanac.core.params import ccnews_months, months_in_scope, parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.dedup.incremental import dedup_corpus
from almanac.dedup.near_duplicates import STAGE, DedupConfig, record_selection


class _NoPandas(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def pyarrow_without_pandas() -> None:
    """pyarrow imports pandas the first time it converts Python objects or a numpy array (to check for
    pandas types), ~0.8 CPU s of this stage's ~10 with the garbage collections its import sets off; this
    process never uses pandas. So pyarrow is made to look once while pandas cannot be imported (as where
    it is not installed, which pyarrow supports) and remembers the answer; pandas stays importable, and
    pyarrow's own pandas conversions (``to_pandas``) still import it when called."""
    if "pandas" in sys.modules:
        return
    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(blocker)


def run() -> int:
    started = time.perf_counter()
    pyarrow_without_pandas()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    crawled = ccnews_months(params)
    config = parse_section(DedupConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    missing = [month for month in crawled if not dedup_signatures(month).is_file()]
    if missing:
        print(f"{STAGE}: no signatures for months {missing}; run dedup_signatures first", file=sys.stderr)
        return 1
    # No CC-News month (ccnews_ingest.raw_dir: "") gives an empty corpus on purpose, never a missing one.
    ledger, selection = dedup_corpus(crawled, months, config, ray_config)
    record_selection(ledger, selection)
    ledger.extra["ccnews_months"] = crawled
    finish_stage(ledger, started, dedup_rejects(), metrics_path(STAGE))
    return 0
