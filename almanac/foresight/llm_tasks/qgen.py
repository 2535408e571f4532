"""The ``qgen`` task (item, reply parser, offline answer).

Offline question generation: a sentence's named-entity subject or object becomes the answer.

For each declarative past/present-tense sentence (in article order, the lede first) whose subject or
direct object is a short named entity, the clause is turned into a future-tense question about that
entity with the article's publish date as the deadline: "Parliament appointed Jane Doe as prime
minister" becomes "Who will Parliament appoint as prime minister by July 17, 2025?". Reported speech,
negations and hedged sentences are skipped. Output is the generator's XML format; each
``<question>`` block of a reply is parsed on its own.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Any

from almanac.core.names import has_organisation_word
from almanac.core.nlp import ANSWER_FORMAT, ANSWER_TYPE, MONTHS, WH_WORD, fold, long_date, parse, resolve_date
from almanac.foresight.llm_tasks.clauses import span_text, verb_phrase
from almanac.foresight.llm_tasks.qgen_numeric import NUMERIC_FORMAT, numeric_question
from almanac.foresight.llm_tasks.questions import (
    QUESTION_FIELDS,
    GeneratedQuestion,
    UnusableCandidate,
    article_variables,
    iso_day,
    multiline,
)
from almanac.foresight.type_check import (
    ArticleEntities,
    entities_from_doc,
    type_mismatch,
)
from almanac.llm.parsing import (
    ParseError,
    collapse,
    find_tags,
    one_tag,
    optional_tag,
)
from almanac.llm.registry import Task, TaskItem, register

_ANSWER_TYPE = re.compile(r"^(string|numeric)\s*\(\s*([^()]+?)\s*\)$", re.IGNORECASE)


def parse_answer_type(value: str) -> str:
    """The parser's format check ("kind (detail)", lower-cased); classification happens in a later stage."""
    match = _ANSWER_TYPE.match(collapse(value))
    if not match:
        raise ParseError(
            f"answer_type must look like 'string (name)' or 'numeric (integer)', got {value[:40]!r}"
        )
    return f"{match.group(1).lower()} ({match.group(2).lower()})"


def _parse_candidate(block: str, number: int) -> GeneratedQuestion | UnusableCandidate:
    values = {name: optional_tag(block, name) if _single(block, name) else "" for name in QUESTION_FIELDS}
    try:
        for name in QUESTION_FIELDS:
            one_tag(block, name)  # present exactly once and not empty
        values["answer_type"] = parse_answer_type(values["answer_type"])
    except ParseError as error:
        partial = {name: collapse(value) for name, value in values.items()}
        return UnusableCandidate(
            GeneratedQuestion(**partial), "candidate_malformed", f"question {number}: {error}"
        )
    values = {
        name: multiline(value) if name == "resolution_criteria" else collapse(value)
        for name, value in values.items()
    }
    return GeneratedQuestion(**values)


def _single(block: str, name: str) -> bool:
    return len(set(find_tags(block, name))) <= 1


def parse_questions(text: str, variables: Mapping[str, str]) -> list[GeneratedQuestion | UnusableCandidate]:
    """Each ``<question>`` block parsed on its own: a malformed block never costs its siblings.

    Dates are kept as written; the question stages read them (a month-only deadline is fine there,
    "unknown" rejects that one candidate). The whole reply is an error (and gets a repair round)
    only when it has no block at all or every block is malformed.
    """
    blocks = find_tags(text, "question")
    if not blocks and find_tags(text, "no_question"):
        return []  # the article supports no question: an explicit, valid answer
    if not blocks:
        raise ParseError("no <question>...</question> block (or <no_question>reason</no_question>) found")
    limit = int(variables.get("n_questions", "0") or 0) or len(blocks)
    candidates = [_parse_candidate(block, number) for number, block in enumerate(blocks[:limit], start=1)]
    if all(isinstance(candidate, UnusableCandidate) for candidate in candidates):
        problems = "; ".join(c.detail for c in candidates if isinstance(c, UnusableCandidate))
        raise ParseError(problems)
    return candidates


def qgen_item(
    article_id: str,
    title: str | None,
    text: str,
    publish_date: date | datetime | str,
    source: str,
    n_questions: int,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        **article_variables(title, text, max_chars),
        "publish_date": iso_day(publish_date),
        "source": source,
        "n_questions": str(n_questions),
    }
    return TaskItem(article_id, variables)


START_GAP_DAYS = 7  # the question opens a week before the article, as the generator prompt asks
STORY_LOOKBACK_DAYS = 92  # ... or longer for a slow-moving story: its earlier developments this far back
STORY_LOOKBACK_MONTHS = 3


