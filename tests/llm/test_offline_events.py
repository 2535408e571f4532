"""The offline baseline of the complex-event tasks on hand-written inputs, read by the models' parsers.

Every task runs through run_task (same cache, client entry point and strict parser as a model's
answer), so each test also checks that the baseline writes the model format. Expected values were
worked out by hand from the rules in the offline modules' docstrings.
"""

from __future__ import annotations

from datetime import date

import pytest

from almanac.events.llm_tasks.article_category import article_category_item
from almanac.events.llm_tasks.date_mentions import mention_dates
from almanac.events.llm_tasks.event_arguments import event_arguments_item
from almanac.events.llm_tasks.occurrence_date import occurrence_date_item
from almanac.events.llm_tasks.replies import (
    ArticleCategory,
    EventArguments,
)
from almanac.events.llm_tasks.timeline_complement import timeline_complement_item
from almanac.events.llm_tasks.timeline_extract import timeline_extract_item
from almanac.events.llm_tasks.timeline_reorder import timeline_reorder_item
from almanac.llm.cache import LLMCache
from almanac.llm.registry import registered
from tests.llm.offline_events_run import WIKI_TEXT, cache, event, run

__all__ = ["cache"]  # pytest fixtures used by name
EVENT_TASKS = (
    "article_category",
    "occurrence_date",
    "timeline_extract",
    "timeline_complement",
    "timeline_reorder",
    "event_arguments",
    "argument_question",
    "event_negatives",
)


def test_every_event_task_is_one_module_with_its_builder_parser_and_offline_rules() -> None:
    for task in EVENT_TASKS:
        module = f"almanac.events.llm_tasks.{task}"
        found = registered()[task]
        assert found.name == task
        assert {found.item.__module__, found.parse.__module__, found.offline.__module__} == {module}


# ------------------------------------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("text", "anchor", "context_year", "tense", "expected"),
    [
        ("18 March 2025", None, None, 0, ["2025-03-18"]),
        ("March 6, 2025", None, None, 0, ["2025-03-06"]),
        ("the 21st of May 2025", None, None, 0, ["2025-05-21"]),
        ("between March and July 2025", None, None, 0, ["2025-03", "2025-07"]),  # year from the end
        ("3 to 5 March 2025", None, None, 0, ["2025-03-03", "2025-03-05"]),
        ("2024\u201325", None, None, 0, ["2024", "2025"]),
        ("mid-July", None, 2023, 0, ["2023-07"]),  # the year stated earlier in the text
        ("mid-July", None, None, 0, []),  # no year anywhere: unresolved
        ("the 1990s", None, 2025, 0, []),  # a decade is no single year
        ("several weeks", None, 2025, 0, []),
        ("31 February 2025", None, None, 0, []),
        ("Thursday", date(2025, 5, 8), None, 0, ["2025-05-08"]),  # 8 May 2025 is a Thursday
        ("yesterday", date(2025, 3, 12), None, 0, ["2025-03-11"]),
        ("4 May", date(2025, 3, 6), None, 0, ["2025-05-04"]),  # nearest to the document date
        ("December 30", date(2026, 1, 2), None, 0, ["2025-12-30"]),
        ("November", date(2025, 6, 19), None, -1, ["2024-11"]),  # "had agreed in November"
        ("last August", date(2025, 4, 24), None, 0, ["2024-08"]),
        ("next May", date(2025, 5, 8), None, 0, ["2026-05"]),
    ],
)
def test_date_mentions(
    text: str, anchor: date | None, context_year: int | None, tense: int, expected: list[str]
) -> None:
    assert [found.date for found in mention_dates(text, anchor, context_year, tense)] == expected


# -------------------------------------------------------------------------------- article category


