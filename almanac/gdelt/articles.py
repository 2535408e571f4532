"""gdelt_articles: the article text behind each clean GDELT event URL, cleaned as MIRAI cleans it.

Each distinct canonical URL of the clean events is one item. Its text is taken from the first source
that has it, in this order (``origin``):

1. ``ccnews``: the CC-News corpus of the configured months, matched exactly as wcep_news does
   (:func:`almanac.wcep.news.match_key`: canonical URL, scheme and a leading ``www.`` ignored; of
   several corpus copies the earliest published wins);
2. ``archive``: read-only WARC page archives (``page_archives``, :mod:`almanac.gdelt.page_archive`),
   e.g. a lab's own crawl of GDELT URLs, and the bundled sample's;
3. ``fetched``: with ``fetch`` on, the polite :class:`~almanac.wcep.news.Fetcher` (robots.txt,
   deadlines, bounded retries).

A URL no source has is rejected ``no_text_found`` (or with the archive's or the fetcher's reason when a
page was there but unusable). The text found is then cleaned in two passes
(:mod:`almanac.gdelt.paragraphs`): paragraphs failing a paragraph check are dropped (counted per URL in
``paragraphs_dropped`` and per reason in the ledger), then the kept text must pass the document checks,
whose first failure is the reject reason (``no_paragraph_kept`` when nothing was kept), and last the
document-level language identification (``language_id``: English with probability >= 0.8 by default,
:mod:`almanac.gdelt.language`). The kept text is what is written: an event's article counts only if it
is a row here.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.core.schemas import TIMESTAMP, table_from_rows
from almanac.core.step import Drop, Step, apply_step
from almanac.gdelt.doc_quality import load_flagged_words, measure
from almanac.gdelt.language import LANGUAGE_ID, language_failure
from almanac.gdelt.page_archive import ArchivedPage, PageArchive, PageProblem
from almanac.gdelt.paragraphs import (
    CHECK_REASONS,
    NO_PARAGRAPH_KEPT,
    DocumentThresholds,
    ParagraphThresholds,
    clean_paragraphs,
    first_failure,
)
from almanac.wcep.news import Fetcher, NewsConfig, corpus_articles, match_key

STAGE: Final = "gdelt_articles"
ORIGINS: Final = ("ccnews", "archive", "fetched")  # text sources, in the order they are tried
NO_TEXT_FOUND: Final = "no_text_found"

GDELT_ARTICLE_SCHEMA = pa.schema(
    [
        pa.field("url", pa.string(), nullable=False),  # canonical URL, as in the clean events
        # corpus id; for an archived or fetched page content_id(url, extracted text)
        pa.field("article_id", pa.string(), nullable=False),
        pa.field("title", pa.string()),
        pa.field("text", pa.string(), nullable=False),  # the cleaned text: kept paragraphs, one per line
        pa.field("publish_date", TIMESTAMP),
        pa.field("origin", pa.string(), nullable=False),  # one of ORIGINS
        # the document measures, over the cleaned text
        pa.field("word_count", pa.int32(), nullable=False),
        pa.field("char_repetition", pa.float64(), nullable=False),
        pa.field("word_repetition", pa.float64(), nullable=False),
        pa.field("special_char_ratio", pa.float64(), nullable=False),
        pa.field("flagged_word_ratio", pa.float64(), nullable=False),
        pa.field("paragraphs_dropped", pa.int32(), nullable=False),  # by the paragraph pass
    ]
)

# Document-level reasons, in the order they are tried (the others are text-source failures).
QUALITY_REASONS: Final = (NO_PARAGRAPH_KEPT, *CHECK_REASONS, LANGUAGE_ID)
# The list shipped with the project; a param may name any other file of the same format.
BUNDLED_FLAGGED_WORDS: Final = Path(__file__).with_name("flagged_words.txt")

_DEFAULT_NEWS = NewsConfig()


@dataclass(frozen=True)
class GdeltArticlesConfig:
    fetch: bool = False  # default: corpus and archives only, no network
    page_archives: tuple[str, ...] = ()  # folders of WARC files, read in this order
    flagged_words: str = ""  # path of a flagged-words list; "" = the bundled almanac/gdelt/flagged_words.txt
    paragraph: ParagraphThresholds = field(default_factory=ParagraphThresholds)
    document: DocumentThresholds = field(default_factory=DocumentThresholds)
    # Document-level language ID (MIRAI's authors: English, probability >= 0.8); 0 turns it off.
    language: str = "en"
    min_language_probability: float = 0.8
    # How the fetcher behaves (only with fetch on); defaults are wcep_news's.
    user_agent: str = _DEFAULT_NEWS.user_agent
    timeout_s: float = _DEFAULT_NEWS.timeout_s
    retries: int = _DEFAULT_NEWS.retries
    respect_robots: bool = _DEFAULT_NEWS.respect_robots
    max_bytes: int = _DEFAULT_NEWS.max_bytes
    backoff_initial_s: float = _DEFAULT_NEWS.backoff_initial_s
    backoff_max_s: float = _DEFAULT_NEWS.backoff_max_s

    def __post_init__(self) -> None:
        self.news_config()  # the fetcher's own checks
        if not 0.0 <= self.min_language_probability <= 1.0:
            raise ValueError("gdelt_articles.min_language_probability must lie in [0, 1]")

    def flagged_words_path(self) -> Path:
        return Path(self.flagged_words) if self.flagged_words else BUNDLED_FLAGGED_WORDS

    def news_config(self) -> NewsConfig:
        # min_words=0: a short fetched page is judged by the same cleaning as a corpus article, so that
        # one reason (too_few_words) covers both.
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


def load_config_lists(config: GdeltArticlesConfig, urls: Iterable[str]) -> tuple[frozenset[str], PageArchive]:
    """The flagged words and the page archives (read for ``urls``) that ``config`` names."""
    flagged = load_flagged_words(config.flagged_words_path())
    return flagged, PageArchive.open([Path(folder) for folder in config.page_archives], urls)


def link_articles(
    urls: Iterable[str],
    corpus: pa.Table,
    config: GdeltArticlesConfig,
    fetcher: Fetcher | None,
    ledger: StageLedger,
    *,
    archive: PageArchive | None = None,
    flagged: frozenset[str] = frozenset(),
) -> pa.Table:
    """One GDELT_ARTICLE_SCHEMA row per distinct URL whose text was found and survived cleaning.

    ``urls`` are canonical URLs (duplicates count once). Rows are ordered by URL. Reject ids are
    ``content_id(url)``; the source is the URL; related_id is the article id where there is one. With
    ``config.fetch`` on and no ``fetcher`` given, one is opened and closed here. Ledger tallies:
    ``linked_by`` (texts found, by origin), ``paragraphs_read`` and ``paragraphs_dropped``
    (by paragraph-level reason), both over every text found, kept or not.
    """
    distinct = sorted(set(urls))
    found = corpus_articles(corpus, {match_key(url) for url in distinct})
    with ExitStack() as stack:
        if config.fetch and fetcher is None:
            fetcher = stack.enter_context(Fetcher(config.news_config()))
        active = fetcher if config.fetch else None

        def link(url: str) -> dict[str, Any] | Drop:
            article = found.get(match_key(url)) or _other_sources(url, archive, active, ledger)
            if isinstance(article, Drop):
                return article
            ledger.count("linked_by", article["origin"])
            return _cleaned(url, article, config, flagged, ledger)

        rows = apply_step(distinct, Step(link, lambda url: content_id(url), str), ledger, desc=STAGE)
    return table_from_rows(rows, GDELT_ARTICLE_SCHEMA)


def _other_sources(
    url: str, archive: PageArchive | None, fetcher: Fetcher | None, ledger: StageLedger
) -> dict[str, Any] | Drop:
    """The text of a URL the corpus lacks: its archived page, else (fetch on) the live page; on
    failure a Drop with the last source's reason."""
    page = archive.find(url) if archive is not None else None
    if isinstance(page, ArchivedPage):
        return {
            "article_id": content_id(url, page.text),
            "title": page.title,
            "text": page.text,
            "publish_date": page.publish_date,
            "origin": "archive",
        }
    # An unusable archived page falls through to the fetcher: the live page may be fine.
    problem = page if isinstance(page, PageProblem) else None
    if fetcher is not None:
        result = fetcher.fetch(url)
        if result.ok:
            ledger.count("fetched_language", result.language or "unknown")
            return {
                "article_id": content_id(url, result.text),
                "title": result.title,
                "text": result.text,
                "publish_date": result.publish_date,
                "origin": "fetched",
            }
        detail = result.detail + (f" (archived copy: {problem.reason}: {problem.detail})" if problem else "")
        return Drop(result.reason or "fetch_failed", detail)
    if problem is not None:
        return Drop(problem.reason, problem.detail)
    where = "the CC-News corpus" + (" nor the page archives" if archive is not None else "")
    return Drop(NO_TEXT_FOUND, f"not in {where}; fetching is off")


