"""DVC stage ``gdelt_articles``: the text behind each clean GDELT event URL, found and cleaned."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import (
    gdelt_articles,
    gdelt_articles_rejects,
    gdelt_clean_events,
    metrics_path,
    read_corpus,
)
from almanac.core.lazy import lazy_module
from almanac.core.params import months_in_scope, parse_section
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.gdelt.articles import (
    NO_TEXT_FOUND,
    ORIGINS,
    QUALITY_REASONS,
    STAGE,
    GdeltArticlesConfig,
    link_articles,
    load_config_lists,
)
from almanac.gdelt.clean import CLEAN_EVENT_SCHEMA

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(GdeltArticlesConfig, params, STAGE)
    corpus = read_corpus(months_in_scope(params))
    events = read_parquet(gdelt_clean_events(), CLEAN_EVENT_SCHEMA)
    urls = sorted(pc.unique(events.column("url")).to_pylist())
    flagged, archive = load_config_lists(config, urls)
    ledger = StageLedger(STAGE)
    # fetcher=None: with fetch enabled, link_articles opens (and closes) its own HTTP fetcher.
    articles = link_articles(urls, corpus, config, None, ledger, archive=archive, flagged=flagged)
    by_reason = ledger.rejected_by_reason
    linked_by = ledger.extra.get("linked_by", {})
    ledger.extra["linked_by"] = {origin: linked_by.get(origin, 0) for origin in ORIGINS}
    ledger.extra["linked"] = sum(linked_by.values())
    ledger.extra[NO_TEXT_FOUND] = by_reason.get(NO_TEXT_FOUND, 0)
    ledger.extra["cleaned_out"] = {reason: by_reason.get(reason, 0) for reason in QUALITY_REASONS}
    ledger.extra["flagged_words"] = len(flagged)
    ledger.extra["archive_files"] = archive.files
    ledger.extra["archive_duplicate_records"] = archive.duplicate_records
    ledger.extra["archive_relabelled_pages"] = archive.relabelled_pages
    ledger.extra["archive_damaged_files"] = dict(sorted(archive.file_problems.items()))
    write_parquet(articles, gdelt_articles())
    finish_stage(ledger, started, gdelt_articles_rejects(), metrics_path(STAGE))
    return 0
