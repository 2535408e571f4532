"""MCNC negatives drawn from real events of other timelines, and gold positions balanced over a task.

Why real events: negatives written from the gold (one word swapped, the event negated, a fixed wrapper
around it) share the gold's words, so "the option most like the others" finds the gold without any
forecasting. A negative here is an event that really happened in another complex event:

- *same or earlier split*: the donor timeline is in the sample's split or an earlier one and the donor
  event lies wholly inside its split's window, so no sample shows a text from a later period (a test
  story's event never appears in a train sample); a donor naming a day before the cut ("On 3 March")
  is never used, since the date alone would rule it out;
- *no surface tell, by construction*: what a no-knowledge rule reads off an option is measured the
  way ``almanac check`` measures it (:func:`almanac.check.shortcuts.content_words`), and a donor is
  used only when it matches the gold on each: as many content words shared with the title
  (``max_title_gap``, default 0) and with the background (``max_background_gap``, default 0), and a
  length in words within ``max_length_ratio`` of the gold's. With gaps of 0, "the option that names
  the story" or "the option most like the background" ties the gold with every negative and scores
  chance exactly; a sample with fewer than three such donors is rejected (``too_few_negatives``), it
  is never filled with a donor that gives the gold away;
- *same period, same category where possible, similar length*: among those, donors are ranked by
  topic (same WCEP category first), by the remaining gaps, by side of the cut (on or after the cut
  day first, like the gold), by closeness in characters to the gold's length (nearest first, so the
  gold is as often longer as shorter than its negatives), by whether they name this story as the
  gold does, by distance in weeks from the gold's date; several negatives come from different donor
  timelines when they can;
- *rewritten only where needed*: the names a donor uses that this story does not know (people, places,
  organisations of the other story) are replaced by names this story's title and background already
  use, so that naming this story is no tell (``rewrite_names``); the event's frame stays as it happened;
- *not true here*: a candidate whose token-set ratio with any event of this timeline (or the gold, or
  a negative already chosen) reaches ``fuzzy_threshold`` is skipped: a reworded true event is no negative.

Ties are broken by a generator seeded with (seed, sample id), so the choice is deterministic.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import combinations
from typing import Any

from rapidfuzz.fuzz import token_set_ratio

from almanac.check.shortcuts import content_words
from almanac.core.nlp import parse
from almanac.core.text import fold
from almanac.events.cuts import SPLIT_ORDER, Event, NegativesConfig, SplitWindows, date_span, seeded
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
    """split -> the dated events, wholly inside a split's window, of the timelines placed in that split
    or in an earlier one (train before validation before test): an event of an earlier window is
    past for every cut of a later split, one of a later window would be a future text."""
    own: dict[str, list[Donor]] = {split: [] for split in SPLIT_ORDER}
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
                own[split].append(donor)
    return {
        split: [d for earlier in SPLIT_ORDER[: i + 1] for d in own[earlier]]
        for i, split in enumerate(SPLIT_ORDER)
    }


_KINDS = {"PERSON": "person", "ORG": "organisation", "NORP": "group", "GPE": "place", "LOC": "place"}
_KINDS["FAC"] = "place"
Names = dict[str, list[str]]  # kind of name -> names, most used first


def names_in(text: str, model: str) -> list[tuple[str, str]]:
    """(kind, name) of the named entities of ``text`` (people, organisations, groups, places), in order;
    a leading "The" and a trailing possessive are not part of the name."""
    found = []
    for ent in parse(text, model).ents:
        kind = _KINDS.get(ent.label_)
        name = re.sub(r"^(?:the|The)\s+", "", ent.text).removesuffix("'s").removesuffix("\u2019s").strip()
        if kind and name and (kind, name) not in found:
            found.append((kind, name))
    return found


def story_names(timeline: Mapping[str, Any], background: Sequence[Event], model: str) -> Names:
    """Names the forecaster already knows for this story, by kind: its title's and its background's,
    most used first (only what is dated before the cut: a name first met after it would leak)."""
    counts: dict[tuple[str, str], int] = {}
    for text in (timeline["title"], *(str(event["text"]) for event in background)):
        for found in names_in(text, model):
            counts[found] = counts.get(found, 0) + 1
    names: Names = {}
    for kind, name in sorted(counts, key=lambda found: (-counts[found], found)):
        names.setdefault(kind, []).append(name)
    return names


def rewrite_names(text: str, ours: Names, model: str) -> str:
    """Each name of the donor that this story does not know replaced by a name of the same kind this
    story knows (a person by a person, a place by a place), in order of use; a name with no
    counterpart of its kind, and a donor naming nothing, stay as they are."""
    known = {name for names in ours.values() for name in names}
    free = {kind: [name for name in names if not _named(text, name)] for kind, names in ours.items()}
    for kind, old in names_in(text, model):
        if old in known or not free.get(kind):
            continue
        text = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", free[kind].pop(0), text)
    return text


def _named(text: str, name: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def is_true_here(candidate: str, true_texts: Iterable[str], threshold: float) -> bool:
    folded = fold(candidate)
    return any(token_set_ratio(folded, fold(text)) >= threshold for text in true_texts)


def _words(text: str) -> int:
    return max(1, len(text.split()))


def _names_day_before(text: str, cut_day: date) -> bool:
    """Whether ``text`` names a date (with its year, or in the cut's year) wholly before ``cut_day``."""
    for mention in _DATE_MENTION.finditer(text):
        span = option_span(mention.group(), cut_day.year)
        if span is not None and span[1] < cut_day:
            return True
    return False


_MONTH = "(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_DATE_FORMS = (
    rf"\d{{1,2}} {_MONTH}(?: \d{{4}})?",  # 3 March (2025)
    rf"{_MONTH} \d{{1,2}}(?:, \d{{4}})?",  # March 3(, 2025)
    rf"{_MONTH} \d{{4}}",  # March 2025
    r"\d{4}-\d{2}-\d{2}",
    r"(?:19|20)\d{2}",  # a bare year: "in 2024"
)
_DATE_MENTION = re.compile(rf"\b(?:{'|'.join(_DATE_FORMS)})\b")


