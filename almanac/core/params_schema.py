"""Every key of ``params.yaml`` with its type and range, checked whole when the file is loaded.

A stage reads only its own section, so a bad value elsewhere (``questions_per_article: 0``, ``min_words:
-5`` or ``true``) used to pass silently and build empty. ``params_rules.validate_params`` checks every key the
table names at load time, and every cross-field rule below, and raises :class:`ParamsError` with one
line naming the key. A key the table does not name is left to its section's dataclass (which refuses
unknown keys when the stage reads it); tests/test_params_schema.py checks the shipped params.yaml has
no key the table misses, so a new key gets its row here. The cross-field rules are in
``almanac.core.params_rules``.

Patterns: ``*`` matches one key (``llm.roles.*.max_tokens``: every role).
"""

from __future__ import annotations

from dataclasses import dataclass


class ParamsError(ValueError):
    """A value in params.yaml is of the wrong type, out of range, or contradicts another (one line)."""


@dataclass(frozen=True)
class Rule:
    kind: str  # int, float, bool, str, list, map, month, date, any
    low: float | None = None  # inclusive lower bound (numbers; the length of lists with `item`)
    high: float | None = None  # inclusive upper bound
    above: float | None = None  # exclusive lower bound (a positive float: above=0)
    choices: tuple[str, ...] = ()
    item: Rule | None = None  # rule of each list item or map value
    pattern: str = ""  # a regular expression a str must match in full
    nonempty: bool = False  # str or list
    whole: bool = True  # map: the rule checks its values, so the walk does not descend into it


def count(low: int = 1, high: int | None = None) -> Rule:
    """An integer where 0 makes no sense (``low`` 1 unless stated)."""
    return Rule("int", low=low, high=high)


def natural() -> Rule:
    """An integer where 0 means "none" or "no limit"."""
    return Rule("int", low=0)


def seconds() -> Rule:
    return Rule("float", above=0)


def nonneg() -> Rule:
    return Rule("float", low=0)


def share() -> Rule:
    return Rule("float", low=0, high=1)


def flag() -> Rule:
    return Rule("bool")


def text(nonempty: bool = False, pattern: str = "") -> Rule:
    return Rule("str", nonempty=nonempty, pattern=pattern)


def choice(*options: str) -> Rule:
    return Rule("str", choices=options)


def strings(nonempty: bool = False) -> Rule:
    return Rule("list", item=text(nonempty=True), nonempty=nonempty)


def months(nonempty: bool = False) -> Rule:
    return Rule("list", item=Rule("month"), nonempty=nonempty)


def mapping(value: Rule | None = None, whole: bool = True) -> Rule:
    return Rule("map", item=value, whole=whole)


ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*|"  # a variable's name (or "" for none), never a key pasted in
DAY = Rule("date")
DAY_OR_EMPTY = Rule("date", nonempty=False, pattern="or-empty")

