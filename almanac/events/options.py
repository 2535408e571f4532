"""Multiple-choice pieces: filtering LLM negatives, shuffling options, the balanced Yes/No of VQA."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from almanac.core.text import fold
from almanac.events.cuts import Event, seeded
from almanac.events.samples import OPTION_LABELS
from almanac.llm.event_outputs import EventArguments, NegativeEvent

COMPARED_ARGUMENTS = ("event_type", "subject", "object", "location")  # the time is the target's anyway


def argument_key(arguments: EventArguments | Event) -> tuple[str, ...]:
    """The folded arguments two events are compared on; all-empty means "nothing to compare"."""
    if isinstance(arguments, EventArguments):
        values = [getattr(arguments, name) for name in COMPARED_ARGUMENTS]
    else:
        values = [str(arguments[name] or "") for name in COMPARED_ARGUMENTS]
    return tuple(fold(value) for value in values)


def true_event_keys(events: Iterable[Event]) -> tuple[set[tuple[str, ...]], set[str]]:
    """Argument keys and folded texts of every event that happened (the whole timeline)."""
    keys, texts = set(), set()
    for event in events:
        key = argument_key(event)
        if any(key):
            keys.add(key)
        texts.add(fold(str(event["text"])))
    return keys, texts


def filter_negatives(
    negatives: Sequence[NegativeEvent], true_keys: set[tuple[str, ...]], true_texts: set[str]
) -> tuple[list[NegativeEvent], int]:
    """Drop negatives that describe something that happened: same arguments or same text as a true event.

    A negative with no arguments at all is judged by its text only; an empty key would otherwise
    match every true event whose arguments are also empty.
    """
    kept = []
    for negative in negatives:
        key = argument_key(negative.arguments)
        if (any(key) and key in true_keys) or fold(negative.text) in true_texts:
            continue
        kept.append(negative)
    return kept, len(negatives) - len(kept)


def shuffled_options(gold: str, negatives: Sequence[str], seed: int, sample_id: str) -> dict[str, Any]:
    """Gold + negatives in an order drawn from (seed, sample id); the gold's place as index and letter."""
    candidates = [gold, *negatives]
    if len(candidates) != len(OPTION_LABELS):
        raise ValueError(f"need {len(OPTION_LABELS) - 1} negatives, got {len(negatives)}")
    order = list(range(len(candidates)))
    seeded(seed, sample_id).shuffle(order)
    answer_index = order.index(0)
    return {
        "options": [candidates[i] for i in order],
        "answer_index": answer_index,
        "answer_label": OPTION_LABELS[answer_index],
    }


def vqa_labels(mcnc_ids: Sequence[str], seed: int, split: str) -> dict[str, tuple[str, ...]]:
    """The VQA labels drawn from each of a split's MCNC samples: exactly as many Yes as No.

    A seeded permutation of the sorted ids gives one half Yes and the other No, so the result depends
    on which samples exist, never on the order they were built in. With an odd count the sample left
    over gives both a Yes and a No sample rather than being dropped.
    """
    ids = sorted(mcnc_ids)
    seeded(seed, "vqa", split).shuffle(ids)
    half = len(ids) // 2
    labels: dict[str, tuple[str, ...]] = {}
    for position, sample in enumerate(ids):
        labels[sample] = ("Yes",) if position < half else ("No",) if position < 2 * half else ("Yes", "No")
    return labels
