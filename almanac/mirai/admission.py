"""Which (date, subject, object) groups of quads may become test queries: the recipes' threshold rules.

A group holds every cleaned event (quad) of one day and ordered country pair. Each rule below removes
events from the group's test candidates and, when none is left, the group itself (with the rule's reject
reason); the numbers each rule removed are returned as :class:`Step` records for the stage metrics.

- ``paper``: per event, first the mention threshold, then the article threshold on articles whose text
  survived cleaning. With ``every`` (MIRAI's authors, ``dataset_construction/7_generate_test_set.py``: the
  minimum article count over the day-pair's >= 100-mention events must reach 5) every event past the
  mention threshold must pass the article threshold too; with ``any`` one such event suffices. The
  relations that pass both are the query's ``test_relations``. (The events reaching this rule are those
  with text, when ``answers_need_text`` is on, as in the authors' data: relation_split.group_quads.)
- ``relaxed``: on the group, summed mentions then distinct source URLs (today's behaviour for corpora
  without article text). Every relation of an admitted group counts as a test relation.

See :mod:`almanac.mirai.recipe` for why the answers stay every relation of the day and pair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from typing import Any

from almanac.core.ids import content_id
from almanac.mirai.cameo import root_of
from almanac.mirai.recipe import (
    EVENT_TOO_FEW_ARTICLES,
    EVENT_TOO_FEW_MENTIONS,
    GROUP_TOO_FEW_MENTIONS,
    GROUP_TOO_FEW_URLS,
    PAPER,
    RELAXED,
)

# Reject details list at most this many events (a busy day-pair can have dozens).
_LISTED_EVENTS = 6


@dataclass
class EventStats:
    """One (date, subject, relation, object) event: its daily mentions and its canonical source URLs."""

    mentions: int = 0
    urls: set[str] = field(default_factory=set)


@dataclass
class Group:
    """The quads of one (date, subject, object)."""

    day: date
    subject: str
    object: str
    relations: set[str] = field(default_factory=set)
    mentions: int = 0
    urls: set[str] = field(default_factory=set)
    events: dict[str, EventStats] = field(default_factory=dict)
    text_urls: set[str] = field(default_factory=set)  # the URLs whose cleaned text survived
    test_relations: set[str] | None = None  # None: admitted as a whole (relaxed, or built by hand)

    @property
    def query_id(self) -> str:
        return content_id(self.day.isoformat(), self.subject, self.object)

    @property
    def label(self) -> str:
        return f"({self.day.isoformat()}, {self.subject}, ?, {self.object})"

    @property
    def roots(self) -> list[str]:
        return sorted({root_of(code) for code in self.relations})

    def add(self, relation: str, mentions: int, urls: Sequence[str], texts: Set[str]) -> None:
        """Fold one quad in (a relation occurs once per group: quads are unique per (date, s, r, o))."""
        event = self.events.setdefault(relation, EventStats())
        event.mentions += mentions
        event.urls.update(urls)
        self.relations.add(relation)
        self.mentions += mentions
        self.urls.update(urls)
        self.text_urls.update(url for url in urls if url in texts)


@dataclass
class Step:
    """What one rule removed: events that stopped being test candidates, and groups left with none."""

    reason: str
    unit: str
    events_removed: int = 0
    queries_removed: int = 0

    def as_metrics(self, queries_left: int) -> dict[str, Any]:
        return {
            "rule": self.reason,
            "unit": self.unit,
            "events_removed": self.events_removed,
            "queries_removed": self.queries_removed,
            "queries_left": queries_left,
        }


@dataclass
class Admission:
    admitted: list[Group]
    rejected: list[tuple[Group, str, str]]  # (group, reason, detail)
    steps: list[Step]


def _listing(relations: Sequence[str], value: Callable[[str], object]) -> str:
    shown = [f"{relation}: {value(relation)}" for relation in sorted(relations)[:_LISTED_EVENTS]]
    more = len(relations) - _LISTED_EVENTS
    return ", ".join(shown) + (f", and {more} more" if more > 0 else "")


def paper_admission(
    groups: Sequence[Group], min_mentions: int, min_articles: int, texts: Set[str], every: bool = True
) -> Admission:
    """Per-event thresholds: a group is a query when it has an event past the mention threshold and
    every such event (``every``; else one of them) has enough articles with text."""
    mentions = Step(EVENT_TOO_FEW_MENTIONS, "event")
    articles = Step(EVENT_TOO_FEW_ARTICLES, "event")
    result = Admission([], [], [mentions, articles])
    for group in groups:
        loud = [r for r, event in group.events.items() if event.mentions >= min_mentions]
        mentions.events_removed += len(group.events) - len(loud)
        if not loud:
            mentions.queries_removed += 1
            detail = f"no event with >= {min_mentions} daily mentions ({_mentions(group)})"
            result.rejected.append((group, EVENT_TOO_FEW_MENTIONS, detail))
            continue
        backed = {r for r in loud if len(group.events[r].urls & texts) >= min_articles}
        short = [r for r in loud if r not in backed]
        if not backed or (every and short):  # every loud event stops being a test candidate
            articles.events_removed += len(loud)
            articles.queries_removed += 1
            counts = _listing(short, partial(_text_urls, group.events, texts))
            which = "not every" if every else "no"
            detail = (
                f"{which} event with >= {min_mentions} daily mentions has >= {min_articles} articles "
                f"whose cleaned text survived ({counts})"
            )
            result.rejected.append((group, EVENT_TOO_FEW_ARTICLES, detail))
            continue
        articles.events_removed += len(short)
        group.test_relations = backed
        result.admitted.append(group)
    return result


def _mentions(group: Group) -> str:
    return _listing(list(group.events), lambda relation: group.events[relation].mentions)


def _text_urls(events: Mapping[str, EventStats], texts: Set[str], relation: str) -> str:
    urls = events[relation].urls
    return f"{len(urls & texts)} of {len(urls)} URLs"


def relaxed_admission(groups: Sequence[Group], min_mentions: int, min_articles: int) -> Admission:
    """Group thresholds: summed mentions, then distinct source URLs, whether or not any text was found."""
    mentions = Step(GROUP_TOO_FEW_MENTIONS, "group")
    urls = Step(GROUP_TOO_FEW_URLS, "group")
    result = Admission([], [], [mentions, urls])
    for group in groups:
        numbers = f"num_daily_mentions={group.mentions}, urls={len(group.urls)}"
        if group.mentions < min_mentions:
            mentions.queries_removed += 1
            mentions.events_removed += len(group.relations)
            detail = f"{numbers}; need >= {min_mentions} mentions"
            result.rejected.append((group, GROUP_TOO_FEW_MENTIONS, detail))
        elif len(group.urls) < min_articles:
            urls.queries_removed += 1
            urls.events_removed += len(group.relations)
            detail = f"{numbers}; need >= {min_articles} URLs"
            result.rejected.append((group, GROUP_TOO_FEW_URLS, detail))
        else:
            group.test_relations = None
            result.admitted.append(group)
    return result


def admit(
    groups: Sequence[Group],
    recipe: str,
    min_mentions: int,
    min_articles: int,
    texts: Set[str],
    every: bool = True,
) -> Admission:
    if recipe == PAPER:
        return paper_admission(groups, min_mentions, min_articles, texts, every)
    if recipe == RELAXED:
        return relaxed_admission(groups, min_mentions, min_articles)
    raise ValueError(f"unknown MIRAI recipe {recipe!r}")
