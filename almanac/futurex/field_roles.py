"""What a forecaster sees of a released FutureX tier question: the role of each column (beside ``schema.py``;
kept apart so the build stages that import the schema do not depend on the release roles)."""

from __future__ import annotations

from almanac.core.field_roles import Role

# What a forecaster sees of a tier question (undeclared columns are provenance). The options and the unit
# are part of the question; sigma is a share of the answer (or its recent variation), so it is answer
# material, as are the distractors' sources (they single out the gold option).
FIELD_ROLES: dict[str, Role] = {
    "question": "prompt",
    "background": "prompt",
    "options": "prompt",
    "unit": "prompt",
    "information_cutoff": "prompt",
    "answers": "answer",
    "aliases": "answer",
    "value": "answer",
    "answer_type": "answer",
    "answer_class": "answer",
    "resolution_date": "answer",
    "sigma": "answer",
    "distractor_sources": "answer",
    "question_id": "provenance",
    "level": "provenance",
    "tier": "provenance",
    "event_id": "provenance",
    "origin": "provenance",
    "source_id": "provenance",
    "news_source": "provenance",
    "source_day": "provenance",
    "resolution_source": "provenance",
    "volatility": "provenance",
    "sigma_source": "provenance",
    "cross_style_duplicate": "provenance",
}