def _cleaned(
    url: str,
    article: dict[str, Any],
    config: GdeltArticlesConfig,
    flagged: frozenset[str],
    ledger: StageLedger,
) -> dict[str, Any] | Drop:
    """The output row of a found text after both cleaning passes, or why it is dropped."""
    cleaned = clean_paragraphs(article["text"], config.paragraph, flagged)
    ledger.extra["paragraphs_read"] = ledger.extra.get("paragraphs_read", 0) + cleaned.paragraphs
    for reason, dropped in cleaned.dropped_by_reason.items():
        ledger.count("paragraphs_dropped", reason, dropped)
    after = f"after dropping {cleaned.dropped} of {cleaned.paragraphs} paragraphs"
    if not cleaned.text:
        return Drop(NO_PARAGRAPH_KEPT, after, article["article_id"])
    quality = measure(cleaned.text, flagged)
    failure = first_failure(quality, config.document)
    if failure is not None:
        return Drop(failure[0], f"{failure[1]} {after}", article["article_id"])
    wrong_language = language_failure(cleaned.text, config.language, config.min_language_probability)
    if wrong_language is not None:
        return Drop(LANGUAGE_ID, f"{wrong_language} {after}", article["article_id"])
    return {
        "url": url,
        **article,
        "text": cleaned.text,
        **quality._asdict(),
        "paragraphs_dropped": cleaned.dropped,
    }
