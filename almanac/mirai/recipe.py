"""The MIRAI recipe: its stages in order (``STEPS``), the rules relation_split applies (``RULES``), and
the rule variant (``params.yaml: mirai.recipe``, ``paper`` or ``relaxed``).

The stage order (``STEPS``, ``RECIPE``) is in ``almanac.mirai.steps``, so relation_split, which applies
these rules, does not depend on the stage declarations.

``paper`` applies every rule as MIRAI's authors built it: the paper (section 2.2, "Test Splits
Construction") and, where it is silent, their released construction (yecchen/MIRAI
``dataset_construction/``; README "MIRAI as its authors built it" names the source of each rule). An event
(date, subject, relation, object) is in the data only if one of its articles kept its text after cleaning
(``6_generate_final_data.py`` keeps "text available kg event records"); a day-pair is a query when it has
an event with >= 100 daily mentions and *every* such event has >= 5 articles with text
(``7_generate_test_set.py``: the minimum over the pair's events). ``relaxed`` is the variant for corpora
without article text: the two thresholds are checked on the whole (date, subject, object) group, and
articles are its distinct source URLs, fetched or not.

Both recipes answer a query with every relation of the data (quads.parquet, already past the database
threshold of 50 daily mentions per event; under ``paper`` only events with text) for that day and pair:
the paper defines the task as forecasting all events between the pair (section 2.1), and the authors'
query script (``9_generate_relation_query.py``) takes the answers from the full data, not from the test
events. The test thresholds decide which day-pairs become queries; they do not prune the answer set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

PAPER: Final = "paper"
RELAXED: Final = "relaxed"
RECIPES: Final = (PAPER, RELAXED)


@dataclass(frozen=True)
class MiraiConfig:
    """``params.yaml: mirai``."""

    recipe: str = PAPER

    def __post_init__(self) -> None:
        if self.recipe not in RECIPES:
            raise ValueError(f"mirai.recipe must be one of {', '.join(RECIPES)}, got {self.recipe!r}")


@dataclass(frozen=True)
class Rule:
    """One step of relation_split: where it lives, what it reads from params, what it rejects."""

    reason: str  # the reject reason of the queries it removes (also the step's name in the metrics)
    recipes: tuple[str, ...]
    unit: str  # what the rule is checked on: "event" (date, s, r, o) or "group" (date, s, o)
    where: str  # module.function
    params: str
    statement: str


INVALID_QUAD: Final = "invalid_quad"
EVENT_WITHOUT_TEXT: Final = "event_without_text"
EVENT_TOO_FEW_MENTIONS: Final = "event_too_few_mentions"
EVENT_TOO_FEW_ARTICLES: Final = "event_too_few_articles"
GROUP_TOO_FEW_MENTIONS: Final = "group_too_few_mentions"
GROUP_TOO_FEW_URLS: Final = "group_too_few_urls"
NOT_SAMPLED: Final = "not_sampled"

RULES: Final = (
    Rule(
        INVALID_QUAD,
        RECIPES,
        "event",
        "almanac.mirai.relation_split.quad_problem",
        "-",
        "A quads.parquet row with a malformed code, a same-country pair or a repeated quad_id is set aside.",
    ),
    Rule(
        EVENT_WITHOUT_TEXT,
        (PAPER,),
        "event",
        "almanac.mirai.relation_split.group_quads",
        "relation_split.answers_need_text",
        "An event none of whose source articles kept its text after gdelt_articles' cleaning is left out "
        "of the answers and of admission (MIRAI's authors keep only events with text).",
    ),
    Rule(
        EVENT_TOO_FEW_MENTIONS,
        (PAPER,),
        "event",
        "almanac.mirai.admission.paper_admission",
        "relation_split.min_daily_mentions",
        "A test event has at least min_daily_mentions (MIRAI: 100) daily mentions on its own; a day-pair "
        "without such an event is no query.",
    ),
    Rule(
        EVENT_TOO_FEW_ARTICLES,
        (PAPER,),
        "event",
        "almanac.mirai.admission.paper_admission",
        "relation_split.min_articles, admission",
        "Every event past the mention threshold (admission: every, the authors'; any: one of them) also "
        "has at least min_articles (MIRAI: 5) distinct source articles whose text survived gdelt_articles' "
        "cleaning; else the day-pair is no query.",
    ),
    Rule(
        GROUP_TOO_FEW_MENTIONS,
        (RELAXED,),
        "group",
        "almanac.mirai.admission.relaxed_admission",
        "relation_split.min_daily_mentions",
        "The day-pair's events together have at least min_daily_mentions daily mentions.",
    ),
    Rule(
        GROUP_TOO_FEW_URLS,
        (RELAXED,),
        "group",
        "almanac.mirai.admission.relaxed_admission",
        "relation_split.min_articles",
        "The day-pair's events together have at least min_articles distinct source URLs (text or not).",
    ),
    Rule(
        NOT_SAMPLED,
        RECIPES,
        "group",
        "almanac.mirai.balance.balanced_sample",
        "relation_split.queries_per_month, seed, balance_weights, balance_actors, balance_objective",
        "At most queries_per_month queries per month, picked greedily and seeded to make the weighted "
        "variances of the counts of dates, first-level CAMEO codes, continents and countries small "
        "(MIRAI's authors: weights 1, 1, 0.4, 0.2, the subject's continent and country).",
    ),
)


# What the relation_split params must be for `paper` to be the authors' construction (README "MIRAI as
# its authors built it"); the report names every one a build departs from.
AUTHORS_SETTINGS: Final = {
    "answers_need_text": True,
    "admission": "every",
    "balance_weights": {"date": 1.0, "root": 1.0, "continent": 0.4, "region": 0.0, "country": 0.2},
    "balance_actors": "subject",
    "balance_objective": "variance",
}
# What still differs from the authors' released construction, whatever the params.
AUTHORS_DIFFERENCES: Final = (
    "cleaning measures are this project's, not OBELICS' formulas (the thresholds are the authors'): "
    "OBELICS counts whitespace and digits as special characters and measures repetition differently",
    "language ID is py3langid's probability, not fastText lid.176's",
    "article text comes from CC-News, page archives or the optional fetcher, not from downloading every "
    "URL, so an event can lack text the authors would have had",
    "the sampler scans every day-pair (the seed breaks ties) where the authors draw 50 random test "
    "events per step",
    "continents come from this project's UN M49 table, not from the authors' continents2.csv",
)


def rules_of(recipe: str) -> tuple[Rule, ...]:
    """The rules ``recipe`` applies, in the order relation_split applies them."""
    return tuple(rule for rule in RULES if recipe in rule.recipes)
