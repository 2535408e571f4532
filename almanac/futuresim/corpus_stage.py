"""DVC stage ``futuresim_corpus@<month>``: one month of the corpus as day folders of JSONL and as chunks."""

from __future__ import annotations

import time

from almanac.core.io import write_parquet
from almanac.core.layout import (
    articles_dir,
    futuresim_articles_dir,
    futuresim_chunks,
    futuresim_corpus_rejects,
    metrics_path,
    month_files,
    read_month_articles,
)
from almanac.core.params import parse_section
from almanac.core.rejects import StageLedger
from almanac.core.stage import StageError, finish_stage, parse_stage_args
from almanac.futuresim.corpus import STAGE, CorpusConfig, export_articles, write_day_folders


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(CorpusConfig, params.get("futuresim") or {}, "corpus")
    if not month_files(args.month):
        raise StageError(f"no corpus for {args.month} in {articles_dir()}: run `dvc repro dedup` first")
    articles = read_month_articles(args.month).to_pylist()
    ledger = StageLedger(STAGE)
    exported, chunks = export_articles(articles, config, ledger)
    write_day_folders(exported, futuresim_articles_dir(args.month))
    write_parquet(chunks, futuresim_chunks(args.month))
    finish_stage(ledger, started, futuresim_corpus_rejects(args.month), metrics_path(STAGE, args.month))
    return 0