SCHEMA: dict[str, Rule] = {
    "months": months(nonempty=True),
    "empty_months": mapping(months()),  # per source: {ccnews: [...], gdelt: [...]} (almanac.core.params)
    "progress": flag(),
    "ray.address": text(),
    "ray.num_cpus": natural(),
    "ray.object_store_mb": count(),
    "ray.executor": choice("ray", "serial"),
    "ray.max_in_flight": natural(),
    "ray.min_items": natural(),
    "ray.min_bytes": natural(),
    "ccnews_ingest.raw_dir": text(),  # "" = no CC-News in this build
    "ccnews_ingest.decode_errors": choice("strict", "replace"),
    "ccnews_ingest.undated": choice("crawl_date", "reject"),
    "ccnews_ingest.max_date_lag_days": natural(),
    "ccnews_ingest.truncated": choice("salvage", "reject"),
    "ccnews_ingest.max_record_bytes": count(),
    "ccnews_ingest.max_page_bytes": count(),
    "ccnews_ingest.max_article_words": count(),
    "ccnews_ingest.max_header_bytes": count(),
    "ccnews_ingest.max_line_bytes": count(),
    "ccnews_ingest.max_field_bytes": count(),
    "ccnews_ingest.filters.domains": strings(),
    "ccnews_ingest.filters.languages": strings(),
    "ccnews_ingest.filters.min_words": natural(),
    "ccnews_ingest.filters.min_publish_date": DAY_OR_EMPTY,
    "ccnews_ingest.filters.max_publish_date": DAY_OR_EMPTY,
    "dedup.threshold": Rule("float", above=0, high=1),
    "dedup.seed": natural(),
    "dedup.docs_per_task": count(),
    "dedup.sign_batch_rows": count(),
    "dedup.text_batch_rows": count(),
    "dedup.band_shards": count(),
    "dedup.workers": natural(),
    "llm.cache_path": text(nonempty=True),
    "llm.prompts_dir": text(nonempty=True),
    "llm.max_failed_share": share(),
    "llm.max_retry_after_s": nonneg(),
    "llm.roles": mapping(mapping(), whole=False),
    "llm.roles.*": mapping(whole=False),
    "llm.roles.*.backend": text(nonempty=True),
    "llm.roles.*.model": text(nonempty=True),
    "llm.roles.*.base_url": text(),
    "llm.roles.*.api_key_env": text(pattern=ENV_NAME),
    "llm.roles.*.temperature": Rule("float", low=0, high=2),
    "llm.roles.*.max_tokens": count(),
    "llm.roles.*.extra": mapping(),
    "llm.roles.*.max_concurrency": count(),
    "llm.roles.*.requests_per_minute": natural(),
    "llm.roles.*.tokens_per_minute": natural(),
    "llm.roles.*.timeout_s": seconds(),
    "llm.roles.*.max_retries": natural(),
    "llm.roles.*.backoff_base_s": nonneg(),
    "llm.roles.*.backoff_max_s": nonneg(),
    "llm.roles.*.batch": flag(),
    "llm.roles.*.batch_poll_s": seconds(),
    "llm.roles.*.batch_max_wait_s": seconds(),
    "llm.roles.*.max_failed_share": share(),
    "llm.roles.*.max_retry_after_s": nonneg(),
    "llm.roles.*.model_aliases": strings(),
    "llm.roles.*.structured_outputs": flag(),
    "llm.roles.*.price_per_1m_input": nonneg(),
    "llm.roles.*.price_per_1m_output": nonneg(),
    "foresight.qgen.questions_per_article": count(),
    "foresight.qgen.max_article_chars": count(),
    "foresight.qgen.role": text(nonempty=True),
    "foresight.qgen.max_articles_per_month": count(low=0),
    "foresight.qgen.sample_seed": Rule("int"),
    "foresight.judge.max_article_chars": count(),
    "foresight.judge.role": text(nonempty=True),
    "foresight.leakage.role": text(nonempty=True),
    "foresight.leakage.scan.fuzzy_threshold": Rule("float", low=0, high=100),
    "foresight.leakage.scan.check_aliases": flag(),
    "foresight.leakage.scan.min_alias_chars": count(),
    "foresight.leakage.scan.fields": strings(nonempty=True),
    "foresight.answer_type.allowed_classes": strings(nonempty=True),
    "foresight.answer_type.spacy_model": text(nonempty=True),
    "foresight.question_filters": mapping(),
    "foresight.dates.date_repair": flag(),
    "foresight.dates.role": text(nonempty=True),
    "foresight.dates.max_article_chars": count(),
    "foresight.dates.partial_deadline": choice("end", "reject"),
    "foresight.question_dedup.threshold": Rule("float", above=0, high=1),
    "foresight.question_dedup.seed": natural(),
    "foresight.split.test_month_count": natural(),  # 0 = no test split (an imported release's own windows)
    "foresight.split.validation_month_count": natural(),
    "foresight.split.test_sources": strings(),
    "foresight.split.source_disjoint_test": flag(),
    "foresight.split.test_source_share": share(),
    "foresight.split.cross_question_leakage": choice("drop", "flag"),
    "futuresim.corpus.chunk_tokens": count(),
    "futuresim.retrieval.k": count(),
    "futuresim.retrieval.cutoff_months": natural(),
    "futuresim.retrieval.query_fields": strings(nonempty=True),
    "futuresim.retrieval.own_article_containment": share(),
    "futuresim.simulate.forecaster_role": text(nonempty=True),
    "futuresim.simulate.judge_role": text(nonempty=True),
    "futuresim.simulate.k": count(),
    "futuresim.simulate.days_before": count(),
    "futuresim.simulate.max_chunk_chars": count(),
    "futuresim.repair.passes": natural(),
    "futuresim.repair.k": count(),
    "futuresim.repair.max_chunk_chars": count(),
    "futuresim.repair.role": text(nonempty=True),
    "futuresim.repair.judge_role": text(nonempty=True),
    "futuresim.answerability.stale_check": flag(),
    "futuresim.answerability.stale_lead_days": count(),
    "futuresim.answerability.stale_min_confidence": share(),
    "futuresim.answerability.noise_check": flag(),
    "futuresim.answerability.noise_lag_days": natural(),
    "futuresim.answerability.k": count(),
    "futuresim.answerability.max_chunk_chars": count(),
    "futuresim.answerability.role": text(nonempty=True),
    "futuresim.answerability.judge_role": text(nonempty=True),
    "wiki_ingest.raw_dir": text(nonempty=True),
    "wiki_ingest.min_words": natural(),
    "wiki_ingest.max_page_bytes": count(),
    "wcep_ingest.dump_dir": text(),
    "wcep_ingest.portal_dir": text(),
    "wcep_ingest.mds_files": strings(),
    "wcep_ingest.max_page_bytes": count(),
    "wcep_ingest.max_line_bytes": count(),
    "wiki_filter.section_titles": strings(nonempty=True),
    "wiki_filter.min_year": count(high=9999),
    "wiki_filter.max_article_chars": count(),
    "wiki_filter.role": text(nonempty=True),
    "complex_events.wcep_group": choice("event", "path", "top"),
    "complex_events.max_document_chars": count(),
    "event_timeline.role": text(nonempty=True),
    "event_timeline.max_document_chars": count(),
    "event_timeline.max_sources_chars": count(),
    "event_timeline.arguments_batch": count(),
    "event_timeline.min_atomic_events": count(),
    "event_tasks.seed": natural(),
    "event_tasks.cuts_per_event": count(),
    "event_tasks.min_background_events": count(),
    "event_tasks.arguments": strings(nonempty=True),
    "event_tasks.role": text(nonempty=True),
    "event_tasks.split_boundary": choice("earlier", "drop"),
    "event_tasks.negatives.fuzzy_threshold": Rule("float", low=0, high=100),
    "event_tasks.negatives.max_length_ratio": Rule("float", low=1),
    "event_tasks.negatives.rewrite_names": flag(),
    "event_tasks.negatives.ner_model": text(nonempty=True),
    "event_tasks.negatives.max_title_gap": natural(),
    "event_tasks.negatives.max_background_gap": natural(),
    "event_tasks.hindsight_words": strings(),
    "event_tasks.shortcut_audit.margin": share(),
    "event_tasks.shortcut_audit.min_samples": count(),
    "gdelt_download.masterfilelist_url": text(),
    "gdelt_download.masterfilelist_file": text(),
    "gdelt_download.mirror_dir": text(),
    "gdelt_download.local_dir": text(),
    "gdelt_download.include_mentions": flag(),
    "gdelt_ingest.max_member_bytes": count(),
    "gdelt_ingest.max_line_bytes": count(),
    "gdelt_ingest.chunk_bytes": count(),
    "gdelt_clean.mention_threshold": natural(),
    "gdelt_clean.mention_comparison": choice(">=", ">"),
    "gdelt_articles.page_archives": strings(),
    "gdelt_articles.flagged_words": text(),
    "gdelt_articles.language": text(nonempty=True),
    "gdelt_articles.min_language_probability": share(),
    "mirai.recipe": choice("paper", "relaxed"),
    "relation_split.min_daily_mentions": natural(),
    "relation_split.min_articles": natural(),
    "relation_split.answers_need_text": flag(),
    "relation_split.admission": choice("every", "any"),
    "relation_split.balance_actors": choice("subject", "both"),
    "relation_split.balance_objective": choice("variance", "squares"),
    "relation_split.queries_per_month": count(),
    "relation_split.seed": natural(),
    "relation_split.balance_weights": mapping(nonneg()),
    "relation_split.horizons_days": Rule("list", item=count(), nonempty=True),
    "scorer.quad_mapping": choice("mirai", "gdelt"),
    "scorer.kl_epsilon": Rule("float", above=0),
    "scorer.baseline.window_days": count(),
    "scorer.baseline.top_k": count(),
    "scorer.baseline.horizon_days": count(),
    "gdelt_stats.cameo_codebook": text(),
    "futurex.seed": natural(),
    "futurex.events.numeric_reasons": strings(),
    "futurex.filter.judge_roles": strings(nonempty=True),
    "futurex.filter.vote": choice("any", "majority", "all"),
    "futurex.filter.yes_no_keep_rate": share(),
    "futurex.filter.max_per_source_day": natural(),
    "futurex.filter.max_per_template": natural(),
    "futurex.filter.max_text_chars": count(),
    "futurex.tiers.level1_share": share(),
    "futurex.tiers.level1_options": count(2, 3),
    "futurex.tiers.level2_min_correct": count(2),
    "futurex.tiers.level2_options": count(2),
    "futurex.tiers.level4_sigma_relative": Rule("float", above=0),
    "futurex.score.weights": Rule("list", item=nonneg(), low=4, high=4),
    "futurex.score.judge_role": text(nonempty=True),
    "check.cross_style.action": Rule("str", choices=("exclude", "mark")),
    "check.cross_style.text_jaccard": share(),
    "check.cross_style.event_jaccard": share(),
    "publish.out_dir": text(nonempty=True),
    "publish.urls_only": flag(),
    "publish.licenses": mapping(text(nonempty=True)),
    "publish.maintainers": text(),
    "publish.hub_repo_ids": mapping(text()),
    "publish.hub_token_env": text(nonempty=True, pattern=ENV_NAME),
    "publish.hub_private": flag(),
}
# The two polite fetchers (WCEP links, GDELT source pages) share their settings.
for _section in ("wcep_news", "gdelt_articles"):
    SCHEMA |= {
        f"{_section}.fetch": flag(),
        f"{_section}.user_agent": text(nonempty=True),
        f"{_section}.timeout_s": seconds(),
        f"{_section}.retries": natural(),
        f"{_section}.respect_robots": flag(),
        f"{_section}.max_bytes": count(),
        f"{_section}.backoff_initial_s": nonneg(),
        f"{_section}.backoff_max_s": nonneg(),
    }
