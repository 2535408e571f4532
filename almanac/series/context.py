"""News context of a series question (issue 29 item 3): the top-k chunks of the date-gated FutureSim index
available by its forecast date, the same search and the same cap as FutureSim's retrieval contexts.

The gate: a chunk is shown only when its article's whole publication interval ends on or before the
forecast date F (the index keys every chunk by that end, :func:`almanac.futuresim.dates.leak_free_day`, and
:func:`almanac.futuresim.search.search_chunks` puts ``available_day <= F`` into the index query itself).
F, not the resolution date: the prompt's figures are those known on F, so is the news. The cap: at most
``futuresim.retrieval.k`` chunks, each a chunk of ``futuresim.corpus.chunk_tokens`` tokens at most (the
index holds nothing longer). The query is the series' own words (``series.context.query_fields``), never
the question, which names the resolution date and a figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

import pyarrow as pa

from almanac.core.params import parse_section
from almanac.futuresim.retrieval import RetrievalConfig, Search
from almanac.futuresim.search import SearchHit
from almanac.series.context_config import QUERY_FIELDS, SeriesContextConfig
from almanac.series.release import CONTEXT_CHUNK


def retrieval_k(params: Mapping[str, Any]) -> int:
    """``futuresim.retrieval.k``: chunks per question, for OpenForesight's contexts and the series'."""
    return parse_section(RetrievalConfig, params.get("futuresim") or {}, "retrieval").k


def context_query(question: Mapping[str, Any], fields: Sequence[str]) -> str:
    return " ".join(str(question.get(name) or "").strip() for name in fields).strip()


def add_context(
    tables: Mapping[Any, pa.Table], config: SeriesContextConfig, k: int, search: Search | None
) -> dict[Any, pa.Table]:
    """Each table with ``news_query`` and ``news_context`` (the chunks, best first; empty when none is
    available by the forecast date, or with the context disabled). One search per (query, forecast date):
    a series' binary and numeric questions of every horizon asked on one day share their context."""
    if k < 1:
        raise ValueError(f"futuresim.retrieval.k must be >= 1, got {k}")
    found: dict[tuple[str, date], list[dict[str, Any]]] = {}
    out: dict[Any, pa.Table] = {}
    for key, table in tables.items():
        queries, contexts = [], []
        for question in table.select(["forecast_date", *QUERY_FIELDS]).to_pylist():
            query = context_query(question, config.query_fields) if config.enabled else ""
            forecast: date = question["forecast_date"]
            if (query, forecast) not in found:
                hits = search(query, forecast, k) if query and search is not None else []
                found[(query, forecast)] = [_chunk(rank, hit) for rank, hit in enumerate(hits[:k], start=1)]
            queries.append(query)
            contexts.append(found[(query, forecast)])
        with_query = table.set_column(
            table.schema.get_field_index("news_query"), table.schema.field("news_query"), [queries]
        )
        out[key] = with_query.set_column(
            table.schema.get_field_index("news_context"),
            table.schema.field("news_context"),
            pa.array(contexts, type=pa.list_(CONTEXT_CHUNK)),
        )
    return out


def _chunk(rank: int, hit: SearchHit) -> dict[str, Any]:
    return {**hit.columns(), "rank": rank}


def context_counts(tables: Mapping[Any, pa.Table]) -> dict[str, int]:
    """Questions with a non-empty context and chunks shown, for the stage's metrics and the report."""
    with_context = chunks = 0
    for table in tables.values():
        for context in table.column("news_context").to_pylist():
            with_context += bool(context)
            chunks += len(context)
    return {"questions_with_news_context": with_context, "news_context_chunks": chunks}
