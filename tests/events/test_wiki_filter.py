"""wiki_filter: the section-title filter, then the classifier's category and date through a loopback server."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from almanac.core.schemas import table_from_rows
from almanac.events.wiki_filter import WikiFilterConfig, filter_event_articles
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import MALFORMED
from almanac.wiki.ingest import WIKI_ARTICLE_SCHEMA
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.support.llm_server import LLMTestServer, Reply

Serve = Callable[..., LLMTestServer]


def article(page_id: int, title: str, *headed: tuple[str, str]) -> dict[str, Any]:
    sections = [{"title": "", "level": 0, "text": f"{title} is the subject of this article."}]
    sections += [{"title": name, "level": 2, "text": text} for name, text in headed]
    return {
        "page_id": page_id,
        "title": title,
        "revision_id": page_id * 10,
        "revision_timestamp": dt.datetime(2025, 8, 1, tzinfo=dt.UTC),
        "sections": sections,
        "word_count": 300,
        "source": f"dump.xml:page:{page_id}",
    }


ARTICLES = [
    article(
        105,
        "Quorrel dock strike",
        ("Background", "Pay talks failed."),
        ("Reactions", "Exporters complained."),
        ("References", ""),
    ),
    article(
        101,
        "Veloria floods",
        ("Background", "Heavy rain fell."),
        ("Geography", "A wide plain."),
        ("Aftermath", "Towns were rebuilt."),
        ("See also", "List of floods"),
    ),
    article(
        102,
        "Ilsa Marrow",
        ("Early life and background", "Born in a river town."),
        ("Personal life", "Married."),
    ),
    article(103, "Harbour riots of Tessam", ("Aftermath", "The harbour closed.")),
    article(104, "Battle of Ostrovel Ford", ("Reactions", "Chroniclers disagreed.")),
    article(106, "Estravia", ("History", "An old kingdom."), ("Geography", "Mountains.")),
    article(107, "Dockside fire at Marlo", ("Investigation", "Inspectors found faults.")),
]
CATEGORY = {
    "Veloria floods": "<category>event</category><topic>Disasters and accidents</topic>",
    "Ilsa Marrow": "<category>people</category><topic>none</topic>",
    "Harbour riots of Tessam": "<category>event</category><topic>Law and crime</topic>",
    "Battle of Ostrovel Ford": "<category>event</category><topic>Armed conflicts and attacks</topic>",
    "Quorrel dock strike": "<category>event</category><topic>Business and economy</topic>",
    "Dockside fire at Marlo": "<category>event</category><topic>Disasters and accidents</topic>",
}
DATE = {
    "Veloria floods": "<occurrence_date>2025-07</occurrence_date>",
    "Harbour riots of Tessam": "<occurrence_date>1948</occurrence_date>",
    "Battle of Ostrovel Ford": "<occurrence_date>unknown</occurrence_date>",
    "Quorrel dock strike": "<occurrence_date>2025-04-10</occurrence_date>",
    "Dockside fire at Marlo": "It happened sometime in the spring.",  # malformed, and again after repair
}


def script(body: dict[str, Any], seen: int) -> Reply:
    messages = body["messages"]
    roles = [message["role"] for message in messages]
    is_repair = "assistant" in roles
    asked = messages[: roles.index("assistant")] if is_repair else messages  # the first round's prompt
    prompt = "\n".join(message["content"] for message in asked)
    title = next(title for title in CATEGORY if title in prompt)
    if "<occurrence_date>" in prompt:
        return Reply(text=DATE[title])
    assert "<category>" in prompt
    if title == "Quorrel dock strike" and not is_repair:
        return Reply(text="This article is about an industrial dispute, so: event.")  # no tags at all
    return Reply(text=CATEGORY[title])


def run(server: LLMTestServer, cache: LLMCache) -> tuple[list[dict[str, Any]], Any]:
    llm = LLMConfig(
        roles={"classifier": remote_role(server, name="classifier")},
        cache_path="unused",
        prompts_dir=str(PROMPTS_DIR),
    )
    table, ledger = filter_event_articles(
        table_from_rows(ARTICLES, WIKI_ARTICLE_SCHEMA), WikiFilterConfig(min_year=1950), llm, cache
    )
    ledger.check_balance()
    return table.to_pylist(), ledger


def test_filters_keep_dated_event_articles_with_their_event_sections(serve: Serve, cache: LLMCache) -> None:
    server = serve(script)
    rows, ledger = run(server, cache)

    assert [row["page_id"] for row in rows] == [101, 105]
    floods, strike = rows
    assert (floods["topic"], floods["occurrence_date"], floods["date_precision"]) == (
        "Disasters and accidents",
        "2025-07",
        "month",
    )
    assert (strike["topic"], strike["occurrence_date"], strike["date_precision"]) == (
        "Business and economy",
        "2025-04-10",
        "day",
    )
    # Lead + event-evolution sections only: Geography and See also are gone.
    assert [s["title"] for s in floods["sections"]] == ["", "Background", "Aftermath"]
    assert floods["word_count"] == 8 + 3 + 3  # lead, Background, Aftermath (titles not counted)

    reasons = {reject.id: reject.reason for reject in ledger.rejects}
    assert reasons == {
        "102": "category_people",
        "103": "before_min_year",
        "104": "no_occurrence_date",
        "106": "no_event_section",
        "107": MALFORMED,
    }
    assert ledger.items_in == 7 and ledger.items_out == 2
    fire = next(reject for reject in ledger.rejects if reject.id == "107")
    assert "sometime in the spring" in fire.detail and fire.source == "dump.xml:page:107"

    # The country article never reached the model; the strike's category needed one repair round.
    assert server.count("Estravia") == 0
    assert server.chat_requests == 6 + 1 + 5 + 1  # categories + repair, dates + the fire's repair
    assert ledger.extra["llm"]["classifier.repaired"] == 1
    assert ledger.extra["article_categories"] == {"event": 5, "people": 1}
    assert ledger.extra["date_precisions"] == {"day": 1, "month": 1, "unknown": 1, "year": 1}
    assert ledger.extra["event_topics"] == {"Business and economy": 1, "Disasters and accidents": 1}


def test_second_run_is_served_from_the_cache(serve: Serve, cache: LLMCache) -> None:
    server = serve(script)
    first, _ = run(server, cache)
    requests = server.chat_requests
    second, ledger = run(server, cache)
    assert server.chat_requests == requests
    assert second == first
    assert ledger.rejected_by_reason == {
        "before_min_year": 1,
        "category_people": 1,
        MALFORMED: 1,
        "no_event_section": 1,
        "no_occurrence_date": 1,
    }