for _section in ("dedup", "foresight.question_dedup"):  # MinHash LSH settings
    SCHEMA |= {f"{_section}.{key}": count() for key in ("ngram", "num_perm", "bands", "rows")}
for _key in ("train_end", "validation_start", "validation_end", "test_start", "test_end"):
    SCHEMA[f"event_tasks.split.{_key}"] = DAY
for _key in (
    "drop_duplicate_event_ids",
    "reported_today",
    "earliest_date_per_url",
    "require_countries",
    "drop_same_country",
    "drop_unknown_root",
):
    SCHEMA[f"gdelt_clean.{_key}"] = flag()
for _part in ("paragraph", "document"):  # the GDELT page text filters, per paragraph and whole
    SCHEMA[f"gdelt_articles.{_part}.min_words"] = natural()
    SCHEMA[f"gdelt_articles.{_part}.max_words"] = count()
    for _key in ("max_char_repetition", "max_word_repetition", "max_special_char_ratio", "max_flagged_ratio"):
        SCHEMA[f"gdelt_articles.{_part}.{_key}"] = share()
SCHEMA |= {
    "wcep_news.min_words": natural(),
    "wcep_news.max_run_seconds": seconds(),
    "gdelt_download.retries": natural(),
    "gdelt_download.timeout_s": seconds(),
    "gdelt_download.backoff_initial_s": nonneg(),
    "gdelt_download.backoff_max_s": nonneg(),
}
SCHEMA |= {  # the series style (docs/series.md)
    "series.ingest.inputs_dir": text(nonempty=True),
    "series.ingest.lag_days": natural(),
    "series.ingest.max_file_bytes": count(),
    "series.questions.horizons_days": Rule("list", item=count(), low=1),
    "series.questions.forecast_days": Rule("list", item=count(1, 28), low=1),
    "series.questions.prompt_values": count(),
    "series.questions.min_history": count(),
    "series.questions.sigma_window": count(2),
    "series.questions.sigma_relative_fallback": Rule("float", above=0),
    "series.questions.allow_unvintaged": flag(),
    "series.context.enabled": flag(),
    "series.context.query_fields": Rule(
        "list", item=Rule("str", choices=("title", "unit", "provider", "series_id")), low=1
    ),
    "series.split.train_months": months(nonempty=True),
    "series.split.validation_months": months(nonempty=True),
    "series.split.test_months": months(nonempty=True),
}
