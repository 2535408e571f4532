"""The ``article_category`` task: item, parser, and the offline classification of Wikipedia articles.

Category: the head noun of the lead's first copular sentence ("X is a country", "X was a series of
floods" -> the noun after "series of") looked up in one small lexicon per category, checked in the order
people, country, region, organization, sports competition, entertainment, holiday, event. Without a
match: a "(born ..." or "(1920-2001)" aside means people; an event noun in the title, "took place",
"occurred" or "happened" in the lead, or a year in the title means event; anything else is a definition.
Topic (events only): the EVENT_TOPICS entry whose keyword lemmas occur most often in the title and lead;
ties go to the earlier entry of EVENT_TOPICS (so an article with no keyword at all gets the first one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from almanac.core.nlp import parse
from almanac.core.text import fold
from almanac.events.llm_tasks.date_mentions import lead_lines, title_year
from almanac.events.llm_tasks.items import clip
from almanac.events.llm_tasks.replies import NOT_STATED, ArticleCategory
from almanac.events.topics import EVENT_TOPICS
from almanac.llm.parsing import ParseError, choice, one_tag, optional_tag
from almanac.llm.registry import Task, TaskItem, register

# What a Wikipedia article is about; only "event" articles become complex events.
ARTICLE_CATEGORIES = (
    "people",
    "country",
    "region",
    "organization",
    "sports competition",
    "entertainment",
    "definition",
    "holiday",
    "event",
)


_CATEGORY_ALIASES = {
    "person": "people",
    "persons": "people",
    "organisation": "organization",
    "organisations": "organization",
    "countries": "country",
    "item definition": "definition",
    "sport competition": "sports competition",
    "sporting competition": "sports competition",
}


def _reply_category(raw: str) -> str:
    normal = fold(raw)
    normal = _CATEGORY_ALIASES.get(normal, normal)
    if normal not in ARTICLE_CATEGORIES and normal.endswith("s") and normal[:-1] in ARTICLE_CATEGORIES:
        normal = normal[:-1]
    return choice(normal, ARTICLE_CATEGORIES, "<category>")


def parse_article_category(text: str, variables: Mapping[str, str]) -> ArticleCategory:
    del variables
    category = _reply_category(one_tag(text, "category"))
    if category != "event":
        return ArticleCategory(category, "")  # a topic given for a non-event is ignored, not an error
    raw_topic = optional_tag(text, "topic")
    if fold(raw_topic) in NOT_STATED:
        raise ParseError(f"an event article needs a <topic>, one of {list(EVENT_TOPICS)}")
    topics = {fold(topic): topic for topic in EVENT_TOPICS}
    topic = topics.get(fold(raw_topic.replace("&", " and ")))
    if topic is None:
        raise ParseError(f"<topic> must be exactly one of {list(EVENT_TOPICS)}, got {raw_topic[:60]!r}")
    return ArticleCategory(category, topic)


def article_category_item(item_id: str, title: str, text: str, max_chars: int) -> TaskItem:
    return TaskItem(item_id, {"title": title, "article_text": clip(text, max_chars)})


_LIFE_DATES = re.compile(r"\((?:born|died|c\.|\d{3,4}\s*[\u2013-])", re.IGNORECASE)


_EVENT_VERBS = re.compile(r"\b(took place|occurred|happened)\b", re.IGNORECASE)


def _words(spec: str) -> frozenset[str]:
    return frozenset(spec.split())


# Head-noun lemmas per category, in the order they are tried.
CATEGORY_NOUNS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "people",
        _words(
            "politician actor actress singer songwriter musician rapper composer writer author poet "
            "novelist journalist presenter footballer cricketer athlete player boxer swimmer cyclist coach "
            "businessman businesswoman entrepreneur executive scientist physicist chemist biologist "
            "mathematician economist engineer lawyer judge diplomat activist philosopher historian artist "
            "painter sculptor photographer filmmaker comedian chef physician surgeon soldier officer priest "
            "bishop monarch king queen prince princess emperor minister president senator statesman "
            "stateswoman person man woman"
        ),
    ),
    ("country", _words("country nation republic kingdom monarchy principality emirate sultanate")),
    (
        "region",
        _words(
            "city town village hamlet province region county district municipality borough suburb "
            "neighbourhood neighborhood state territory prefecture canton capital metropolis river lake "
            "mountain island archipelago peninsula valley bay gulf sea ocean coast desert forest area "
            "settlement oblast commune parish"
        ),
    ),
    (
        "organization",
        _words(
            "company corporation firm business conglomerate insurer bank lender party agency union "
            "organisation organization association society federation institute institution university "
            "college foundation charity ministry department authority council commission committee club "
            "airline manufacturer retailer publisher newspaper broadcaster network studio cooperative "
            "regulator movement alliance coalition"
        ),
    ),
    (
        "sports competition",
        _words("league championship championships cup tournament season games olympics competition race"),
    ),
    (
        "entertainment",
        _words(
            "film movie album song single series show programme program sitcom drama documentary novel "
            "book play musical opera game episode franchise band"
        ),
    ),
    ("holiday", _words("festival holiday day celebration observance feast commemoration carnival")),
    (
        "event",
        _words(
            "flood flooding strike breach eruption spill election referendum dispute war attack cyberattack "
            "storm hurricane typhoon cyclone tornado crisis disaster earthquake tsunami wildfire fire "
            "explosion crash accident collision derailment shooting bombing massacre protest riot uprising "
            "revolution coup invasion siege battle conflict insurgency pandemic epidemic outbreak scandal "
            "incident collapse shutdown blackout outage hack leak merger acquisition bankruptcy summit trial "
            "impeachment assassination kidnapping hijacking heatwave drought famine landslide avalanche "
            "sinking shipwreck ceasefire crackdown lockdown recession boycott standoff clash"
        ),
    ),
)


_EVENT_NOUNS = CATEGORY_NOUNS[-1][1]


# Heads that only count what follows: "a series of floods" is about floods.
_LIGHT_HEADS = _words("series wave number set sequence string spate chain kind type")


_SOVEREIGN = _words("sovereign independent")


# Keyword lemmas per topic, counted over the title and the lead.
_TOPIC_WORDS: dict[str, frozenset[str]] = {
    "Armed conflicts and attacks": _words(
        "war attack bombing shooting militant insurgent rebel army military troop airstrike missile "
        "ceasefire invasion terrorist terrorism hostage soldier offensive battle siege massacre gunman drone"
    ),
    "Arts and culture": _words(
        "film album music festival art museum award exhibition literature theatre concert artist singer "
        "culture heritage celebrity prize"
    ),
    "Business and economy": _words(
        "company market share price strike merger acquisition bank economy economic trade tariff inflation "
        "investor shareholder pay wage worker dock port freight bankruptcy profit revenue business industry "
        "insurer airline stock industrial"
    ),
    "Disasters and accidents": _words(
        "flood disaster earthquake eruption volcano volcanic storm hurricane cyclone tornado wildfire fire "
        "crash accident collision landslide tsunami evacuate evacuation spill derailment drought heatwave "
        "lava rain snowmelt collapse"
    ),
    "Health and environment": _words(
        "health disease outbreak pandemic epidemic virus vaccine hospital patient medical pollution "
        "environment environmental climate emission contamination contaminate wildlife toxic"
    ),
    "International relations": _words(
        "diplomat diplomatic ambassador summit treaty sanction foreign bilateral embassy"
    ),
    "Law and crime": _words(
        "court judge trial lawsuit police arrest crime criminal fraud bribery corruption fine prosecutor "
        "convict investigation ransom theft murder regulator illegal"
    ),
    "Politics and elections": _words(
        "election vote parliament government minister president referendum campaign coalition cabinet "
        "politician political poll ballot electoral opposition parliamentary protest"
    ),
    "Science and technology": _words(
        "technology software data cyberattack computer internet satellite research science scientist "
        "digital server encrypt"
    ),
    "Sports": _words("match tournament league championship cup team player goal olympic football"),
}


def article_category(variables: Mapping[str, str], model: str) -> str:
    title, lead = variables["title"], lead_lines(variables["article_text"])
    category = _category(title, lead, model)
    topic = _topic(title, lead, model) if category == "event" else "none"
    return f"<category>{category}</category><topic>{topic}</topic>"


def _category(title: str, lead: Sequence[str], model: str) -> str:
    sentences = list(parse(lead[0], model).sents) if lead else []
    first = sentences[0] if sentences else None
    if first is not None and first.root.lemma_ == "be":
        head = next((child for child in first.root.children if child.dep_ in ("attr", "acomp")), None)
        found = _noun_category(head) if head is not None else None
        if found:
            return found
    if first is not None and _LIFE_DATES.search(first.text):
        return "people"
    if any(token.lemma_.lower() in _EVENT_NOUNS for token in parse(title, model)):
        return "event"
    if _EVENT_VERBS.search(" ".join(lead)) or title_year(title) is not None:
        return "event"
    return "definition"


def _noun_category(head: Any) -> str | None:
    if head.lemma_.lower() in _LIGHT_HEADS:
        of = next((child for child in head.children if child.dep_ == "prep" and child.lower_ == "of"), None)
        objects = [child for child in of.children if child.dep_ == "pobj"] if of is not None else []
        if objects:
            head = objects[0]
    lemma = head.lemma_.lower()
    if lemma == "state" and any(child.lower_ in _SOVEREIGN for child in head.children):
        return "country"
    for word in (lemma, *(child.lemma_.lower() for child in head.children if child.dep_ == "compound")):
        for category, nouns in CATEGORY_NOUNS:
            if word in nouns:
                return category
    return None


def _topic(title: str, lead: Sequence[str], model: str) -> str:
    lemmas = [token.lemma_.lower() for text in (title, *lead) for token in parse(text, model)]
    counts = {topic: sum(lemma in _TOPIC_WORDS[topic] for lemma in lemmas) for topic in EVENT_TOPICS}
    return max(EVENT_TOPICS, key=lambda topic: (counts[topic], -EVENT_TOPICS.index(topic)))


ARTICLE_CATEGORY = register(
    Task(
        "article_category", item=article_category_item, parse=parse_article_category, offline=article_category
    )
)
