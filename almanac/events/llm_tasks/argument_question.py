"""The ``argument_question`` task (item, parser, offline answer) for AQA and MCAC.

Offline: a future question about one argument of the target event.

The target event's clause is turned into a question about the asked argument: its span is replaced by
Who/What (subject; Who when it names a person or an organisation), What (object), Where (location),
When (time) or "What will <subject> do" (event type), with time phrases and side clauses left out:
"The court refused the request on 29 April 2025" asked for its object becomes "What will the court
refuse?". When the clause cannot be used (the value is not in the text, or the question would name the
answer) the question is written from the arguments alone, and as a last resort it is a fixed generic
question per argument. Answer = the argument's value. Wrong answers: see ``event_negatives`` (same label,
same argument, generic values); for the time, other events' dates, then the target's date moved by a
week or a month (day precision), one or two months (month) or one or two years (year).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from almanac.core.nlp import MONTHS, parse
from almanac.core.text import contains_phrase
from almanac.events.llm_tasks.article_category import CATEGORY_NOUNS
from almanac.events.llm_tasks.date_mentions import date_key, event_date, mention_dates
from almanac.events.llm_tasks.event_negatives import Sample, alternatives, distinct, lower_first, read_sample
from almanac.events.llm_tasks.items import sample_variables, target_argument_value
from almanac.events.llm_tasks.replies import (
    ArgumentQuestion,
    EventArguments,
    EventDate,
    TimelineEvent,
    _check_distinct,
    argument_value,
    normalise_event_date,
    strip_list_mark,
)
from almanac.events.llm_tasks.timeline_rules import event_root, is_time_phrase, phrase
from almanac.llm.parsing import ParseError, find_tags, one_tag
from almanac.llm.registry import Task, TaskItem, register

_QUESTION_WORDS = ("who", "what", "when", "where", "which", "how")


def _check_question(question: str) -> None:
    first = re.match(r"^[\W_]*(\w+)", question)
    if first is None or first.group(1).lower() not in _QUESTION_WORDS:
        raise ParseError(
            f"<question> must start with Who, What, When, Where, Which or How, got {question[:40]!r}"
        )
    if not contains_phrase(question, "will"):
        raise ParseError(f"<question> must ask about the future with 'will', got {question[:80]!r}")
    if not question.rstrip("\"'\u201d\u2019 ").endswith("?"):
        raise ParseError(f"<question> must end with a question mark, got {question[-40:]!r}")


def parse_argument_question(text: str, variables: Mapping[str, str]) -> ArgumentQuestion:
    del variables
    question = strip_list_mark(one_tag(text, "question"))
    _check_question(question)
    answer = argument_value(one_tag(text, "answer"))
    if not answer:
        raise ParseError("<answer> must hold the true value, not 'none'")
    if contains_phrase(question, answer):
        raise ParseError(f"the question gives its answer away ({answer[:60]!r}); ask without naming it")
    negatives = [argument_value(negative) for negative in find_tags(text, "negative")]
    if len(negatives) != 3:
        raise ParseError(f"give exactly three <negative> answers, got {len(negatives)}")
    _check_distinct(negatives, answer, "true answer")
    return ArgumentQuestion(question, answer, tuple(negatives))


def argument_question_item(
    item_id: str,
    background: Sequence[TimelineEvent],
    target: TimelineEvent,
    target_arguments: EventArguments,
    argument: str,
    subsequent: Sequence[TimelineEvent],
) -> TaskItem:
    """Raises ``ValueError`` when the target has no value for ``argument`` (check
    :func:`target_argument_value` first): a question without an answer cannot be asked."""
    value = target_argument_value(target, target_arguments, argument)
    if not value:
        raise ValueError(f"target event has no {argument!r} argument to ask about: {target.text[:80]!r}")
    variables = sample_variables(background, target, target_arguments, subsequent)
    return TaskItem(item_id, {**variables, "argument": argument, "argument_value": value})


_AGENT_LABELS = frozenset({"PERSON", "ORG", "NORP"})


_AGENT_NOUNS = (
    dict(CATEGORY_NOUNS)["people"]
    | dict(CATEGORY_NOUNS)["organization"]
    | frozenset({"government", "police", "court", "parliament", "official", "resident", "worker"})
    | frozenset({"member", "crew", "team", "group"})
)


_LEFT_OUT = frozenset({"conj", "cc", "punct", "advcl", "parataxis", "mark", "dep", "npadvmod", "appos"})


GENERIC_QUESTIONS = {
    "subject": "Who will take the next step in this story?",
    "object": "What will the next step in this story concern?",
    "location": "Where will the next development in this story take place?",
    "time": "When will the next development in this story happen?",
    "event_type": "What will happen next in this story?",
}


def argument_question(variables: Mapping[str, str], model: str) -> str:
    sample, argument, answer = read_sample(variables), variables["argument"], variables["argument_value"]
    question = _clause_question(sample, argument, answer, model)
    if not question or contains_phrase(question, answer):
        question = _template_question(sample.arguments, argument, model)
    if contains_phrase(question, answer):
        question = GENERIC_QUESTIONS[argument]
    if argument == "time":
        wrong = _wrong_times(sample, answer)
    else:
        wrong = distinct(alternatives(sample, argument, answer, model), answer, 3)
    negatives = "\n".join(f"<negative>{value}</negative>" for value in wrong)
    return f"<question>{question}</question>\n<answer>{answer}</answer>\n{negatives}"


def _clause_question(sample: Sample, argument: str, answer: str, model: str) -> str:
    doc = parse(sample.target.text, model)
    root = event_root(doc)
    if root is None:
        return ""
    subject = next((child for child in root.children if child.dep_ in ("nsubj", "nsubjpass")), None)
    subject_ids = {token.i for token in subject.subtree} if subject is not None else set()
    actor = lower_first(phrase(subject), model) if subject is not None else ""
    if argument == "subject":
        if subject is None:
            return ""
        return f"{_who(subject)} will {_future_phrase(root, subject_ids)}?"
    if not actor:
        return ""
    if argument == "event_type":
        place = sample.arguments.location
        where = f" in {place}" if place and not contains_phrase(actor, place) else ""
        return f"What will {actor} do{where}?"
    asked = _span_ids(doc, answer) if argument in ("object", "location") else set()
    if argument != "time" and not asked:
        return ""
    if argument == "location":  # drop the whole "in <place>" phrase
        asked |= {token.head.i for token in doc if token.i in asked and token.dep_ == "pobj"}
    word = {"object": "What", "location": "Where", "time": "When"}[argument]
    return f"{word} will {actor} {_future_phrase(root, subject_ids | asked)}?"


def _template_question(arguments: EventArguments, argument: str, model: str) -> str:
    actor = lower_first(arguments.subject, model) or "those involved"
    action = arguments.event_type or "act"
    if argument == "subject":
        place = f" in {arguments.location}" if arguments.location else ""
        return f"Who will {action}{place}?"
    if argument == "object":
        return f"What will {actor} {_verb_only(action, arguments.object)}?"
    if argument == "location":
        return f"Where will {actor} {action}?"
    if argument == "time":
        return f"When will {actor} {action}?"
    return f"What will {actor} do?"


def _verb_only(event_type: str, obj: str) -> str:
    words = event_type.split()
    while len(words) > 1 and contains_phrase(obj, words[-1]):
        words.pop()
    return " ".join(words)


def _who(subject: Any) -> str:
    if (
        subject.pos_ == "PROPN"
        or subject.ent_type_ in _AGENT_LABELS
        or subject.lemma_.lower() in _AGENT_NOUNS
    ):
        return "Who"
    return "What"


def _future_phrase(root: Any, skipped: set[int]) -> str:
    passive = any(child.dep_ == "auxpass" for child in root.children)
    negated = any(child.dep_ == "neg" for child in root.children)
    words = ["not"] if negated else []
    words.append(f"be {root.lower_}" if passive else root.lemma_.lower())
    kept: list[Any] = []
    for child in root.children:
        if child.i < root.i or child.dep_ in _LEFT_OUT or is_time_phrase(child):
            continue
        kept.extend(token for token in child.subtree if token.i not in skipped and not _in_time(token, child))
    kept.sort(key=lambda token: token.i)
    rest = " ".join("".join(token.text_with_ws for token in kept).split())
    return " ".join([*words, rest]).strip(" ,;:")


def _in_time(token: Any, top: Any) -> bool:
    """Inside a time phrase below ``top`` ("the request on 29 April" keeps "the request" only)."""
    for ancestor in [token, *token.ancestors]:
        if ancestor.i == top.i:
            return False
        if is_time_phrase(ancestor):
            return True
    return False


def _span_ids(doc: Any, value: str) -> set[int]:
    start = doc.text.lower().find(value.lower()) if value else -1
    if start < 0:
        return set()
    span = doc.char_span(start, start + len(value), alignment_mode="expand")
    return {token.i for token in span} if span is not None else set()


def _wrong_times(sample: Sample, answer: str) -> list[str]:
    """Other events' dates (same precision first), then dates near the true one, written like the answer."""
    known = sample.target.date.precision != "unknown"
    try:
        stated, style = normalise_event_date(answer), ""
    except ParseError:
        found = mention_dates(answer, None, int(sample.target.date.date[:4]) if known else None)
        stated, style = (found[0] if found else sample.target.date), answer
    dates = [event.date for event in sample.others if event.date.precision != "unknown"]
    dates = [value for value in dates if value.precision == stated.precision] + [
        value for value in dates if value.precision != stated.precision
    ]
    coarsened = [_coarsen(value, stated.precision) for value in (*dates, *_shifted(stated))]
    wrong = [value for value in coarsened if date_key(value) != date_key(stated)]
    return distinct((_written_like(value, style) for value in wrong), answer, 3)


