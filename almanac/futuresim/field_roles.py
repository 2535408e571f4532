"""What a forecaster sees of a released FutureSim question: the role of each column (beside ``schema.py``;
kept apart so the build stages that import the schema do not depend on the release roles)."""

from __future__ import annotations

from almanac.core.field_roles import Role
from almanac.foresight.schema import FIELD_ROLES as OPENFORESIGHT_ROLES

# What a forecaster sees of a FutureSim question: an OpenForesight question's roles, plus the repair's
# columns. The original resolution date and how far the repair moved it both date the outcome.
FIELD_ROLES: dict[str, Role] = {
    **OPENFORESIGHT_ROLES,
    "resolution_date_original": "answer",
    "repair_moves": "answer",
    "repair_model": "provenance",
    "answerability_model": "provenance",
}
