"""gdelt_articles: the article behind each kept GDELT event's URL, then MIRAI's document cleaning.

Each distinct canonical URL of the clean events is one item. It is looked up in the CC-News corpus
exactly as wcep_news does (:func:`almanac.wcep.news.match_key`: canonical URL, scheme and a leading
``www.`` ignored; of several corpus copies the earliest published wins). With ``fetch`` on, a URL
missing from the corpus is fetched by the same polite :class:`~almanac.wcep.news.Fetcher`. The text
found is then measured (:mod:`almanac.gdelt.doc_quality`) and kept only if it passes every threshold,
checked in this order, the first failure being the reject reason: ``too_few_words``,
``char_repetition``, ``word_repetition``, ``special_chars``.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Final

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.core.schemas import TIMESTAMP, table_from_rows
from almanac.gdelt.doc_quality import CHAR_NGRAM, WORD_NGRAM, DocQuality, measure
from almanac.wcep.news import Fetcher, NewsConfig, corpus_articles, match_key

STAGE: Final = "gdelt_articles"

GDELT_ARTICLE_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string(), nullable=False),  # canonical URL, as in the clean events
        pa.field("article_id", pa.string(), nullable=False),  # corpus id, or content_id(url, text) if fetched
        pa.field("title", pa.string()),
        pa.field("text", pa.string(), nullable=False),
        pa.field("publish_date", TIMESTAMP),
        pa.field("origin", pa.string(), nullable=False),  # "ccnews" | "fetched"
        pa.field("word_count", pa.int32(), nullable=False),
        pa.field("char_repetition", pa.float64(), nullable=False),
        pa.field("word_repetition", pa.float64(), nullable=False),
        pa.field("special_char_ratio", pa.float64(), nullable=False),
    ]
)

# Reasons of the document checks, in the order they are tried (the others are linking failures).
QUALITY_REASONS: Final = ("too_few_words", "char_repetition", "word_repetition", "special_chars")

_DEFAULT_NEWS = NewsConfig()


@dataclass(frozen=True)
class GdeltArticlesConfig:
    fetch: bool = False  # default: corpus only, no network
    min_words: int = 50
    max_char_repetition: float = 0.2
    max_word_repetition: float = 0.2
    max_special_char_ratio: float = 0.3
    # How the fetcher behaves (only with fetch on); defaults are wcep_news's.
    user_agent: str = _DEFAULT_NEWS.user_agent
    timeout_s: float = _DEFAULT_NEWS.timeout_s
    retries: int = _DEFAULT_NEWS.retries
    respect_robots: bool = _DEFAULT_NEWS.respect_robots
    max_bytes: int = _DEFAULT_NEWS.max_bytes
    backoff_initial_s: float = _DEFAULT_NEWS.backoff_initial_s
    backoff_max_s: float = _DEFAULT_NEWS.backoff_max_s

    def __post_init__(self) -> None:
        if self.min_words < 0:
            raise ValueError(f"gdelt_articles.min_words must be >= 0, got {self.min_words}")
        for name in ("max_char_repetition", "max_word_repetition", "max_special_char_ratio"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"gdelt_articles.{name} is a share and must lie in [0, 1], got {value}")
        self.news_config()  # the fetcher's own checks

    def news_config(self) -> NewsConfig:
        # min_words=0: a short fetched page is judged by the same word-count check as a corpus article,
        # so that one reason (too_few_words) covers both.
        return NewsConfig(
            fetch=self.fetch,
            user_agent=self.user_agent,
            timeout_s=self.timeout_s,
            retries=self.retries,
            respect_robots=self.respect_robots,
            max_bytes=self.max_bytes,
            min_words=0,
            backoff_initial_s=self.backoff_initial_s,
            backoff_max_s=self.backoff_max_s,
        )


def quality_failure(quality: DocQuality, config: GdeltArticlesConfig) -> tuple[str, str] | None:
    """(reason, detail) of the first threshold the document fails, or None if it passes them all.

    Word counts below ``min_words`` fail; the three ratios fail when strictly above their maximum.
    """
    if quality.word_count < config.min_words:
        return "too_few_words", f"{quality.word_count} words < {config.min_words}"
    if quality.char_repetition > config.max_char_repetition:
        detail = f"{quality.char_repetition:.3f} > {config.max_char_repetition}"
        return "char_repetition", f"character {CHAR_NGRAM}-gram repetition {detail}"
    if quality.word_repetition > config.max_word_repetition:
        detail = f"{quality.word_repetition:.3f} > {config.max_word_repetition}"
        return "word_repetition", f"word {WORD_NGRAM}-gram repetition {detail}"
    if quality.special_char_ratio > config.max_special_char_ratio:
        detail = f"{quality.special_char_ratio:.3f} > {config.max_special_char_ratio}"
        return "special_chars", f"special-character ratio {detail}"
    return None


def link_articles(
    urls: Iterable[str],
    corpus: pa.Table,
    config: GdeltArticlesConfig,
    fetcher: Fetcher | None,
    ledger: StageLedger,
) -> pa.Table:
    """One GDELT_ARTICLE_SCHEMA row per distinct URL whose article was found and passed the checks.

    ``urls`` are canonical URLs (duplicates count once). Rows are ordered by URL. A URL that finds
    no article is rejected ``not_in_corpus`` (fetching off) or with the fetcher's reason; an article
    failing a check is rejected with that check's reason. Reject ids are ``content_id(url)``; the
    source is the URL; related_id is the article id where there is one. With ``config.fetch`` on and
    no ``fetcher`` given, one is opened and closed here.
    """
    distinct = sorted(set(urls))
    ledger.items_in += len(distinct)
    found = corpus_articles(corpus, {match_key(url) for url in distinct})
    rows: list[dict[str, Any]] = []
    with ExitStack() as stack:
        if config.fetch and fetcher is None:
            fetcher = stack.enter_context(Fetcher(config.news_config()))
        active = fetcher if config.fetch else None
        for url in distinct:
            article = found.get(match_key(url))
            if article is None and active is not None:
                result = active.fetch(url)
                if not result.ok:
                    ledger.reject(content_id(url), result.reason or "fetch_failed", result.detail, url)
                    continue
                ledger.count("fetched_language", result.language or "unknown")
                article = {
                    "article_id": content_id(url, result.text),
                    "title": result.title,
                    "text": result.text,
                    "publish_date": result.publish_date,
                    "origin": "fetched",
                }
            if article is None:
                ledger.reject(content_id(url), "not_in_corpus", url, url)
                continue
            ledger.count("linked_by", article["origin"])
            quality = measure(article["text"])
            failure = quality_failure(quality, config)
            if failure is not None:
                ledger.reject(content_id(url), failure[0], failure[1], url, article["article_id"])
                continue
            rows.append({"url": url, **article, **quality._asdict()})
    ledger.items_out += len(rows)
    return table_from_rows(rows, GDELT_ARTICLE_SCHEMA)
