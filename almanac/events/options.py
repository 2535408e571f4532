"""Multiple-choice pieces: filtering LLM negatives, shuffling options, the Yes/No draw of VQA."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from almanac.core.text import fold
from almanac.events.cuts import Event, seeded
from almanac.events.llm_tasks.replies import EventArguments, NegativeEvent
from almanac.events.samples import OPTION_LABELS

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


def vqa_candidate(gold: str, negatives: Sequence[str], seed: int, mcnc_id: str, yes: bool) -> tuple[str, str]:
    """(label, candidate) of the one VQA sample drawn from an MCNC sample (OpenForecast 4.3).

    The paper picks "the gold answer or one negative candidate" at random. Here the Yes/No label is
    given by the caller, balanced over the task (a seeded order takes Yes and No in turn), so that
    "always Yes" scores one half; a No sample's candidate is a seeded choice among the negatives given
    (the build gives one: :func:`almanac.events.distractors.hardest_negative`).
    """
    if yes:
        return "Yes", gold
    return "No", seeded(seed, mcnc_id, "vqa").choice(list(negatives))
