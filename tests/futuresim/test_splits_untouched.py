"""The FutureSim question filters never feed back into OpenForesight: the released splits stay as they are."""

from __future__ import annotations

from almanac.foresight.recipe import RECIPE as OPENFORESIGHT
from almanac.pipeline.dag import STEPS_BY_NAME, stage
from tests.test_recipes import PRODUCERS

FILTERS = ("futuresim_repair", "futuresim_answerability", "futuresim_funnel", "check_futuresim")


def test_the_filters_write_only_their_own_files() -> None:
    for name in FILTERS:
        for path in (STEPS_BY_NAME.get(name) or stage(name)).outputs():  # check_futuresim: a step of check
            assert path.parts[:2] == ("data", "futuresim") or path.parts[0] == "reports", (name, path)
            assert "foresight" not in path.parts, (name, path)


def test_no_openforesight_stage_reads_what_the_filters_write() -> None:
    for name in (*OPENFORESIGHT.stages, *OPENFORESIGHT.reports):
        assert not PRODUCERS[name] & set(FILTERS), name
