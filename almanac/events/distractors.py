"""MCNC negatives drawn from real events of other timelines, and gold positions balanced over a task.

Why real events: negatives written from the gold (one word swapped, the event negated, a fixed wrapper
around it) share the gold's words, so "the option most like the others" finds the gold without any
forecasting. A negative here is an event that really happened in another complex event:

- *same split*: the donor timeline is in the sample's split and the donor event lies wholly inside that
  split's window, so no split shows a text from another split's period (a test story's event never
  appears in a train sample);
- *same period, same category where possible, similar length*: donors are ranked by topic (same WCEP
  category first), by side of the cut (on or after the cut day first, like the gold), by distance in
  days from the gold's date, by length in words; a donor whose length is outside ``max_length_ratio``
  of the gold's is never used; several negatives come from different donor timelines when they can;
- *rewritten only where needed*: the names a donor uses that this story does not know (people, places,
  organisations of the other story) are replaced by names this story's title and background already
  use, so that naming this story is no tell (``rewrite_names``); the event's frame stays as it happened;
- *not true here*: a candidate whose token-set ratio with any event of this timeline (or the gold, or
  a negative already chosen) reaches ``fuzzy_threshold`` is skipped: a reworded true event is no negative.

Ties are broken by a generator seeded with (seed, sample id), so the choice is deterministic.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from rapidfuzz.fuzz import token_set_ratio

from almanac.core.text import fold
from almanac.events.cuts import Event, NegativesConfig, SplitWindows, date_span, seeded
from almanac.events.hindsight import option_span
from almanac.events.llm_tasks.argument_question import _written_like
from almanac.events.llm_tasks.replies import EventDate


@dataclass(frozen=True)
class Donor:
    ce_id: str
    title: str
    topic: str
    text: str
    span: tuple[date, date]


def donor_pool(
    timelines: Iterable[Mapping[str, Any]], split_of: Mapping[str, str], windows: SplitWindows
) -> dict[str, list[Donor]]:
    """split -> the dated events, wholly inside that split's window, of the timelines placed in it."""
    pool: dict[str, list[Donor]] = {}
    for timeline in timelines:
        split = split_of.get(str(timeline["ce_id"]))
        if split is None:
            continue
        for event in timeline["events"]:
            span = date_span(event)
            if span is not None and windows.holds(split, span) and str(event["text"]).strip():
                donor = Donor(
                    str(timeline["ce_id"]), timeline["title"], timeline["topic"], event["text"], span
                )
                pool.setdefault(split, []).append(donor)
    return pool


_NAME_RUN = re.compile(r"[A-Z][\w'\u2019.-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'\u2019.-]*)*")
_NOT_NAME_TEXT = (
    "January February March April May June July August September October November December Monday "
    "Tuesday Wednesday Thursday Friday Saturday Sunday The A An On In At By For After Before Around About "
    "Some Its Their His Her This That These Those"
)
_NOT_NAMES = frozenset(_NOT_NAME_TEXT.split(" "))


def names_in(text: str) -> list[str]:
    """Runs of capitalised words that are names: a run of one word opening a sentence, a month or a
    weekday is not ("The union for Skylark Regional's pilots" -> ["Skylark Regional"])."""
    found = []
    for match in _NAME_RUN.finditer(text):
        run = match.group().removesuffix("'s").removesuffix("\u2019s").rstrip(".")
        words = run.split()
        while words and words[0] in _NOT_NAMES:
            words = words[1:]
        before = text[: match.start()].rstrip()
        opening = not before or before[-1] in '.!?:;"\u201c'
        if not words or (opening and len(words) == 1 and words == run.split()[:1] and len(run.split()) == 1):
            continue
        name = " ".join(words)
        if name not in found:
            found.append(name)
    return found


def story_names(timeline: Mapping[str, Any], background: Sequence[Event]) -> list[str]:
    """Names the forecaster already knows for this story: its title's and its background's, most
    frequent first (only what is dated before the cut: a name first met after it would leak)."""
    counts: dict[str, int] = {}
    for text in (timeline["title"], *(str(event["text"]) for event in background)):
        for name in names_in(text):
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda name: (-counts[name], name))


def rewrite_names(text: str, ours: Sequence[str]) -> str:
    """The donor's names that this story does not know replaced by this story's names, in order of
    appearance and frequency, whole words only; a donor naming nothing is left as it is."""
    replacements = iter(name for name in ours if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text))
    for old in names_in(text):
        if old in ours:
            continue
        new = next(replacements, None)
        if new is None:
            break
        text = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, text)
    return text


def is_true_here(candidate: str, true_texts: Iterable[str], threshold: float) -> bool:
    folded = fold(candidate)
    return any(token_set_ratio(folded, fold(text)) >= threshold for text in true_texts)


def _words(text: str) -> int:
    return max(1, len(text.split()))


def _names_story(text: str, names: Sequence[str]) -> bool:
    return any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) for name in names)