ARTICLES = {
    "person": (
        "Jane Roe",
        "Jane Roe (born 3 May 1970) is a Canadian chemist and author.\n\nEarly life\nRoe grew up in Ottawa.",
    ),
    "country": ("Freedonia", "Freedonia is a country in central Europe. Its capital is Port Ellis."),
    "region": ("Oakvale", "Oakvale is a town in the north of the province, on the river Dane."),
    "organisation": (
        "Brightline Bank",
        "Brightline Bank is a retail bank based in Leeds. It was founded in 1921.",
    ),
    "sport": ("2024 Coastal Cup", "The 2024 Coastal Cup was the fifth season of the regional football cup."),
    "film": ("Midnight Harbour", "Midnight Harbour is a 2019 drama film directed by Ana Ruiz."),
    "holiday": ("Harvest Day", "Harvest Day is a public holiday celebrated on the first Monday of October."),
    "quake": (
        "2025 Tarn Valley earthquake",
        "The 2025 Tarn Valley earthquake was a strong earthquake that struck the Tarn Valley on 2 April "
        "2025. It destroyed 300 houses, and 4,000 people were evacuated.",
    ),
    "protests": (
        "2024 Millbrook protests",
        "The 2024 Millbrook protests were a series of protests against a new election law.",
    ),
    "collapse": (
        "Ridgeway bridge collapse",
        "Nine people died when the Ridgeway bridge fell into the river on 4 June 2023.",
    ),
    "tie": ("Avon affair", "The Avon affair was a scandal over a court ruling on an election."),
    "definition": ("Sandbar", "A sandbar is a narrow landform of sand built up by waves."),
}


def test_article_categories_and_topics(cache: LLMCache) -> None:
    items = [article_category_item(key, title, text, 0) for key, (title, text) in ARTICLES.items()]
    found = dict(zip(ARTICLES, run("article_category", items, cache), strict=True))
    assert found["person"] == ArticleCategory("people", "")  # head noun "chemist"
    assert found["country"] == ArticleCategory("country", "")
    assert found["region"] == ArticleCategory("region", "")
    assert found["organisation"] == ArticleCategory("organization", "")
    assert found["sport"] == ArticleCategory("sports competition", "")  # "season" before "cup"
    assert found["film"] == ArticleCategory("entertainment", "")
    assert found["holiday"] == ArticleCategory("holiday", "")
    # earthquake (title and lead) + evacuate: Disasters 3 hits; "struck" (lemma strike) 1 for Business.
    assert found["quake"] == ArticleCategory("event", "Disasters and accidents")
    # "a series of protests": the head that counts is "protests"; protest + election -> Politics.
    assert found["protests"] == ArticleCategory("event", "Politics and elections")
    # No copula: the title's "collapse" makes it an event (and is the one topic keyword).
    assert found["collapse"] == ArticleCategory("event", "Disasters and accidents")
    # court (Law and crime) and election (Politics) one hit each: the earlier topic in EVENT_TOPICS wins.
    assert found["tie"] == ArticleCategory("event", "Law and crime")
    assert found["definition"] == ArticleCategory("definition", "")


def test_occurrence_date_rules(cache: LLMCache) -> None:
    articles = {
        "span": ("2025 Orin strike", "The strike lasted from March to July 2025. Talks failed in May."),
        "bounds": (
            "Kell dam failure",
            "The Kell dam failed on 14 February 2024, the worst failure since 2011. A new dam will be "
            "finished by 2030.\nBackground\nThe dam was built in 1962.",
        ),
        "body": ("Avon affair", "The Avon affair was a scandal.\n\n== Background ==\nIt began in 2019."),
        "title_year": ("2022 Lake Orin floods", "The floods began in April and ended in June."),
        "none": ("Sandbar", "A sandbar is a narrow landform."),
    }
    items = [occurrence_date_item(key, title, text, 0) for key, (title, text) in articles.items()]
    found = {
        key: value.date for key, value in zip(articles, run("occurrence_date", items, cache), strict=True)
    }
    assert found["span"] == "2025-07"  # the end of the span, not the later-mentioned earlier month
    assert found["bounds"] == "2024-02-14"  # "since 2011" is a bound, 2030 a plan; the body is not read
    assert found["body"] == "2019"  # nothing in the lead: the whole text
    assert found["title_year"] == "2022-06"  # bare months take the title's year
    assert found["none"] == "unknown"


def test_timeline_extract_from_an_encyclopaedia_article(cache: LLMCache) -> None:
    [timeline] = run(
        "timeline_extract", [timeline_extract_item("w", "2024 Kell dam failure", None, WIKI_TEXT, 0)], cache
    )
    assert [(e.date.date, e.text) for e in timeline.events] == [
        # The lead's copula sentence states no happening; the list label is dropped from the text and
        # dates both clauses; the question, the quotation, the plan ("will"), the bound ("since 2011")
        # and the headings are skipped.
        ("2011", "The dam was inspected in 2011."),
        ("2024-03-12", "The dam at Kell collapses after days of rain."),
        ("2024-03-12", "Three villages are flooded."),
        ("2024-03-15", "Army engineers build a temporary barrier below the dam."),
        # "May" without a year takes the last year stated before it.
        ("2024-05", "Officials opened an inquiry in May, and the dam operator was fined."),
    ]