_REPORTING = frozenset({"say", "tell", "add", "note", "claim", "report", "state", "write", "ask", "explain"})


_HEDGES = frozenset(
    {"may", "might", "could", "would", "should", "likely", "expected", "reportedly", "possibly"}
)


# Markers of background facts rather than news: questions about them would be recall, not forecasting.
_PAST_MARKERS = frozenset({"previously", "formerly", "once", "earlier", "already", "originally"})


def generate(variables: Mapping[str, str], model: str) -> str:
    doc = parse(variables["article_text"], model)
    published = date.fromisoformat(variables["publish_date"])
    start = story_start(doc, published)
    wanted = int(variables["n_questions"])
    blocks: list[str] = []
    seen_answers: set[str] = set()
    entities = entities_from_doc(doc)
    clauses = [(sentence, _clause(sentence, start, published)) for sentence in doc.sents]
    for sentence, clause in clauses:
        if len(blocks) >= wanted:
            break
        question = _question_from(sentence, clause, entities, seen_answers) if clause else None
        if question is not None:
            title, answer, answer_type = question
            seen_answers.add(fold(answer))
            blocks.append(
                _render(_fields(title, answer, answer_type, sentence, start, published, variables["source"]))
            )
    for sentence, clause in clauses:  # numeric candidates only fill what named entities left open
        if len(blocks) >= wanted:
            break
        numeric = numeric_question(sentence, *clause) if clause else None
        if numeric is not None and fold(numeric[1]) not in seen_answers:
            title, answer, answer_type = numeric
            seen_answers.add(fold(answer))
            blocks.append(
                _render(_fields(title, answer, answer_type, sentence, start, published, variables["source"]))
            )
    if not blocks:
        return "<no_question>no declarative sentence has a short named-entity subject or object</no_question>"
    return "\n".join(blocks)


def story_start(doc: Any, published: date) -> date:
    """The question start date: a week before the article, as the generator prompt asks, or longer for a
    slow-moving story, one whose article names an earlier development: a day 8 to 92 days back, or a
    month among the three before its own. The question then opens the day before the earliest of them, so
    the forecaster knows none of the story's developments the article reports."""
    latest = published - timedelta(days=START_GAP_DAYS)
    earliest = latest
    for ent in doc.ents:
        if ent.label_ != "DATE":
            continue
        day = resolve_date(ent.text, published) or _named_month_start(ent.text, published)
        if day is not None and published - timedelta(days=STORY_LOOKBACK_DAYS) <= day <= latest:
            earliest = min(earliest, day - timedelta(days=1))
    return earliest


def _named_month_start(text: str, published: date) -> date | None:
    """The first day of a month named without a day ("in March", "late February 2025"), when it is one of
    the STORY_LOOKBACK_MONTHS months before the article's; None otherwise."""
    words = fold(text).split()
    months = [MONTHS.index(word) + 1 for word in words if word in MONTHS]
    years = [int(word) for word in words if word.isdigit() and len(word) == 4]
    if len(months) != 1 or any(word.isdigit() and len(word) <= 2 for word in words):
        return None
    year = years[0] if years else published.year - (months[0] > published.month)
    back = (published.year * 12 + published.month) - (year * 12 + months[0])
    return date(year, months[0], 1) if 1 <= back <= STORY_LOOKBACK_MONTHS else None


def _clause(sentence: Any, start: date, published: date) -> tuple[Any, Any, Any] | None:
    """(root verb, subject, direct object or None) of a declarative, unhedged news clause dated on or after
    the question start; None for any other sentence."""
    root = sentence.root
    if root.pos_ != "VERB" or root.tag_ not in ("VBD", "VBZ", "VBP", "VBN") or root.lemma_ in _REPORTING:
        return None
    if sentence.text.rstrip().endswith("?") or '"' in sentence.text or "\u201c" in sentence.text:
        return None
    if any(child.dep_ == "neg" or child.lower_ in _HEDGES for child in root.children):
        return None
    if any(token.lower_ in _PAST_MARKERS for token in sentence):
        return None
    if _dated_before(sentence, start, published):
        return None
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    return None if subject is None else (root, subject, obj)


