"""``futurex_tiers``: the four FutureX tiers (its section 3.3, Table 2) from the filtered events.

- Level 1 (basic): single choice among fewer than 4 options. An OpenForesight question is drawn for it
  with probability ``level1_share`` (a seeded content hash, so the rest go to Level 3 and none to both).
  Its distractors must not be recoverable by elimination: were they answers of other released questions
  (as they once were), striking every option that answers some other released question would leave the
  gold. So no option, the gold included, shares its words with the answer of any other released question
  (every OpenForesight split, and thereby every FutureX question made from one): distractors are the
  answers of *generated but unreleased* OpenForesight candidates (``foresight_qgen`` rows no split
  holds), of the same declared answer class, whose article was public by the cut-off (no option tells
  anything unknown then). A gold that is itself another released question's answer goes open-ended
  (``level1_gold_is_released_answer``), as does a question with no such distractor
  (``level1_without_distractors``).
- Level 2 (wide search): a MIRAI query with at least ``level2_min_correct`` relations; every relation is a
  correct option, distractors are relations other queries recorded (then the CAMEO table), shuffled.
- Level 3 (deep search, low volatility): the other OpenForesight questions, open-ended; aliases for the
  Level-3 judge (a person's surname, a name without "The").
- Level 4 (super agent, high volatility): the numeric outcomes, with their unit and resolution source;
  ``sigma`` scales the clipped squared error. FutureX takes the outcome's standard deviation over the past
  7 days. A numeric series question (origin ``series``) carries the series' own: the standard deviation of
  its recent values (``sigma_source: series_recent_values``, almanac.futurex.series_events); a news number
  has no such series, so its sigma is ``level4_sigma_relative`` x |value| (``sigma_source: relative``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.futurex.config import TierConfig
from almanac.futurex.draws import seeded_fraction, seeded_rng
from almanac.futurex.schema import TIER_NAMES
from almanac.futurex.text import normalise

TIERS_STAGE: Final = "futurex_tiers"
Event = Mapping[str, Any]


def tier_question_id(level: int, event_id: str) -> str:
    return content_id("futurex", str(level), event_id)


def aliases_of(answer: str, answer_class: str | None) -> list[str]:
    words = answer.split()
    found = []
    if words and words[0].lower() == "the" and len(words) > 1:
        found.append(" ".join(words[1:]))
    if answer_class == "name" and len(words) > 1:
        found.append(words[-1])
    return found


def _row(event: Event, level: int, **fields: Any) -> dict[str, Any]:
    row = {
        **event,
        "question_id": tier_question_id(level, event["event_id"]),
        "level": level,
        "tier": TIER_NAMES[level],
        "options": [],
        "aliases": [],
        "volatility": None,
        "sigma": None,
        "sigma_source": None,
        "distractor_sources": [],
    }
    row.update(fields)
    return row


def answer_words(answer: str) -> frozenset[str]:
    return frozenset(normalise(answer).split())


def overlaps(left: frozenset[str], right: frozenset[str]) -> bool:
    """One answer's words hold the other's ("Rovers" and "Brennford Rovers"): the same name to a reader."""
    return bool(left and right) and (left <= right or right <= left)


def level1_distractors(
    event: Event, pool: Sequence[Event], released: Sequence[frozenset[str]], config: TierConfig, seed: int
) -> list[Event]:
    """Up to ``level1_options - 1`` pool names of the gold's class, public by its cut-off, that share no
    words with the gold, with each other, or with any released answer (``released``: their words)."""
    chosen_words = [answer_words(event["answers"][0])]
    eligible = []
    for other in sorted(pool, key=lambda row: (row["question_id"], row["answer"])):
        words = answer_words(other["answer"])
        if (
            other["answer_class"] == event["answer_class"]
            and other["public_date"] <= event["information_cutoff"]
            and not any(overlaps(words, taken) for taken in chosen_words)
            and not any(overlaps(words, answer) for answer in released)
        ):
            chosen_words.append(words)
            eligible.append(other)
    seeded_rng(seed, "level1", event["event_id"]).shuffle(eligible)
    return eligible[: config.level1_options - 1]


def single_choice(event: Event, distractors: Sequence[Event], seed: int) -> dict[str, Any]:
    answer = event["answers"][0]
    options = [answer, *(other["answer"] for other in distractors)]
    seeded_rng(seed, "level1-order", event["event_id"]).shuffle(options)
    sources = [
        {
            "question_id": other["question_id"],
            "answer": other["answer"],
            "resolution_date": other["public_date"],
        }
        for other in distractors
    ]
    return _row(event, 1, options=options, distractor_sources=sources)


def open_ended(event: Event) -> dict[str, Any]:
    answer = event["answers"][0]
    return _row(event, 3, aliases=aliases_of(answer, event["answer_class"]), volatility="low")


def multi_choice(
    event: Event, earlier: Sequence[str], catalogue: Sequence[str], config: TierConfig, seed: int
) -> dict[str, Any] | Drop:
    """``earlier``: relations of queries resolved by this one's cut-off (drawn first), ``catalogue``: every
    CAMEO relation (drawn when those run short); both in a fixed order before the seeded shuffle."""
    answers = list(event["answers"])
    if len(answers) < config.level2_min_correct:
        return Drop("too_few_correct_options", f"{len(answers)} correct, {config.level2_min_correct} needed")
    wanted = config.level2_options - len(answers)
    first = [option for option in earlier if option not in answers]
    rest = [option for option in catalogue if option not in answers and option not in first]
    rng = seeded_rng(seed, "level2", event["event_id"])
    rng.shuffle(first)
    rng.shuffle(rest)
    options = answers + (first + rest)[:wanted]
    seeded_rng(seed, "level2-order", event["event_id"]).shuffle(options)
    return _row(event, 2, options=options)


def numeric(
    event: Event, config: TierConfig, series_sigma: Mapping[str, tuple[float, str]] | None = None
) -> dict[str, Any]:
    from_series = (series_sigma or {}).get(str(event["source_id"])) if event["origin"] == "series" else None
    if from_series is not None:
        return _row(event, 4, volatility="high", sigma=from_series[0], sigma_source=from_series[1])
    sigma = config.level4_sigma_relative * max(abs(float(event["value"])), 1.0)
    return _row(event, 4, volatility="high", sigma=sigma, sigma_source="relative")


def build_tiers(
    events: Sequence[Event],
    config: TierConfig,
    seed: int,
    relation_pool: Sequence[str],
    distractor_pool: Sequence[Event] = (),
    released_answers: Mapping[str, str] | None = None,
    series_sigma: Mapping[str, tuple[float, str]] | None = None,
) -> tuple[list[dict[str, Any]], StageLedger]:
    """Each filtered event becomes one question of one tier (or a reject with its reason).

    ``relation_pool``: every relation as an option text (the CAMEO table), in a fixed order.
    ``distractor_pool``: unreleased generated candidates (``question_id``, ``answer``, ``answer_class``,
    ``public_date``); ``released_answers``: question_id -> answer of every released OpenForesight question.
    """
    ledger = StageLedger(TIERS_STAGE)
    released = dict(released_answers or {})
    queries = [event for event in events if event["origin"] == "mirai"]

    def earlier_relations(event: Event) -> list[str]:
        cutoff = event["information_cutoff"]
        return sorted(
            {option for other in queries if other["resolution_date"] <= cutoff for option in other["answers"]}
        )

    counts = {"level1_without_distractors": 0, "level1_gold_is_released_answer": 0}

    def level1_or_open(event: Event) -> dict[str, Any]:
        if seeded_fraction(seed, f"level1:{event['event_id']}") >= config.level1_share:
            return open_ended(event)
        others = [
            answer_words(answer) for qid, answer in sorted(released.items()) if qid != event["source_id"]
        ]
        if any(overlaps(answer_words(event["answers"][0]), answer) for answer in others):
            counts["level1_gold_is_released_answer"] += 1
            return open_ended(event)
        picked = level1_distractors(event, distractor_pool, others, config, seed)
        if not picked:
            counts["level1_without_distractors"] += 1
            return open_ended(event)
        return single_choice(event, picked, seed)

    def decide(event: Event) -> dict[str, Any] | Drop:
        if event["origin"] == "openforesight":
            return level1_or_open(event)
        if event["origin"] == "mirai":
            return multi_choice(event, earlier_relations(event), relation_pool, config, seed)
        if event["origin"] in ("numeric", "series"):
            return numeric(event, config, series_sigma)
        return Drop("unknown_origin", f"origin {event['origin']!r}")

    rows = apply_step(
        events, Step(decide, lambda e: e["event_id"], lambda e: f"{e['origin']}:{e['source_id']}"), ledger
    )
    ledger.extra.update(counts)
    ledger.extra["questions_by_level"] = {
        str(level): sum(1 for row in rows if row["level"] == level) for level in TIER_NAMES
    }
    return rows, ledger
