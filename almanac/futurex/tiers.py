"""``futurex_tiers``: the four FutureX tiers (its section 3.3, Table 2) from the filtered events.

- Level 1 (basic): single choice among fewer than 4 options. An OpenForesight question is drawn for it
  with probability ``level1_share`` (a seeded content hash, so the rest go to Level 3 and none to both);
  its distractors are answers of other questions drawn for Level 1, of the same answer class, that
  resolved on or before its cut-off: no option tells the forecaster anything that was not public, and no
  open-ended question's answer is shown as an option. A drawn question with no such answer stays
  open-ended (``level1_without_distractors``) unless its own answer is a distractor elsewhere
  (``level1_no_distractor``).
- Level 2 (wide search): a MIRAI query with at least ``level2_min_correct`` relations; every relation is a
  correct option, distractors are relations other queries recorded (then the CAMEO table), shuffled.
- Level 3 (deep search, low volatility): the other OpenForesight questions, open-ended; aliases for the
  Level-3 judge (a person's surname, a name without "The").
- Level 4 (super agent, high volatility): the numeric outcomes, with their unit and resolution source;
  ``sigma`` scales the clipped squared error. FutureX takes the outcome's standard deviation over the past
  7 days; a news number has no such series, so sigma is ``level4_sigma_relative`` x |value|
  (``sigma_source: relative``).
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


def level1_distractors(event: Event, pool: Sequence[Event], config: TierConfig, seed: int) -> list[Event]:
    """Up to ``level1_options - 1`` earlier-resolved questions of the same class with other answers."""
    own = normalise(event["answers"][0])
    seen: set[str] = {own}
    eligible = []
    for other in sorted(pool, key=lambda row: row["event_id"]):
        answer = normalise(other["answers"][0])
        if (
            other["event_id"] != event["event_id"]
            and other["answer_class"] == event["answer_class"]
            and other["resolution_date"] <= event["information_cutoff"]
            and answer not in seen
        ):
            seen.add(answer)
            eligible.append(other)
    seeded_rng(seed, "level1", event["event_id"]).shuffle(eligible)
    return eligible[: config.level1_options - 1]


def single_choice(event: Event, distractors: Sequence[Event], seed: int) -> dict[str, Any]:
    answer = event["answers"][0]
    options = [answer, *(other["answers"][0] for other in distractors)]
    seeded_rng(seed, "level1-order", event["event_id"]).shuffle(options)
    sources = [
        {
            "question_id": other["source_id"],
            "answer": other["answers"][0],
            "resolution_date": other["resolution_date"],
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


def numeric(event: Event, config: TierConfig) -> dict[str, Any]:
    sigma = config.level4_sigma_relative * max(abs(float(event["value"])), 1.0)
    return _row(event, 4, volatility="high", sigma=sigma, sigma_source="relative")


def build_tiers(
    events: Sequence[Event], config: TierConfig, seed: int, relation_pool: Sequence[str]
) -> tuple[list[dict[str, Any]], StageLedger]:
    """Each filtered event becomes one question of one tier (or a reject with its reason).

    ``relation_pool``: every relation as an option text (the CAMEO table), in a fixed order.
    """
    ledger = StageLedger(TIERS_STAGE)
    foresight = [event for event in events if event["origin"] == "openforesight"]
    queries = [event for event in events if event["origin"] == "mirai"]

    def earlier_relations(event: Event) -> list[str]:
        cutoff = event["information_cutoff"]
        return sorted(
            {option for other in queries if other["resolution_date"] <= cutoff for option in other["answers"]}
        )

    # Level 1 draws its distractors from the questions drawn for Level 1 only: an open-ended question's
    # answer shown as another question's option would give it away to whoever sees both.
    chosen = [e for e in foresight if seeded_fraction(seed, f"level1:{e['event_id']}") < config.level1_share]
    distractors = {e["event_id"]: level1_distractors(e, chosen, config, seed) for e in chosen}
    used = {other["event_id"] for picked in distractors.values() if picked for other in picked}
    short = 0

    def decide(event: Event) -> dict[str, Any] | Drop:
        nonlocal short
        if event["origin"] == "openforesight":
            picked = distractors.get(event["event_id"])
            if picked:
                return single_choice(event, picked, seed)
            if picked is not None:  # drawn for Level 1, but nothing resolved earlier to offer beside it
                if event["event_id"] in used:
                    return Drop(
                        "level1_no_distractor",
                        "no earlier answer of its class to offer, and its own answer is a Level-1 "
                        "distractor, so it cannot be open-ended either",
                    )
                short += 1
            return open_ended(event)
        if event["origin"] == "mirai":
            return multi_choice(event, earlier_relations(event), relation_pool, config, seed)
        if event["origin"] == "numeric":
            return numeric(event, config)
        return Drop("unknown_origin", f"origin {event['origin']!r}")

    rows = apply_step(
        events, Step(decide, lambda e: e["event_id"], lambda e: f"{e['origin']}:{e['source_id']}"), ledger
    )
    ledger.extra["level1_without_distractors"] = short
    ledger.extra["questions_by_level"] = {
        str(level): sum(1 for row in rows if row["level"] == level) for level in TIER_NAMES
    }
    return rows, ledger