def _coarsen(value: EventDate, precision: str) -> EventDate:
    """``value`` cut to ``precision`` when that is coarser ("2025-06-04" -> "2025-06" for a month)."""
    length = {"year": 4, "month": 7}.get(precision, 10)
    return normalise_event_date(value.date[:length]) if len(value.date) > length else value


def _shifted(when: EventDate) -> list[EventDate]:
    """Nearby dates at the same precision: a week or a month away, one or two months, one or two years."""
    key = date_key(when)
    if key is None:
        return [EventDate(str(year), "year") for year in (2020, 2021, 2022, 2023)]
    year, month, day = key
    if day:
        moved = [date(year, month, day) + timedelta(days=shift) for shift in (7, -7, 30, -30)]
        return [EventDate(value.isoformat(), "day") for value in moved]
    index = year * 12 + month - 1
    shifts = (1, -1, 2, -2)
    found = [event_date((index + shift) // 12, (index + shift) % 12 + 1) for shift in shifts] if month else []
    found = found or [event_date(year + shift) for shift in shifts]
    return [value for value in found if value is not None]


def _written_like(value: EventDate, style: str) -> str:
    """``value`` as ISO text, or in the form of ``style`` ("3 March 2025", "May 14", "June 2025")."""
    if not style:
        return value.date
    parts = [int(part) for part in value.date.split("-")]
    with_year = re.search(r"\d{4}", style) is not None
    if len(parts) == 1:
        return str(parts[0])
    month = MONTHS[parts[1] - 1].capitalize()
    if len(parts) == 2:
        return f"{month} {parts[0]}" if with_year else month
    if style.strip()[:1].isdigit():
        return f"{parts[2]} {month} {parts[0]}" if with_year else f"{parts[2]} {month}"
    return f"{month} {parts[2]}, {parts[0]}" if with_year else f"{month} {parts[2]}"


ARGUMENT_QUESTION = register(
    Task(
        "argument_question",
        item=argument_question_item,
        parse=parse_argument_question,
        offline=argument_question,
    )
)
