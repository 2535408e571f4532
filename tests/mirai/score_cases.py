"""Queries and log values worked out by hand, shared by the scorer tests."""

from __future__ import annotations

from typing import Any

LN_1E10 = 23.0258509
HALF_MISSING = 0.5 * -0.6931472 + 0.5 * 22.3327037  # 0.5 ln(0.5 / 1) + 0.5 ln(0.5 / 1e-10) = 10.8197783


def _query(query_id: str, answers: list[str]) -> dict[str, Any]:
    return {"query_id": query_id, "answers": answers, "answer_roots": sorted({a[:2] for a in answers})}
