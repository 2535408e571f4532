"""Record schemas of the six OpenForecast-style tasks (one Parquet per task, and per task and split).

A sample is cut out of one complex event's timeline at a day T_k (``cut_date``): the atomic events
whose date interval ends before T_k are the background X shown to a forecaster, those whose interval
starts on or after T_k the targets Y it has to predict (undated events and intervals that hold T_k
without starting on it are in neither). All samples of a complex event are in one split. Every
task shares the common columns below; the task-specific columns follow. Events are whole
atomic-event records (``ATOMIC_EVENT_TYPE``: text, date, date precision, arguments), so a user can
render X and Y in any prompt format.
"""

from __future__ import annotations

from datetime import date

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.events.schema import ATOMIC_EVENT_TYPE

TASKS = ("stf", "ltf", "aqa", "mcnc", "mcac", "vqa")
SPLITS = ("train", "validation", "test")
OPTION_LABELS = ("A", "B", "C", "D")  # options of MCNC / MCAC, in their shuffled order
VQA_LABELS = ("Yes", "No")


def sample_id(task: str, ce_id: str, cut_date: date, *target: str) -> str:
    """content_id(task, complex event, cut day, task-specific target parts): stable across reruns."""
    return content_id(task, ce_id, cut_date.isoformat(), *target)


COMMON_FIELDS = [
    pa.field("sample_id", pa.string(), nullable=False),  # sample_id(task, ce_id, cut_date, target...)
    pa.field("task", pa.string(), nullable=False),  # stf | ltf | aqa | mcnc | mcac | vqa
    pa.field("split", pa.string(), nullable=False),  # train | validation | test: the complex event's
    pa.field("ce_id", pa.string(), nullable=False),  # the complex event (timelines.parquet)
    pa.field("origin", pa.string(), nullable=False),  # wikipedia | wcep
    pa.field("ce_title", pa.string(), nullable=False),  # article title or WCEP story name
    pa.field("topic", pa.string(), nullable=False),  # one of the WCEP categories (EVENT_TOPICS)
    pa.field("cut_date", pa.date32(), nullable=False),  # T_k: a day on which some atomic event is dated
    # X: the timeline's events whose whole date interval ends before T_k, in timeline order.
    pa.field("background", pa.list_(ATOMIC_EVENT_TYPE), nullable=False),
]
# Which model and prompt wrote the LLM-made parts (question, answer, negatives) of a sample.
LLM_FIELDS = [
    pa.field("model", pa.string(), nullable=False),
    pa.field("prompt_version", pa.string(), nullable=False),
]
# The event a question is about (AQA / MCAC) or the gold option (MCNC): one event of the targets Y.
TARGET_FIELD = pa.field("target", ATOMIC_EVENT_TYPE, nullable=False)
# MCNC / MCAC options: four strings in shuffled order, exactly one of them right.
OPTION_FIELDS = [
    pa.field("options", pa.list_(pa.string()), nullable=False),
    pa.field("answer_index", pa.int8(), nullable=False),  # 0-based position of the gold option
    pa.field("answer_label", pa.string(), nullable=False),  # the same position as a letter A-D
]

TARGETS_FIELDS = [
    # STF: the events of Y dated exactly T_k (day precision). LTF: all of Y, in timeline order.
    # Targets stop before the first event whose interval is not wholly inside the split's window
    # (and every event after it), so no label of a split lies in a later split's period.
    pa.field("targets", pa.list_(ATOMIC_EVENT_TYPE), nullable=False),
    pa.field("targets_trimmed", pa.int32(), nullable=False),  # events of Y left out by that rule
]

SAMPLE_SCHEMAS: dict[str, pa.Schema] = {
    "stf": pa.schema([*COMMON_FIELDS, *TARGETS_FIELDS]),
    "ltf": pa.schema([*COMMON_FIELDS, *TARGETS_FIELDS]),
    "aqa": pa.schema(
        [
            *COMMON_FIELDS,
            TARGET_FIELD,
            pa.field(
                "argument", pa.string(), nullable=False
            ),  # event_type | subject | object | location | time
            pa.field("question", pa.string(), nullable=False),  # "Who/What/When/Where will ...?"
            pa.field("answer", pa.string(), nullable=False),  # the gold value of that argument
            *LLM_FIELDS,
        ]
    ),
    "mcnc": pa.schema(
        [
            *COMMON_FIELDS,
            TARGET_FIELD,
            *OPTION_FIELDS,  # the gold event's text + three real events of other timelines of the split
            # Candidate negatives refused because they fuzzily match an event of this timeline (a
            # reworded true event): token-set ratio >= event_tasks.negatives.fuzzy_threshold.
            pa.field("negatives_discarded", pa.int32(), nullable=False),
            *LLM_FIELDS,
        ]
    ),
    "mcac": pa.schema(
        [
            *COMMON_FIELDS,
            TARGET_FIELD,
            pa.field("argument", pa.string(), nullable=False),
            pa.field("question", pa.string(), nullable=False),  # the AQA question of the same cut
            *OPTION_FIELDS,  # the gold answer + three wrong values of the same kind
            pa.field("answer", pa.string(), nullable=False),  # = options[answer_index]
            *LLM_FIELDS,
        ]
    ),
    "vqa": pa.schema(
        [
            *COMMON_FIELDS,
            pa.field(
                "candidate", pa.string(), nullable=False
            ),  # one MCNC option: the gold event or a negative
            pa.field("label", pa.string(), nullable=False),  # Yes (gold) | No, by a seeded coin
            pa.field("mcnc_sample_id", pa.string(), nullable=False),  # the MCNC sample it was drawn from
            *LLM_FIELDS,
        ]
    ),
}
