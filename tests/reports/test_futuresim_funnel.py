"""The FutureSim funnel, from hand-written stage metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from almanac.reports.futuresim_funnel import futuresim_funnel


def _metrics(folder: Path, stage: str, items_in: int, by_reason: dict[str, int]) -> None:
    rejected = sum(by_reason.values())
    record = {"items_in": items_in, "items_out": items_in - rejected, "rejected": rejected}
    (folder / f"{stage}.json").write_text(json.dumps({**record, "rejected_by_reason": by_reason}))


def test_funnel_counts_shares_and_reasons(tmp_path: Path) -> None:
    _metrics(tmp_path, "futuresim_repair", 10, {"repaired_before_split_start": 2})
    _metrics(tmp_path, "futuresim_answerability", 8, {"answerable_too_early": 1, "likely_label_noise": 3})
    markdown, metrics = futuresim_funnel(tmp_path, [])
    assert "| Released OpenForesight questions | 10 |" in markdown
    assert "| Date repair | 8 (80.0%) |" in markdown and "| Answerability | 4 (40.0%) |" in markdown
    assert "| Answerability | likely_label_noise | 3 |" in markdown
    assert metrics["released"] == 10 and metrics["final"] == 4
    assert [stage["share"] for stage in metrics["stages"]] == [0.8, 0.4]


def test_a_funnel_that_does_not_chain_is_an_error(tmp_path: Path) -> None:
    _metrics(tmp_path, "futuresim_repair", 10, {})
    _metrics(tmp_path, "futuresim_answerability", 9, {})  # one question lost between the stages
    with pytest.raises(ValueError, match="do not chain"):
        futuresim_funnel(tmp_path, [])
