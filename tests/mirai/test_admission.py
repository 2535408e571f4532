"""The recipes' threshold rules on hand-built day-pairs: per event (paper) against per group (relaxed).

MIRAI section 2.2: a test event has >= 100 daily mentions and >= 5 news articles. ``paper`` reads that per
(date, subject, relation, object) event and counts only articles whose text survived cleaning, and by
default (``every``, the authors' 7_generate_test_set.py) asks it of every loud event of the pair; ``relaxed``
sums the day-pair's events and counts its source URLs.
"""

from __future__ import annotations

from datetime import date

import pytest

from almanac.mirai.admission import Admission, Group, admit, paper_admission, relaxed_admission
from almanac.mirai.recipe import PAPER, RELAXED
from almanac.mirai.relation_split import query_row
from tests.mirai.quads import REGIONS, urls

MENTIONS, ARTICLES = 100, 5
DAY = date(2025, 5, 6)


def _group(events: dict[str, tuple[int, list[str]]], texts: frozenset[str], subject: str = "USA") -> Group:
    group = Group(DAY, subject, "CHN")
    for relation, (mentions, sources) in events.items():
        group.add(relation, mentions, sources, texts)
    return group


def _both(group: Group, texts: frozenset[str]) -> tuple[Admission, Admission]:
    """The same day-pair through both recipes (each recipe gets its own copy: admission sets fields)."""
    paper = paper_admission([group], MENTIONS, ARTICLES, texts)
    fresh = Group(group.day, group.subject, group.object)
    for relation, event in group.events.items():
        fresh.add(relation, event.mentions, sorted(event.urls), texts)
    return paper, relaxed_admission([fresh], MENTIONS, ARTICLES)


def test_two_events_of_60_make_a_relaxed_query_but_no_paper_one() -> None:
    texts = frozenset(urls("a", 3) + urls("b", 3))
    group = _group({"042": (60, urls("a", 3)), "057": (60, urls("b", 3))}, texts)
    paper, relaxed = _both(group, texts)
    # relaxed: 60 + 60 = 120 >= 100 mentions and 3 + 3 = 6 >= 5 URLs
    assert [g.label for g in relaxed.admitted] == ["(2025-05-06, USA, ?, CHN)"] and not relaxed.rejected
    # paper: neither event reaches 100 on its own
    assert not paper.admitted
    [(rejected, reason, detail)] = paper.rejected
    assert rejected is group and reason == "event_too_few_mentions"
    assert detail == "no event with >= 100 daily mentions (042: 60, 057: 60)"


def test_one_missing_text_fails_paper_but_not_relaxed() -> None:
    sources = urls("c", 5)
    texts = frozenset(sources[:4])  # the fifth article's text did not survive cleaning
    group = _group({"190": (150, sources)}, texts)
    paper, relaxed = _both(group, texts)
    assert len(relaxed.admitted) == 1  # 150 mentions, 5 URLs: relaxed does not ask for text
    [(_, reason, detail)] = paper.rejected
    assert reason == "event_too_few_articles"
    assert "(190: 4 of 5 URLs)" in detail and ">= 5 articles" in detail and ">= 100 daily mentions" in detail


def test_the_passing_event_is_the_test_relation_and_every_relation_an_answer() -> None:
    texts = frozenset(urls("d", 5) + urls("e", 2))
    group = _group(
        {
            "042": (150, urls("d", 5)),  # passes both
            "190": (60, urls("e", 2)),  # in the database (>= 50), below the test thresholds
            "036": (120, urls("f", 6)),  # loud, 6 URLs but none with text
        },
        texts,
    )
    # admission any: one loud event with 5 texts suffices (under every, 036 would block the pair; under
    # the paper recipe with answers_need_text, 036 never reaches admission: relation_split.group_quads)
    admission = paper_admission([group], MENTIONS, ARTICLES, texts, every=False)
    assert admission.admitted == [group] and group.test_relations == {"042"}
    row = query_row(group, "2025-05", REGIONS, (1,), PAPER)
    assert row["test_relations"] == ["042"]
    assert row["answers"] == ["036", "042", "190"]
    assert (row["n_articles"], row["n_text_articles"]) == (5 + 2 + 6, 5 + 2)


def test_both_paper_thresholds_must_hold_for_the_same_event() -> None:
    # 042 has the mentions (150) but 3 texts; 057 has 5 texts but 99 mentions. Relaxed sees 249 mentions
    # and 8 URLs; paper finds no single event with both.
    texts = frozenset(urls("g", 3) + urls("h", 5))
    group = _group({"042": (150, urls("g", 3)), "057": (99, urls("h", 5))}, texts)
    paper, relaxed = _both(group, texts)
    assert len(relaxed.admitted) == 1
    [(_, reason, detail)] = paper.rejected
    assert reason == "event_too_few_articles" and "(042: 3 of 3 URLs)" in detail  # 057 was already out


