"""Moved: Table-1 is almanac.reports.foresight_funnel, over the one funnel (almanac.reports.funnel).

Re-exported under the old names (``FunnelStage`` is ``almanac.reports.funnel.FunnelStep``) for code that
still imports them from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from almanac.reports.foresight_funnel import (
    OPENFORESIGHT_FUNNEL,
    answer_type_rows,
    funnel_markdown,
    funnel_metrics,
    split_rows,
)
from almanac.reports.funnel import FunnelStep as FunnelStage
from almanac.reports.funnel import chained_funnel


def funnel_rows(metrics_dir: Path, months: list[str], stages: Sequence[FunnelStage]) -> list[dict[str, Any]]:
    """The old signature of ``almanac.reports.funnel.chained_funnel``."""
    return chained_funnel(stages, months, metrics_dir)


__all__ = [
    "OPENFORESIGHT_FUNNEL",
    "FunnelStage",
    "answer_type_rows",
    "funnel_markdown",
    "funnel_metrics",
    "funnel_rows",
    "split_rows",
]
