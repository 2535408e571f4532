"""Whole-dataset leakage and duplicate counts of the OpenForecast branch, read from its stages' metrics.

The complex-event stages run once over every month, so these numbers do not depend on the report's
month; the report shows them next to the same checks measured on the released rows in scope.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import METRICS

# event_split rejects that would otherwise leak the future into a sample or a split.
LEAKAGE_REASONS = (
    "background_after_cut",
    "background_names_late_date",
    "target_after_test_start",  # the pre-issue-13 name of target_outside_window, kept for old metrics
    "target_outside_window",
    "target_before_cut",
    "undated_event",
    "complex_event_in_two_splits",
    "split_mismatch",
    "unknown_split",
)
CheckRow = tuple[str, str, int, int | None, float | None]  # check, scope, count, out of, rate


def _metrics_file(metrics_dir: Path, stage: str) -> dict[str, Any]:
    data = read_json(metrics_dir / f"{stage}.json")
    assert isinstance(data, dict)
    return data


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def pipeline_leakage(metrics_dir: Path = METRICS) -> dict[str, Any]:
    """Whole-dataset leakage guards from the event_tasks and event_split metrics."""
    tasks, split = _metrics_file(metrics_dir, "event_tasks"), _metrics_file(metrics_dir, "event_split")
    reasons = split.get("rejected_by_reason", {})
    rejects = {reason: int(reasons.get(reason, 0)) for reason in LEAKAGE_REASONS}
    return {
        "ltf_samples_with_trimmed_targets": int(tasks.get("samples_with_trimmed_targets", 0)),
        "target_events_trimmed": int(tasks.get("targets_trimmed", 0)),
        "cuts_outside_split_windows": int(tasks.get("cuts", {}).get("outside_split_windows", 0)),
        "split_rejects": rejects,
        "split_samples_checked": int(split["items_in"]),
        "split_reject_rate": _rate(sum(rejects.values()), int(split["items_in"])),
    }


def pipeline_dedup(metrics_dir: Path = METRICS) -> dict[str, Any]:
    """Whole-dataset duplicate counts: WCEP events, timeline events, MCNC negatives, sample ids."""
    complex_events = _metrics_file(metrics_dir, "complex_events")
    timeline = _metrics_file(metrics_dir, "event_timeline")
    tasks, split = _metrics_file(metrics_dir, "event_tasks"), _metrics_file(metrics_dir, "event_split")
    duplicate_events = int(complex_events.get("rejected_by_reason", {}).get("duplicate_event", 0))
    generated, discarded = int(tasks.get("negatives_generated", 0)), int(tasks.get("negatives_discarded", 0))
    duplicate_ids = int(split.get("rejected_by_reason", {}).get("duplicate_sample_id", 0))
    return {
        "wcep_duplicate_events": duplicate_events,
        "complex_events_items_in": int(complex_events["items_in"]),
        "wcep_duplicate_rate": _rate(duplicate_events, int(complex_events["items_in"])),
        "timeline_duplicate_events_dropped": int(timeline.get("duplicate_events_dropped", 0)),
        "mcnc_negatives_generated": generated,
        "mcnc_negatives_discarded": discarded,
        "mcnc_negative_discard_rate": _rate(discarded, generated),
        "mcnc_too_few_negatives": int(tasks.get("rejected_by_reason", {}).get("too_few_negatives", 0)),
        "duplicate_sample_ids": duplicate_ids,
        "duplicate_sample_id_rate": _rate(duplicate_ids, int(split["items_in"])),
    }


def leakage_checks(leakage: dict[str, Any]) -> list[CheckRow]:
    released, pipeline = leakage["released"], leakage["pipeline"]
    checked = pipeline["split_samples_checked"]
    return [
        *(
            (
                f"{'STF+LTF' if task == 'all' else task.upper()} samples with trimmed targets",
                "released",
                counts["samples_with_trimmed_targets"],
                counts["samples_checked"],
                counts["trimmed_rate"],
            )
            for task, counts in released.items()
        ),
        ("Target events trimmed", "released", released["all"]["target_events_trimmed"], None, None),
        (
            "LTF samples with trimmed targets",
            "pipeline",
            pipeline["ltf_samples_with_trimmed_targets"],
            None,
            None,
        ),
        ("Cuts outside the split windows", "pipeline", pipeline["cuts_outside_split_windows"], None, None),
        *(
            (f"event_split rejects: {reason}", "pipeline", count, checked, _rate(count, checked))
            for reason, count in pipeline["split_rejects"].items()
        ),
    ]


def dedup_checks(dedup: dict[str, Any]) -> list[CheckRow]:
    released, pipeline = dedup["released"], dedup["pipeline"]
    return [
        ("Repeated sample ids", "released", released["duplicate_sample_ids"], None, None),
        (
            "MCNC negatives discarded (kept samples)",
            "released",
            released["mcnc_negatives_discarded"],
            None,
            None,
        ),
        (
            "WCEP events seen twice",
            "pipeline",
            pipeline["wcep_duplicate_events"],
            pipeline["complex_events_items_in"],
            pipeline["wcep_duplicate_rate"],
        ),
        (
            "Timeline events dropped as repeats",
            "pipeline",
            pipeline["timeline_duplicate_events_dropped"],
            None,
            None,
        ),
        (
            "MCNC candidate negatives matching a true event (fuzzy)",
            "pipeline",
            pipeline["mcnc_negatives_discarded"],
            pipeline["mcnc_negatives_generated"],
            pipeline["mcnc_negative_discard_rate"],
        ),
        (
            "MCNC samples rejected: too few negatives",
            "pipeline",
            pipeline["mcnc_too_few_negatives"],
            None,
            None,
        ),
        ("Sample ids released twice (rejected)", "pipeline", pipeline["duplicate_sample_ids"], None, None),
    ]
