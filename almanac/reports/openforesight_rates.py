"""Leakage, dedup and question-yield numbers of the OpenForesight report, from the stages' metrics JSON.

Per-month stages (the leakage editor, the yield) are summed over the report's months, which are article
publish months; the question dedup, split and corpus dedup stages run once over every month and are
reported whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import metrics_path
from almanac.reports.foresight_funnel import OPENFORESIGHT_FUNNEL
from almanac.reports.funnel import chained_funnel

LEAK_REASON_PREFIX = "answer_leak_"  # foresight_leakage rejects found by the string re-scan
CORPUS_DUPLICATE_REASONS = ("duplicate_id", "near_duplicate")  # dedup rejects that are duplicates


def leakage_metrics(months: Sequence[str], flagged: int, questions: int) -> dict[str, Any]:
    """Leak flags in the splits, cross-question leaks at split time, and the editor / re-scan counts."""
    split = _stage_json("foresight_split")
    editor = [_stage_json("foresight_leakage", month) for month in months]
    checked = sum(int(m["items_in"]) for m in editor)
    edited = sum(int(m.get("edited_by_llm", 0)) for m in editor)
    by_kind: dict[str, int] = {}
    for month_metrics in editor:
        for reason, n in month_metrics["rejected_by_reason"].items():
            if reason.startswith(LEAK_REASON_PREFIX):
                kind = reason.removeprefix(LEAK_REASON_PREFIX)
                by_kind[kind] = by_kind.get(kind, 0) + int(n)
    dropped = sum(by_kind.values())
    split_checked = int(split["items_in"])
    found = int(split.get("cross_question_leaks", 0))
    return {
        "flagged_in_splits": flagged,
        "flagged_rate": _rate(flagged, questions),
        "cross_question_checked": split_checked,
        "cross_question_found": found,
        "cross_question_dropped": int(split["rejected_by_reason"].get("cross_question_leak", 0)),
        "cross_question_rate": _rate(found, split_checked),
        "editor_checked": checked,
        "editor_edited": edited,
        "editor_edit_rate": _rate(edited, checked),
        "rescan_dropped": dropped,
        "rescan_drop_rate": _rate(dropped, checked),
        "rescan_dropped_by_kind": dict(sorted(by_kind.items())),
    }


def dedup_metrics() -> dict[str, Any]:
    """Near-duplicate questions (foresight_question_dedup) and duplicate articles (corpus dedup)."""
    questions = _stage_json("foresight_question_dedup")
    corpus = _stage_json("dedup")
    reasons = corpus["rejected_by_reason"]
    exact, near = (int(reasons.get(reason, 0)) for reason in CORPUS_DUPLICATE_REASONS)
    # Articles outside the months in scope are dropped by the same stage but are not duplicates.
    in_scope = int(corpus["items_out"]) + exact + near
    return {
        "question_checked": int(questions["items_in"]),
        "question_duplicates": int(questions["rejected"]),
        "question_dedup_rate": _rate(int(questions["rejected"]), int(questions["items_in"])),
        "question_candidate_pairs": int(questions.get("candidate_pairs", 0)),
        "question_verified_pairs": int(questions.get("verified_pairs", 0)),
        "corpus_checked": in_scope,
        "corpus_exact_duplicates": exact,
        "corpus_near_duplicates": near,
        "corpus_dedup_rate": _rate(exact + near, in_scope),
        "corpus_candidate_pairs": int(corpus.get("candidate_pairs", 0)),
        "corpus_verified_pairs": int(corpus.get("verified_pairs", 0)),
    }


def yield_metrics(months: Sequence[str]) -> dict[str, Any]:
    """Articles read, questions generated and questions left after the date checks, for ``months``.

    Uses the OpenForesight funnel of the per-month stages, which also checks that their counts chain
    (each stage read what the previous one handed on) within these months.
    """
    rows = chained_funnel([step for step in OPENFORESIGHT_FUNNEL if step.per_month], months)
    generated = int(rows[0]["count"])
    after_dates = int(rows[-1]["count"])
    return {
        "articles": int(rows[0]["items_in"]),
        "generated": generated,
        "after_dates": after_dates,
        "kept_rate": _rate(after_dates, generated),
    }


def _stage_json(stage: str, month: str | None = None) -> dict[str, Any]:
    path = metrics_path(stage, month)
    if not path.is_file():
        raise FileNotFoundError(f"openforesight report: stage {stage} has no metrics file {path}")
    data = read_json(path)
    assert isinstance(data, dict)
    return data


def _rate(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0
