"""The ``event_negatives`` task (item, parser, offline answer) for MCNC.

Offline negative events (MCNC), and the candidate values shared with the argument questions.

Candidates draw on the other events of the sample, the later ones first, then the background from the
latest back: values of the same spaCy entity label as the true one (places: any of GPE/LOC/FAC), then
the same argument of those events (their open-event-extraction arguments), then fixed generic values;
never the true value, nothing containing it or contained in it, no two alike.

Negative events replace the subject, object or location of the target (in turn, so the three differ in
what they change) in its text and its arguments, with values from the timeline only, never one the
target already names; the time stays. When the timeline offers too few, the target negated ("does not
resign", "is not lifted") comes next, then the generic values, then fixed rewrites ("Officials deny
reports that ..."). A candidate equal to the target (its text, or its type, subject, object and
location together) or to an earlier negative is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace

from almanac.core.nlp import parse
from almanac.core.text import contains_phrase, fold
from almanac.events.llm_tasks.items import sample_variables
from almanac.events.llm_tasks.replies import (
    ARGUMENT_NAMES,
    EventArguments,
    NegativeEvent,
    TimelineEvent,
    _check_distinct,
    argument_value,
    normalise_event_date,
    read_arguments,
    strip_list_mark,
)
from almanac.events.llm_tasks.timeline_rules import arguments_of, event_root
from almanac.events.llm_tasks.timelines import read_timeline
from almanac.llm.parsing import ParseError, find_tags, one_tag
from almanac.llm.registry import Task, TaskItem, register


def parse_event_negatives(text: str, variables: Mapping[str, str]) -> tuple[NegativeEvent, ...]:
    target = read_arguments(variables["target_arguments"])
    blocks = find_tags(text, "negative")
    if len(blocks) != 3:
        raise ParseError(f"give exactly three <negative> blocks, got {len(blocks)}")
    negatives = []
    changed = ARGUMENT_NAMES[:4]  # the time argument stays the target's
    for number, block in enumerate(blocks, start=1):
        try:
            event_text = strip_list_mark(one_tag(block, "text"))
            values = {name: argument_value(one_tag(block, name, allow_empty=True)) for name in changed}
        except ParseError as error:
            raise ParseError(f"negative {number}: {error}") from None
        arguments = EventArguments(**values, time=target.time)
        if any(getattr(target, name) for name in changed) and all(
            fold(getattr(arguments, name)) == fold(getattr(target, name)) for name in changed
        ):
            raise ParseError(
                f"negative {number} keeps the true event's type, subject, object and location; "
                "replace at least one of them"
            )
        negatives.append(NegativeEvent(event_text, arguments))
    _check_distinct([negative.text for negative in negatives], variables["target_event"], "true event")
    return tuple(negatives)


def event_negatives_item(
    item_id: str,
    background: Sequence[TimelineEvent],
    target: TimelineEvent,
    target_arguments: EventArguments,
    subsequent: Sequence[TimelineEvent],
) -> TaskItem:
    return TaskItem(item_id, sample_variables(background, target, target_arguments, subsequent))


_PLACES = frozenset({"GPE", "LOC", "FAC"})


GENERIC_VALUES = {
    "subject": (
        "the government",
        "the opposition",
        "an international organisation",
        "local residents",
        "someone else",
    ),
    "object": (
        "a new proposal",
        "the previous agreement",
        "an emergency measure",
        "a formal complaint",
        "something else",
    ),
    "location": (
        "the capital",
        "a neighbouring country",
        "the border region",
        "an undisclosed location",
        "abroad",
    ),
    "event_type": ("postpone a decision", "withdraw", "take no action", "call for talks", "wait"),
}


@dataclass(frozen=True)
class Sample:
    target: TimelineEvent
    arguments: EventArguments
    others: tuple[TimelineEvent, ...]  # later events first, then the background from the latest back


def read_sample(variables: Mapping[str, str]) -> Sample:
    target = TimelineEvent(variables["target_event"], normalise_event_date(variables["target_date"]))
    later = read_timeline(variables["subsequent_events"])
    earlier = read_timeline(variables["background"])
    return Sample(target, read_arguments(variables["target_arguments"]), (*later, *reversed(earlier)))


def _key(value: str) -> str:
    words = fold(value).split()
    return " ".join(words[1:] if words[:1] == ["the"] else words)


def _label(value: str, text: str, model: str) -> str:
    """The entity label of ``value`` as it occurs in ``text`` (or on its own); "" when it is no entity."""
    for ent in (*parse(text, model).ents, *parse(value, model).ents):
        if _key(ent.text) == _key(value):
            return "PLACE" if ent.label_ in _PLACES else str(ent.label_)
    return ""


def alternatives(
    sample: Sample, argument: str, value: str, model: str, generic: bool = True
) -> Iterator[str]:
    """Candidate replacements for ``value`` in the order of the module docstring, unfiltered."""
    label = _label(value, sample.target.text, model) or ("PLACE" if argument == "location" else "")
    if label:
        for event in sample.others:
            for ent in parse(event.text, model).ents:
                if ent.label_ == label or (label == "PLACE" and ent.label_ in _PLACES):
                    yield ent.text.removesuffix("'s").removesuffix("\u2019s")
    for event in sample.others:
        yield getattr(arguments_of(event.text, event.date, model), argument)
    if generic:
        yield from GENERIC_VALUES.get(argument, ())


def distinct(candidates: Iterable[str], true_value: str, limit: int) -> list[str]:
    chosen: list[str] = []
    keys = {_key(true_value)}
    for candidate in candidates:
        key = _key(candidate)
        if (
            not key
            or key in keys
            or contains_phrase(candidate, true_value)
            or contains_phrase(true_value, candidate)
        ):
            continue
        keys.add(key)
        chosen.append(candidate)
        if len(chosen) == limit:
            break
    return chosen


def lower_first(text: str, model: str) -> str:
    """Lower-case the opening word unless it is a name: "The court" -> "the court", "Parliament" stays."""
    doc = parse(text, model) if text else None
    if doc is None or len(doc) == 0 or doc[0].pos_ == "PROPN" or (doc[0].text.isupper() and len(doc[0]) > 1):
        return text
    return text[:1].lower() + text[1:]


def event_negatives(variables: Mapping[str, str], model: str) -> str:
    sample = read_sample(variables)
    made: list[tuple[str, EventArguments]] = []
    seen = {fold(sample.target.text)}
    true_core = _core(sample.arguments)
    for text, arguments in _negative_candidates(sample, model):
        if fold(text) and fold(text) not in seen and _core(arguments) != true_core:
            seen.add(fold(text))
            made.append((text, arguments))
            if len(made) == 3:
                break
    return "\n".join(_render_negative(text, arguments) for text, arguments in made)


def _core(arguments: EventArguments) -> tuple[str, ...]:
    return tuple(fold(getattr(arguments, name)) for name in ("event_type", "subject", "object", "location"))


def _negative_candidates(sample: Sample, model: str) -> Iterator[tuple[str, EventArguments]]:
    text, arguments = sample.target.text, sample.arguments
    yield from _swaps(sample, model, generic=False)
    negated = _negated(text, model)
    if negated:
        flipped = (
            arguments.event_type.removeprefix("not ")
            if arguments.event_type.startswith("not ")
            else f"not {arguments.event_type}".strip()
        )
        yield negated, replace(arguments, event_type=flipped)
    yield from _swaps(sample, model, generic=True)
    story = lower_first(text.rstrip(". "), model)
    yield (
        f"Officials deny reports that {story}.",
        EventArguments("deny report", "officials", story, "", arguments.time),
    )
    yield (
        f"Plans for the following are dropped: {story}.",
        EventArguments("drop plan", "", "plans", "", arguments.time),
    )
    yield (
        f"Nothing comes of the expectation that {story}.",
        EventArguments("come to nothing", "", story, "", arguments.time),
    )


def _swaps(sample: Sample, model: str, generic: bool) -> Iterator[tuple[str, EventArguments]]:
    """The target with its subject, object or location replaced, taking the three in turn."""
    text, arguments = sample.target.text, sample.arguments
    pools = {}
    for name in ("subject", "object", "location"):
        value = getattr(arguments, name)
        if value and value.lower() in text.lower():
            found = (
                GENERIC_VALUES[name] if generic else alternatives(sample, name, value, model, generic=False)
            )
            # Nothing the event already names: "the alert level raised the alert level" is no event.
            fresh = (other for other in found if not contains_phrase(text, _key(other)))
            pools[name] = distinct(fresh, value, 6)
    for rank in range(max((len(pool) for pool in pools.values()), default=0)):
        for name, pool in pools.items():
            if rank < len(pool):
                value = getattr(arguments, name)
                yield _swap(text, value, pool[rank], model), replace(arguments, **{name: pool[rank]})


def _swap(text: str, old: str, new: str, model: str) -> str:
    start = text.lower().find(old.lower())
    if text[:start].lower().endswith("the ") and new.lower().startswith("the "):
        new = new[4:]  # "the Norvale assembly" -> "the Harlow Ridge assembly", not "the the ..."
    new = new[:1].upper() + new[1:] if start == 0 else lower_first(new, model)
    return text[:start] + new + text[start + len(old) :]


def _negated(text: str, model: str) -> str:
    """The event denied: "resigns" -> "does not resign", "is lifted" -> "is not lifted"; or affirmed."""
    doc = parse(text, model)
    root = event_root(doc)
    if root is None:
        return ""
    words = [token.text_with_ws for token in doc]
    negation = next((child for child in root.children if child.dep_ == "neg"), None)
    auxiliary = next(
        (child for child in root.children if child.dep_ in ("aux", "auxpass") and child.i < root.i), None
    )
    if negation is not None:
        words[negation.i] = ""
    elif auxiliary is not None:
        words[auxiliary.i] = f"{auxiliary.text} not{auxiliary.whitespace_ or ' '}"
    else:
        helper = {"VBZ": "does not ", "VBD": "did not ", "VBP": "do not "}.get(root.tag_, "not ")
        verb = root.lemma_ if helper != "not " else root.text
        words[root.i] = f"{helper}{verb}{root.whitespace_}"
    return " ".join("".join(words).split())


def _render_negative(text: str, arguments: EventArguments) -> str:
    fields = "".join(
        f"<{name}>{getattr(arguments, name) or 'none'}</{name}>"
        for name in ("event_type", "subject", "object", "location")
    )
    return f"<negative><text>{text}</text>{fields}</negative>"


EVENT_NEGATIVES = register(
    Task("event_negatives", item=event_negatives_item, parse=parse_event_negatives, offline=event_negatives)
)