def _question_from(
    sentence: Any, clause: tuple[Any, Any, Any], entities: ArticleEntities, seen: set[str]
) -> tuple[str, str, str] | None:
    """(title without its deadline, answer, answer_type) of the clause's named-entity subject or object."""
    root, subject, obj = clause
    for ent in sentence.ents:
        answer = _answer_text(ent)
        if ent.label_ not in WH_WORD or answer is None or fold(answer) in seen:
            continue
        label = _checked_label(ent.label_, answer, entities)
        if label is None:
            continue
        if subject.i in range(ent.start, ent.end) and _covers(ent, subject):
            title = f"{WH_WORD[label]} will {verb_phrase(root, skip=subject)}"
        elif obj is not None and obj.i in range(ent.start, ent.end) and _covers(ent, obj):
            subject_text = span_text(list(subject.subtree))
            title = f"{WH_WORD[label]} will {subject_text} {verb_phrase(root, skip=obj, bare=True)}"
        else:
            continue
        return title, answer, ANSWER_TYPE[label]
    return None


# The answer class each entity label claims, for the labels the answer-type stage verifies.
_CHECKED_CLASS = {"PERSON": "name", "ORG": "organization", "GPE": "location", "LOC": "location"}


def _checked_label(label: str, answer: str, entities: ArticleEntities) -> str | None:
    """The entity label to declare, after the same checks the answer-type stage applies.

    The small spaCy model calls clubs and companies PERSON and people ORG; a real generator would
    not. A "person" whose name holds an organisation word becomes an organization ("Kessling United"),
    a "place" or "organization" that is a person named in the article becomes a person
    ("Vasquez-Moore"), and any other failure skips the entity ("Turnout", "Corvane").
    """
    claimed = _CHECKED_CLASS.get(label)
    if claimed is None or type_mismatch(answer, claimed, entities) is None:
        return label
    if claimed == "name":
        swap = has_organisation_word(answer) and type_mismatch(answer, "organization", entities) is None
        return "ORG" if swap else None
    return "PERSON" if type_mismatch(answer, "name", entities) is None else None


def _dated_before(sentence: Any, start: date, published: date) -> bool:
    """The sentence is dated before the question opens ("in May", "in 2019"): old news, not a forecast."""
    for ent in sentence.ents:
        if ent.label_ != "DATE":
            continue
        day = resolve_date(ent.text, published)
        if day is not None:
            if day < start:
                return True
            continue
        words = fold(ent.text).split()
        years = [int(word) for word in words if word.isdigit() and len(word) == 4]
        months = [MONTHS.index(word) + 1 for word in words if word in MONTHS]
        year = years[0] if years else published.year
        if months and not years and months[0] > published.month:
            year -= 1  # "in November" read in a June article is last November
        # A bare month before the publish month may lie anywhere in it: treat it as before the start.
        if (year, months[0] if months else 12) < (published.year, published.month):
            return True
    return False


def _answer_text(ent: Any) -> str | None:
    words = ent.text.split()
    if words and words[0].lower() == "the":
        words = words[1:]
    if not 1 <= len(words) <= 3 or any(char.isdigit() for char in ent.text):
        return None
    return " ".join(words)


def _covers(ent: Any, head: Any) -> bool:
    """The entity is the whole argument (not "the lawyer of Jane Doe"), give or take a determiner."""
    subtree = [token for token in head.subtree if token.dep_ != "det"]
    return all(ent.start <= token.i < ent.end for token in subtree)


def _fields(
    title: str, answer: str, answer_type: str, sentence: Any, start: date, published: date, source: str
) -> dict[str, str]:
    others = []
    for other in sentence.ents:
        if other.label_ in WH_WORD and fold(answer) not in fold(other.text) and other.text not in others:
            others.append(other.text)
    topic = f"news involving {', '.join(others[:3])}" if others else f"a developing story covered by {source}"
    background = f"Question start date: {start.isoformat()}. The question concerns {topic}."
    answer_format = ANSWER_FORMAT.get(answer_type) or NUMERIC_FORMAT[answer_type]
    words = "" if answer_type.startswith("numeric") else ", at most three words"
    criteria = "\n".join(
        [
            f"Source of truth: reporting by {source} and official statements up to {long_date(published)}.",
            f"Resolution date: {long_date(published)}.",
            f"Accepted answer format: {answer_format}{words}, as in news reports.",
        ]
    )
    return {
        "question_title": f"{title} by {long_date(published)}?",
        "background": background,
        "resolution_criteria": criteria,
        "answer": answer,
        "answer_type": answer_type,
        "question_start_date": start.isoformat(),
        "resolution_date": published.isoformat(),
    }


def _render(fields: Mapping[str, str]) -> str:
    inner = "\n".join(f"<{name}>{value}</{name}>" for name, value in fields.items())
    return f"<question>\n{inner}\n</question>"


QGEN = register(Task("qgen", item=qgen_item, parse=parse_questions, offline=generate))