def _names_story(text: str, names: Names) -> bool:
    return any(_named(text, name) for kind in names.values() for name in kind)


def surface_gaps(text: str, gold: str, title: set[str], told: set[str]) -> tuple[int, int]:
    """How far ``text`` is from ``gold`` in content words shared with the title and with the background."""
    words, gold_words = content_words(text), content_words(gold)
    return abs(len(words & title) - len(gold_words & title)), abs(len(words & told) - len(gold_words & told))


def length_gap(text: str, gold: str) -> float:
    """|log| of the ratio of the two lengths in characters: 0 for equal lengths, symmetric in sign."""
    return abs(math.log(max(1, len(text)) / max(1, len(gold))))


def choose_negatives(
    timeline: Mapping[str, Any],
    cut_day: date,
    target: Event,
    donors: Sequence[Donor],
    config: NegativesConfig,
    seed: int,
    sample: str,
    count: int = 3,
    background: Sequence[Event] | None = None,
) -> tuple[list[str], int]:
    """Up to ``count`` negatives for ``target`` and how many candidates were refused as true here.

    ``background``: the events the sample shows before the cut (default: every event of the
    timeline that ends before ``cut_day``); the story's names and its background words come from it.
    """
    gold = str(target["text"])
    true_texts = [str(event["text"]) for event in timeline["events"]]
    gold_span = date_span(target) or (cut_day, cut_day)
    if background is None:
        background = [e for e in timeline["events"] if (date_span(e) or (cut_day,))[-1] < cut_day]
    names = story_names(timeline, background, config.ner_model)
    gold_names = _names_story(gold, names)
    title = content_words(str(timeline["title"]))
    told = content_words(" ".join(str(event["text"]) for event in background))
    rng = seeded(seed, sample, "negatives")
    ranked = []
    for donor in donors:
        if donor.ce_id == timeline["ce_id"]:
            continue
        text = rewrite_names(donor.text, names, config.ner_model) if config.rewrite_names else donor.text
        if _names_day_before(text, cut_day):
            continue  # "On 3 March ..." before the cut: known to be no next event
        ratio = _words(text) / _words(gold)
        if not 1 / config.max_length_ratio <= ratio <= config.max_length_ratio:
            continue
        title_gap, background_gap = surface_gaps(text, gold, title, told)
        if title_gap > config.max_title_gap or background_gap > config.max_background_gap:
            continue  # the gold would name the story far more (or less) than this option: a tell
        key = (
            donor.topic != timeline["topic"],
            title_gap + background_gap,
            donor.span[0] < cut_day,
            round(length_gap(text, gold), 1),  # within a tenth: near lengths count alike
            _names_story(text, names) != gold_names,
            abs((donor.span[0] - gold_span[0]).days) // 7,  # weeks apart: near dates count alike
            rng.random(),
        )
        ranked.append((key, donor.ce_id, text))
    ranked.sort()
    usable: list[tuple[str, str]] = []
    refused = 0
    for _, ce_id, text in ranked:
        if len(usable) == MAX_CANDIDATES:
            break
        if any(text == seen for _, seen in usable):
            continue
        if is_true_here(text, true_texts, config.fuzzy_threshold):
            refused += 1
            continue
        if is_true_here(text, [gold, *(seen for _, seen in usable)], config.fuzzy_threshold):
            continue  # too like the gold or a better-ranked candidate
        usable.append((ce_id, text))
    shorter_wanted = rng.randint(0, count)
    return _best_set(usable, gold, (title, told), shorter_wanted, count), refused


