"""The series recipe: its stages in order, the one place that order is written (docs/series.md)."""

from __future__ import annotations

from typing import Final

from almanac.pipeline import futuresim, series
from almanac.pipeline.recipe import Recipe, Step

RECIPE: Final = Recipe(
    "series",
    (
        Step(
            declared=series.INGEST,
            label="ingest",
            does="series files the manifest lists -> one table of values dated by when each became known",
            rejects="almanac.series.ingest",
            unit="series values",
            after=(),
        ),
        Step(
            declared=series.QUESTIONS,
            label="questions",
            does="binary and numeric questions per forecast date and horizon, split by resolution month",
            rejects="almanac.series.release",
            unit="(forecast date, horizon) pairs",
        ),
        Step(
            declared=series.CHECK,
            label="Invariant check",
            does="prompts as of the forecast date, resolutions reproducible, splits; fails the build",
            rejects="almanac.check.series",
            unit="questions",
            after=(series.INGEST, series.QUESTIONS),
            funnel=False,
        ),
    ),
    report_stages=(series.REPORT,),
    # the news context: the questions read the FutureSim index, the check traces chunks to the export
    used=(futuresim.CORPUS, futuresim.INDEX),
)