def choose_negatives(
    timeline: Mapping[str, Any],
    cut_day: date,
    target: Event,
    donors: Sequence[Donor],
    config: NegativesConfig,
    seed: int,
    sample: str,
    count: int = 3,
) -> tuple[list[str], int]:
    """Up to ``count`` negatives for ``target`` and how many candidates were refused as true here."""
    gold = str(target["text"])
    true_texts = [str(event["text"]) for event in timeline["events"]]
    gold_span = date_span(target) or (cut_day, cut_day)
    names = story_names(
        timeline, [e for e in timeline["events"] if (date_span(e) or (cut_day,))[-1] < cut_day]
    )
    gold_names = _names_story(gold, names)
    rng = seeded(seed, sample, "negatives")
    ranked = []
    for donor in donors:
        if donor.ce_id == timeline["ce_id"]:
            continue
        text = rewrite_names(donor.text, names) if config.rewrite_names else donor.text
        ratio = _words(text) / _words(gold)
        if not 1 / config.max_length_ratio <= ratio <= config.max_length_ratio:
            continue
        key = (
            donor.topic != timeline["topic"],
            donor.span[0] < cut_day,
            _names_story(text, names) != gold_names,
            abs((donor.span[0] - gold_span[0]).days) // 7,  # weeks apart: near dates count alike
            round(abs(math.log(ratio)), 1),
            rng.random(),
        )
        ranked.append((key, donor.ce_id, text))
    ranked.sort()
    chosen: list[str] = []
    used: set[str] = set()
    refused = 0
    for distinct_donors in (True, False):
        for _, ce_id, text in ranked:
            if len(chosen) == count:
                return chosen, refused
            if text in chosen or (distinct_donors and ce_id in used):
                continue
            if is_true_here(text, true_texts, config.fuzzy_threshold):
                refused += distinct_donors  # counted once, on the first pass
                continue
            if is_true_here(text, [gold, *chosen], config.fuzzy_threshold):
                continue
            chosen.append(text)
            used.add(ce_id)
    return chosen, refused


def balanced_positions(sample_ids: Sequence[str], slots: int, seed: int) -> dict[str, int]:
    """Each sample's gold position: samples in a seeded order take the positions in turn, so every
    position holds the gold equally often (to within one) over a task, and no position can be learnt."""
    order = sorted(sample_ids, key=lambda item: (seeded(seed, item, "position").random(), item))
    return {item: rank % slots for rank, item in enumerate(order)}


def placed_options(gold: str, negatives: Sequence[str], position: int, seed: int, sample: str) -> list[str]:
    """The negatives in a seeded order with the gold put at ``position``."""
    rest = list(negatives)
    seeded(seed, sample, "order").shuffle(rest)
    return [*rest[:position], gold, *rest[position:]]


_DAY_SHIFTS = (7, -7, 14, -14, 21, -21, 28, -28)
_MONTH_SHIFTS = (1, -1, 2, -2, 3, -3)


def same_side_times(answer: str, negatives: Sequence[str], cut_day: date, count: int = 3) -> list[str]:
    """MCAC "When" options on the gold's side of the cut: wrong dates that start on or after the cut day.

    An option dated before the cut is known to be wrong by anyone who reads the background's dates, so
    the gold would be the only option left after the cut. Kept: the LLM's wrong dates that are on the
    gold's side; then the gold moved by one to four weeks (day precision), one to three months (month)
    or years, either way, as long as it stays on or after the cut; written like the answer.
    """
    gold = option_span(answer, cut_day.year)
    kept = [
        value for value in negatives if _after(value, cut_day) and option_span(value, cut_day.year) != gold
    ]
    if gold is None:
        return kept[:count]
    style = "" if re.fullmatch(r"\s*\d{4}(-\d{2}){0,2}\s*", answer) else answer
    for moved in _moved(gold):
        if len(kept) >= count:
            break
        text = _written_like(moved, style)
        if (
            moved.date
            and _after(text, cut_day)
            and text not in kept
            and option_span(text, cut_day.year) != gold
        ):
            kept.append(text)
    return kept[:count]


def _after(text: str, cut_day: date) -> bool:
    span = option_span(text, cut_day.year)
    return span is None or span[0] >= cut_day


def _moved(gold: tuple[date, date]) -> list[EventDate]:
    first, last = gold
    if first == last:
        return [
            EventDate(date.fromordinal(first.toordinal() + shift).isoformat(), "day") for shift in _DAY_SHIFTS
        ]
    if first.year == last.year and first.month == last.month:
        index = first.year * 12 + first.month - 1
        return [
            EventDate(f"{(index + shift) // 12:04d}-{(index + shift) % 12 + 1:02d}", "month")
            for shift in _MONTH_SHIFTS
        ]
    return [EventDate(f"{first.year + shift:04d}", "year") for shift in (1, 2, 3)]