MAX_CANDIDATES = 14  # best-ranked usable candidates a sample's options are chosen among


def _best_set(
    usable: Sequence[tuple[str, str]],
    gold: str,
    words: tuple[set[str], set[str]],
    shorter_wanted: int,
    count: int,
) -> list[str]:
    """The ``count`` candidates (fewer when there are not enough) that leave the gold no extreme.

    Among the sets where the gold is neither the only option sharing the most title (background)
    words nor the only one sharing the fewest, prefer: negatives from distinct donor timelines; as
    many negatives shorter than the gold as ``shorter_wanted`` (drawn 0-``count`` per sample, so the
    gold is the longest, the shortest or in between as often as chance says); the best-ranked.
    """
    if len(usable) < count:
        return [text for _, text in usable]
    gold_counts = [len(content_words(gold) & group) for group in words]
    # Each candidate's shared-word counts once, not once per set it is in (up to C(14, count) sets).
    shared = [[len(content_words(text) & group) for group in words] for _, text in usable]
    best: tuple[tuple[int, int, int], list[str]] | None = None
    for chosen in combinations(range(len(usable)), count):
        texts = [usable[i][1] for i in chosen]
        if any(
            _extreme(gold_count, [shared[i][which] for i in chosen])
            for which, gold_count in enumerate(gold_counts)
        ):
            continue
        shorter = sum(len(text) < len(gold) for text in texts)
        score = (
            int(len({usable[i][0] for i in chosen}) < count),
            abs(shorter - shorter_wanted),
            sum(chosen),
        )
        if best is None or score < best[0]:
            best = (score, texts)
    return best[1] if best else []


def _extreme(gold: int, negatives: Sequence[int]) -> bool:
    """Whether the gold alone has the most, or alone the fewest (a rule could pick it out)."""
    return all(value < gold for value in negatives) or all(value > gold for value in negatives)


def hardest_negative(gold: str, negatives: Sequence[str], title: str, background: Sequence[str]) -> str:
    """The VQA "No" candidate: the negative nearest the gold in title and background words shared,
    then in length (characters, exactly: over a task the "No" candidate is then as often longer as
    shorter than the "Yes" one would be, so "say Yes to long candidates" learns nothing), then the
    most like the background (first in order on a tie)."""
    title_words, told = content_words(title), content_words(" ".join(background))

    def hardness(item: tuple[int, str]) -> tuple[int, float, float, int]:
        index, text = item
        like = max((token_set_ratio(fold(text), fold(event)) for event in background), default=0.0)
        return sum(surface_gaps(text, gold, title_words, told)), length_gap(text, gold), -like, index

    return min(enumerate(negatives), key=hardness)[1]


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


def same_side_times(
    answer: str, negatives: Sequence[str], cut_day: date, count: int = 3, rng: random.Random | None = None
) -> list[str]:
    """MCAC "When" options on the gold's side of the cut: wrong dates that start on or after the cut day.

    An option dated before the cut is known to be wrong by anyone who reads the background's dates, so
    the gold would be the only option left after the cut. Candidates: the LLM's wrong dates on the
    gold's side, then the gold moved by one to four weeks (day precision), one to three months (month)
    or years, either way, staying on or after the cut; written like the answer. How many of the three
    fall before the gold is drawn by ``rng`` (0-3, as far as the candidates allow), so that "the
    earliest date" or "the latest date" is no tell.
    """
    gold = option_span(answer, cut_day.year)
    candidates = [
        value for value in negatives if _after(value, cut_day) and option_span(value, cut_day.year) != gold
    ]
    if gold is None:
        return candidates[:count]
    style = "" if re.fullmatch(r"\s*\d{4}(-\d{2}){0,2}\s*", answer) else answer
    for moved in _moved(gold):
        text = _written_like(moved, style)
        if _after(text, cut_day) and text not in candidates and option_span(text, cut_day.year) != gold:
            candidates.append(text)
    earlier = [value for value in candidates if (option_span(value, cut_day.year) or gold)[0] < gold[0]]
    later = [value for value in candidates if value not in earlier]
    before = min((rng or random.Random(0)).randint(0, count), len(earlier))
    before = max(before, count - len(later))
    return [*earlier[:before], *later[: count - before]][:count]


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
