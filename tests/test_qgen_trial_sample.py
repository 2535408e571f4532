"""`foresight.qgen.max_articles_per_month`: a seeded sample of a month's articles for trial runs.

Only the sampled articles are sent to the generator; the others are rejects (`not_sampled`), so the funnel
still adds up; the sample does not depend on row order, and 0 (the shipped default) sends every article.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.params import load_params
from almanac.foresight.generate import QgenConfig, generate_questions, sampled_article_ids
from almanac.llm.cache import LLMCache
from tests.foresight_stage_llm import article, cache, llm_server, question_block
from tests.support.llm_server import Reply

__all__ = ["cache", "llm_server"]  # pytest fixtures used by name

KEYS = ["a", "b", "c", "d", "e"]


def test_only_the_sampled_articles_reach_the_generator(llm_server: Any, cache: LLMCache) -> None:
    server, llm = llm_server(
        lambda prompt, seen: Reply(
            text=question_block("Which city will host the Games by June 10, 2025?", "Brennford")
        )
    )
    articles = pa.Table.from_pylist([article(key) for key in KEYS])
    config = QgenConfig(questions_per_article=1, max_articles_per_month=2, sample_seed=7)
    questions, ledger = generate_questions(articles, config, llm, cache)
    ledger.check_balance()
    # 5 articles in: 2 asked (one request each), 3 rejected as not sampled
    assert len(server.chat_bodies) == 2
    assert (ledger.items_in, ledger.items_out) == (5, 2)
    assert ledger.rejected_by_reason == {"not_sampled": 3}
    # The two asked are the two ids whose hash with the seed is smallest, worked out here on their own.
    ids = [content_id(key) for key in KEYS]
    expected = sorted(ids, key=lambda i: content_id("7", i))[:2]
    assert sorted(questions.column("article_id").to_pylist()) == sorted(expected)
    assert all("max_articles_per_month=2" in r.detail for r in ledger.rejects if r.reason == "not_sampled")


def test_the_sample_is_order_free_seeded_and_off_by_default() -> None:
    ids = [content_id(key) for key in KEYS]
    assert sampled_article_ids(ids, 3, 1) == sampled_article_ids(list(reversed(ids)), 3, 1)
    assert len(sampled_article_ids(ids, 3, 1)) == 3
    assert any(sampled_article_ids(ids, 2, seed) != sampled_article_ids(ids, 2, 1) for seed in range(2, 9))
    assert sampled_article_ids(ids, 0, 1) == set(ids) == sampled_article_ids(ids, 5, 1)
    shipped = load_params("params.yaml")["foresight"]["qgen"]
    assert shipped["max_articles_per_month"] == 0  # off by default: a real build sends every article
