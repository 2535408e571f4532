"""params ``series.context`` (kept apart from :mod:`almanac.series.context`, which opens the index, so the
other series stages do not import the search)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

QUERY_FIELDS: Final = ("title", "unit", "provider", "series_id")  # question columns a query may join


@dataclass(frozen=True)
class SeriesContextConfig:
    """k is ``futuresim.retrieval.k`` (the same cap as FutureSim's retrieval contexts), not a key here."""

    enabled: bool = True  # false: every question's news_context is empty and no search is made
    query_fields: tuple[str, ...] = ("title",)  # the series' own words, never the question text

    def __post_init__(self) -> None:
        unknown = sorted(set(self.query_fields) - set(QUERY_FIELDS))
        if unknown or not self.query_fields:
            raise ValueError(f"series.context.query_fields {unknown}: choose from {list(QUERY_FIELDS)}")
