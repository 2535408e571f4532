"""The offline timeline rules shared by the timeline and argument tasks.

Timelines: dated sentences as atomic events, merged by date, plus open event extraction.

Extraction: each paragraph is split into sentences and each sentence at its semicolons into clauses;
a clause that states a resolvable date (day, month or year; relative dates read against the document
date) becomes one event, in order of appearance, its text the clause with whitespace collapsed and a
leading "18 March 2025 - " list label removed. Its date is its first mention of the finest precision
stated; a clause without a date of its own takes the date of the clause before it in the same
sentence, and with a document date every sentence of the first paragraph (a WCEP summary) is dated
that day. A date after the document date marks a plan, not an event: such a clause is skipped (in the
first paragraph it is dated the document date instead). Skipped too: headings, questions, sentences
opening with a quotation, fragments under four words, statements of state rather than happening (root
"be"/"have" or no verb), modal or planned ones ("will", "is expected to"), and repeats of an event
already extracted (the coverage test below).

Complement: the news is extracted the same way; an event counts as already covered when its content
lemmas overlap an existing event's by Jaccard >= 0.5; each new one goes before the first event of a
later (effective) date, undated ones at the end. Existing events keep their text, date and order.
Re-order: a stable sort on the effective date, an undated event carrying the date of the one before it.

Arguments (spaCy dependency parse of each event text): event_type = the root verb's lemma ("be" +
participle when passive, "not" when negated) with its particle and its direct object's head noun as
written (compounds and an "of" complement kept; names and pronouns left out: "declare state of
emergency", "collect pellets"); subject = the nsubj/nsubjpass phrase; object = the direct object, else
the attribute, else the first prepositional object that is not a date or the location (phrases without
relative clauses, appositions and time phrases); location = the first GPE/LOC/FAC entity; time = the
first DATE entity that names a date ("30 May", not "weeks").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from functools import lru_cache
from typing import Any

from almanac.core.nlp import parse
from almanac.events.llm_tasks.date_mentions import (
    date_key,
    heading_text,
    hypothetical,
    is_date_label,
    mention_dates,
    read_dates,
    title_year,
)
from almanac.events.llm_tasks.replies import EventArguments, EventDate, TimelineEvent

COVERED_JACCARD = 0.5


MIN_WORDS = 4


_PRECISION_RANK = {"day": 3, "month": 2, "year": 1}


_DATE_LABEL = re.compile(r"^(.{1,30}?)\s*(?:[\u2013\u2014:]|\s-)\s+")  # "18 March 2025 - ..." list labels


_STATE_VERBS = frozenset({"be", "have"})


_PLAN_VERBS = frozenset({"expect", "plan", "intend", "hope", "aim", "propose", "schedule"})


_QUOTES = ('"', "\u201c", "'", "\u2018")


_DROPPED_IN_PHRASES = frozenset({"relcl", "acl", "appos", "parataxis", "advcl"})


_SEPARATORS = frozenset({",", ";", ":", "(", ")", '"', "\u201c", "\u201d", "\u2013", "\u2014"})


_PLACES = frozenset({"GPE", "LOC", "FAC"})


_TIMES = frozenset({"DATE", "TIME"})


def document_day(raw: str) -> date | None:
    return None if raw.strip().lower() == "unknown" else date.fromisoformat(raw.strip())


def extract_events(text: str, title: str, document_date: date | None, model: str) -> list[TimelineEvent]:
    """Dated clauses of ``text`` in order of appearance (the rules in the module docstring)."""
    context_year = document_date.year if document_date else title_year(title)
    events: list[TimelineEvent] = []
    first_paragraph = True
    for line in (line.strip() for line in text.splitlines()):
        if not line or heading_text(line) is not None:
            continue
        for sentence in parse(line, model).sents:
            carried = (
                EventDate(document_date.isoformat(), "day") if first_paragraph and document_date else None
            )
            for clause in _clauses(sentence.text):
                found, context_year = _dated_clause(clause, document_date, context_year, model)
                event_text = found[0] if found else _clean(clause) if _is_event(clause, model) else ""
                carried = found[1] if found else carried
                if document_date is not None and carried is not None and _after(carried, document_date):
                    # Past the document's own date: a plan, unless it is the report's lede.
                    carried = EventDate(document_date.isoformat(), "day") if first_paragraph else None
                if event_text and carried is not None and not covered(event_text, events, model):
                    events.append(TimelineEvent(event_text, carried))
        first_paragraph = False
    return events


def _after(when: EventDate, document_date: date) -> bool:
    key = date_key(when)
    return key is not None and key > (document_date.year, document_date.month, document_date.day)


def _clauses(sentence: str) -> list[str]:
    parts = [part.strip() for part in sentence.split(";")]
    return [part[:1].upper() + part[1:] for part in parts if part]


def _dated_clause(
    clause: str, anchor: date | None, context_year: int | None, model: str
) -> tuple[tuple[str, EventDate] | None, int | None]:
    """(event text or "" when not an event, its date) if the clause states a date, and the year context."""
    labelled: list[EventDate] = []
    label = _DATE_LABEL.match(clause)
    if label and is_date_label(label.group(1)):
        labelled = mention_dates(label.group(1), anchor, context_year)
        if labelled:
            clause = clause[label.end() :]
            clause = clause[:1].upper() + clause[1:]
            context_year = int(labelled[-1].date[:4])
    mentions, context_year = read_dates(parse(clause, model), anchor, context_year)
    stated = labelled[:1] + [dates[0] for ent, dates in mentions if not hypothetical(ent.root)]
    if not stated:
        return None, context_year
    best = max(range(len(stated)), key=lambda i: (_PRECISION_RANK[stated[i].precision], -i))
    text = _clean(clause) if _is_event(clause, model) else ""
    return (text, stated[best]), context_year


def _is_event(clause: str, model: str) -> bool:
    words = clause.split()
    if len(words) < MIN_WORDS or clause.rstrip().endswith("?") or clause.startswith(_QUOTES):
        return False
    root = event_root(parse(clause, model))
    if root is None or root.pos_ != "VERB" or root.lemma_.lower() in _STATE_VERBS:
        return False
    planned = root.lemma_.lower() in _PLAN_VERBS
    return not planned and not any(child.tag_ == "MD" for child in root.children)


def _clean(text: str) -> str:
    text = " ".join(text.replace("<", "(").replace(">", ")").split())
    return text if text.endswith((".", "!", '"', "\u201d", "'")) else text.rstrip(" ,:") + "."


def event_root(doc: Any) -> Any | None:
    sentences = list(doc.sents)
    if not sentences:
        return None
    root = sentences[0].root
    if root.pos_ in ("VERB", "AUX"):
        return root
    return next((token for token in sentences[0] if token.pos_ == "VERB"), root)


def render_timeline(events: Sequence[TimelineEvent]) -> str:
    if not events:
        return "<timeline>none</timeline>"
    lines = [f"<event><date>{event.date.date}</date><text>{event.text}</text></event>" for event in events]
    return "<timeline>\n" + "\n".join(lines) + "\n</timeline>"


def effective_keys(events: Sequence[TimelineEvent]) -> list[tuple[int, int, int]]:
    """Sort keys where an undated event carries the key of the event before it (leading ones sort first)."""
    keys, last = [], (0, 0, 0)
    for event in events:
        last = date_key(event.date) or last
        keys.append(last)
    return keys


@lru_cache(maxsize=8192)
def content_words(text: str, model: str) -> frozenset[str]:
    """Lemmas of the words that carry content (no stop words or punctuation), for the coverage test."""
    return frozenset(
        token.lemma_.lower()
        for token in parse(text, model)
        if (token.is_alpha or token.like_num) and not token.is_stop
    )


def covered(text: str, others: Sequence[TimelineEvent], model: str) -> bool:
    words = content_words(text, model)
    for other in others:
        theirs = content_words(other.text, model)
        union = words | theirs
        if union and len(words & theirs) / len(union) >= COVERED_JACCARD:
            return True
    return False


def arguments_of(text: str, when: EventDate, model: str) -> EventArguments:
    """Open event extraction for one event text; ``when`` (its timeline date) places a bare "30 May"."""
    doc = parse(text, model)
    root = event_root(doc)
    if root is None:
        return EventArguments("", "", "", "", "")
    year = int(when.date[:4]) if when.precision != "unknown" else None
    location = next((ent for ent in doc.ents if ent.label_ in _PLACES), None)
    stated = (ent for ent in doc.ents if ent.label_ == "DATE" and mention_dates(ent.text, None, year))
    time = next(stated, None)
    subject = next((child for child in root.children if child.dep_ in ("nsubj", "nsubjpass")), None)
    return EventArguments(
        event_type=event_type(root),
        subject=phrase(subject) if subject is not None else "",
        object=_object(root, location),
        location=location.text if location is not None else "",
        time=time.text if time is not None else "",
    )


def event_type(root: Any) -> str:
    passive = any(child.dep_ == "auxpass" for child in root.children)
    words = ["be", root.lower_] if passive else [root.lemma_.lower()]
    if any(child.dep_ == "neg" for child in root.children):
        words.insert(0, "not")
    words += [child.lower_ for child in root.children if child.dep_ == "prt"]
    complement = next((child for child in root.children if child.dep_ in ("dobj", "attr")), None)
    if complement is not None and complement.pos_ == "NOUN":
        words += [child.lower_ for child in complement.children if child.dep_ == "compound"]
        words.append(complement.lower_)
        of = next((c for c in complement.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        objects = [child for child in of.children if child.dep_ == "pobj"] if of is not None else []
        if objects and objects[0].pos_ == "NOUN":
            words += ["of", objects[0].lower_]
    return " ".join(words)


def _object(root: Any, location: Any | None) -> str:
    for dep in ("dobj", "attr"):
        found = next((child for child in root.children if child.dep_ == dep), None)
        if found is not None:
            return phrase(found)
    for prep in (child for child in root.children if child.dep_ == "prep"):
        for obj in (child for child in prep.children if child.dep_ == "pobj"):
            in_place = location is not None and location.start <= obj.i < location.end
            if obj.ent_type_ not in _TIMES and not in_place:
                return phrase(obj)
    return ""


def phrase(head: Any) -> str:
    """The head's subtree without side clauses, appositions, time phrases and separating punctuation."""
    dropped: set[int] = set()
    for token in head.subtree:
        if token.i == head.i or token.i in dropped:
            continue
        if token.dep_ in _DROPPED_IN_PHRASES or is_time_phrase(token):
            dropped.update(inner.i for inner in token.subtree)
        elif token.dep_ == "punct" and token.text in _SEPARATORS:
            dropped.add(token.i)
    text = "".join(token.text_with_ws for token in head.subtree if token.i not in dropped)
    return " ".join(text.split()).strip(" ,;:-")


def is_time_phrase(token: Any) -> bool:
    """A time phrase of its own ("on 30 May", "last week"), not a modifier ("a 48-hour stoppage")."""
    if token.ent_type_ in _TIMES and token.dep_ in ("npadvmod", "advmod", "tmod"):
        return True
    objects = [child for child in token.children if child.dep_ == "pobj"]
    return token.dep_ == "prep" and bool(objects) and all(obj.ent_type_ in _TIMES for obj in objects)
