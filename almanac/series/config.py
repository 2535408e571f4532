"""params ``series``: the series style's sections, read whole by each series stage."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from almanac.core.params import parse_section
from almanac.series.context_config import SeriesContextConfig
from almanac.series.ingest import SeriesIngestConfig
from almanac.series.questions import SeriesQuestionConfig
from almanac.series.release import SeriesSplitConfig


@dataclass(frozen=True)
class SeriesConfig:
    ingest: SeriesIngestConfig = field(default_factory=SeriesIngestConfig)
    questions: SeriesQuestionConfig = field(default_factory=SeriesQuestionConfig)
    split: SeriesSplitConfig = field(default_factory=SeriesSplitConfig)
    context: SeriesContextConfig = field(default_factory=SeriesContextConfig)


def parse_series(params: Mapping[str, Any]) -> SeriesConfig:
    return parse_section(SeriesConfig, params, "series")