def test_thresholds_are_inclusive() -> None:
    texts = frozenset(urls("i", 5))
    group = _group({"042": (100, urls("i", 5))}, texts)
    paper, relaxed = _both(group, texts)
    assert len(paper.admitted) == len(relaxed.admitted) == 1


def test_steps_count_events_and_queries_removed() -> None:
    texts = frozenset(urls("k", 5) + urls("m", 4))
    groups = [
        # A: 042 admitted, 190 (70) removed by mentions
        _group({"042": (150, urls("k", 5)), "190": (70, urls("l", 1))}, texts, "USA"),
        # B: both events under 100 -> 2 events and the query removed by mentions
        _group({"042": (60, urls("k", 5)), "057": (80, urls("m", 4))}, texts, "FRA"),
        # C: 036 loud with 4 texts -> 1 event and the query removed by articles
        _group({"036": (300, urls("m", 4))}, texts, "RUS"),
    ]
    admission = paper_admission(groups, MENTIONS, ARTICLES, texts)
    assert [g.subject for g in admission.admitted] == ["USA"]
    mentions, articles = admission.steps
    assert (mentions.reason, mentions.events_removed, mentions.queries_removed) == (
        "event_too_few_mentions",
        1 + 2,
        1,
    )
    assert (articles.reason, articles.events_removed, articles.queries_removed) == (
        "event_too_few_articles",
        1,
        1,
    )
    assert articles.as_metrics(1)["queries_left"] == 1

    relaxed = relaxed_admission(groups, MENTIONS, ARTICLES)
    # A: 220 mentions, 6 URLs; B: 140, 9; C: 300, 4 URLs -> C alone goes, with its 1 event
    assert [g.subject for g in relaxed.admitted] == ["USA", "FRA"]
    assert all(g.test_relations is None for g in relaxed.admitted)  # every relation is tested
    group_mentions, group_urls = relaxed.steps
    assert (group_mentions.events_removed, group_mentions.queries_removed) == (0, 0)
    assert (group_urls.reason, group_urls.events_removed, group_urls.queries_removed) == (
        "group_too_few_urls",
        1,
        1,
    )
    [(_, _, detail)] = relaxed.rejected
    assert detail == "num_daily_mentions=300, urls=4; need >= 5 URLs"


def test_long_reject_details_list_six_events_and_count_the_rest() -> None:
    events = {f"0{n}0": (10 + n, [f"https://x.example/{n}"]) for n in range(1, 10)}  # 010 .. 090
    [(_, _, detail)] = paper_admission(
        [_group(events, frozenset())], MENTIONS, ARTICLES, frozenset()
    ).rejected
    assert detail == (
        "no event with >= 100 daily mentions (010: 11, 020: 12, 030: 13, 040: 14, 050: 15, 060: 16, and 3 more)"
    )


def test_admit_dispatches_on_the_recipe_and_refuses_others() -> None:
    texts = frozenset(urls("n", 5))
    assert admit([_group({"042": (60, urls("n", 5))}, texts)], PAPER, 100, 5, texts).admitted == []
    assert len(admit([_group({"042": (60, urls("n", 5))}, texts)], RELAXED, 50, 5, texts).admitted) == 1
    with pytest.raises(ValueError, match="unknown MIRAI recipe 'group'"):
        admit([], "group", 100, 5, texts)


def test_every_loud_event_needs_its_articles_under_the_authors_rule() -> None:
    # 042: 150 mentions, 5 texts (passes); 190: 120 mentions, 4 texts (loud, short); 057: 60 mentions,
    # 1 text (quiet: not asked). The authors take the minimum text count over the loud events: 4 < 5.
    texts = frozenset(urls("p", 5) + urls("q", 4) + urls("r", 1))
    events = {"042": (150, urls("p", 5)), "190": (120, urls("q", 4)), "057": (60, urls("r", 1))}
    every = paper_admission([_group(events, texts)], MENTIONS, ARTICLES, texts)
    assert not every.admitted
    [(_, reason, detail)] = every.rejected
    assert reason == "event_too_few_articles"
    assert detail == (
        "not every event with >= 100 daily mentions has >= 5 articles whose cleaned text survived "
        "(190: 4 of 4 URLs)"
    )
    # both loud events (042 and 190) stop being test candidates with the pair
    assert (every.steps[1].events_removed, every.steps[1].queries_removed) == (2, 1)
    # admission any: 042 alone admits the pair, and only 042 is a test relation
    group = _group(events, texts)
    anyone = paper_admission([group], MENTIONS, ARTICLES, texts, every=False)
    assert anyone.admitted == [group] and group.test_relations == {"042"}
    # once 190 has a fifth text, every loud event passes: both are the test relations
    texts_more = texts | {"https://news.example/q/4"}  # urls("q", 5) adds q/4
    fuller = _group({**events, "190": (120, urls("q", 5))}, texts_more)
    assert paper_admission([fuller], MENTIONS, ARTICLES, texts_more).admitted == [fuller]
    assert fuller.test_relations == {"042", "190"}