NEWS_TEXT = """Storm Ilex flooded the harbour district of Penrith Bay.
The mayor declared an emergency on Monday.
The council will meet on Friday to discuss repairs.
Crews reopened the coast road yesterday.
"We are exhausted," one resident said.
What happens next?
Storm Ilex flooded the harbour district of Penrith Bay overnight, officials said on Monday."""


def test_timeline_extract_from_news_resolves_relative_dates(cache: LLMCache) -> None:
    item = timeline_extract_item("n", "Storm Ilex", date(2025, 3, 12), NEWS_TEXT, 0)  # a Wednesday
    [timeline] = run("timeline_extract", [item], cache)
    assert [(e.date.date, e.text) for e in timeline.events] == [
        ("2025-03-12", "Storm Ilex flooded the harbour district of Penrith Bay."),  # the lede: document date
        ("2025-03-10", "The mayor declared an emergency on Monday."),
        ("2025-03-11", "Crews reopened the coast road yesterday."),
        # The last sentence repeats the first (content-word overlap >= 0.5): not a new event.
    ]


def test_timeline_extract_says_none_when_nothing_is_dated(cache: LLMCache) -> None:
    item = timeline_extract_item("e", "Sandbar", None, "A sandbar is a narrow landform of sand.", 0)
    [timeline] = run("timeline_extract", [item], cache)
    assert timeline.events == ()


def test_timeline_complement_inserts_new_events_by_date(cache: LLMCache) -> None:
    existing = [
        event("The dam at Kell burst on 1 March 2025, flooding three villages.", "2025-03-01"),
        event("The government declared a state of emergency.", "2025-03-10"),
        event("Donations arrived from abroad.", "unknown"),
    ]
    news = (
        "Rescue teams reached the village of Alder Ford.\n"
        "The dam at Kell burst on 1 March.\n"
        "Engineers inspected the reservoir on 4 March."
    )
    item = timeline_complement_item("c", existing, date(2025, 3, 5), "Rescuers reach Alder Ford", news, 0)
    [timeline] = run("timeline_complement", [item], cache)
    assert [(e.date.date, e.text) for e in timeline.events] == [
        ("2025-03-01", existing[0].text),
        ("2025-03-04", "Engineers inspected the reservoir on 4 March."),  # before the 5 March one
        ("2025-03-05", "Rescue teams reached the village of Alder Ford."),  # before the 10 March one
        ("2025-03-10", existing[1].text),
        ("unknown", existing[2].text),
        # "The dam at Kell burst on 1 March." is covered by the first event (Jaccard 5/8).
    ]


def test_timeline_reorder_is_a_stable_sort_on_effective_dates(cache: LLMCache) -> None:
    events = [
        event("A", "2025-03-05"),
        event("B", "unknown"),  # keeps 2025-03-05, so it stays right after A
        event("C", "2025-03-01"),
        event("D", "2025-03"),  # a month sorts before the days inside it
        event("E", "2024"),
    ]
    [order] = run("timeline_reorder", [timeline_reorder_item("r", "t", "sources", events, 0)], cache)
    assert order.order == (4, 3, 2, 0, 1)


def test_event_arguments_from_the_dependency_parse(cache: LLMCache) -> None:
    events = [
        event("The French government declared a state of emergency in Paris on 4 May 2025.", "2025-05-04"),
        event("The bridge was closed by police.", "2025-05-05"),
        event("The minister did not resign.", "2025-05-06"),
        event("Talks broke down in Geneva.", "2025-05-07"),
        event("Protesters marched for weeks.", "2025-05"),
    ]
    [found] = run("event_arguments", [event_arguments_item("a", events)], cache)
    declared, closed, resigned, talks, marched = found
    assert declared.event_type == "declare state of emergency"
    assert (declared.subject, declared.location, declared.time) == (
        "The French government",
        "Paris",
        "4 May 2025",
    )
    assert declared.object.startswith("a state of emergency")
    assert closed == EventArguments("be closed", "The bridge", "", "", "")  # "by police" is the agent
    assert resigned == EventArguments("not resign", "The minister", "", "", "")
    assert talks == EventArguments("break down", "Talks", "", "Geneva", "")  # the place is no object
    assert marched == EventArguments("march", "Protesters", "", "", "")  # "weeks" names no date
