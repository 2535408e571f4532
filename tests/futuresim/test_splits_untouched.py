"""The FutureSim question filters never feed back into OpenForesight: the released splits stay as they are."""

from __future__ import annotations

from almanac.core.layout.stages import stage_outputs
from almanac.foresight.recipe import RECIPE as OPENFORESIGHT
from tests.test_recipes import PRODUCERS

FILTERS = ("futuresim_repair", "futuresim_answerability", "futuresim_funnel", "check_futuresim")


def test_the_filters_write_only_their_own_files() -> None:
    for stage in FILTERS:
        for path in stage_outputs(stage).all():
            assert path.parts[:2] == ("data", "futuresim") or path.parts[0] == "reports", (stage, path)
            assert "foresight" not in path.parts, (stage, path)


def test_no_openforesight_stage_reads_what_the_filters_write() -> None:
    for stage in (*OPENFORESIGHT.stages, *OPENFORESIGHT.reports):
        assert not PRODUCERS[stage] & set(FILTERS), stage
