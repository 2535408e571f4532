"""VQA: which MCNC samples give their gold ("Yes") and which their "No" candidate, drawn in matched pairs.

The paper draws the gold or a negative at random. A gold is usually more like its own background than
an event of another story, and on a small task a coin leaves Yes and No unevenly spread over length
and title words, so rules that know nothing ("say Yes to what looks like the background", "say Yes to
long candidates") beat chance. Pairs of neighbouring samples, one Yes and one No each, labelled the way
that keeps Yes and No candidates alike, leave those rules at chance (README "How options are built").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.fuzz import token_set_ratio

from almanac.core.text import fold
from almanac.events.cuts import seeded


@dataclass(frozen=True)
class VqaPair:
    """What a no-knowledge rule could read off the two candidates one MCNC sample can give VQA."""

    sample: str
    names_story: bool  # the gold shares a title word
    gold_like: float  # how like the background the gold is (best token-set ratio with one event)
    no_like: float  # ... and the "No" candidate
    gold_chars: int
    no_chars: int


def background_likeness(text: str, background: Sequence[str]) -> float:
    return max((token_set_ratio(fold(text), fold(event)) for event in background), default=0.0)


LIKENESS_SCALE, LENGTH_SCALE = 5.0, 0.2  # a 5-point likeness gap weighs as a 20% length gap


def paired_yes(items: Sequence[VqaPair], seed: int) -> dict[str, bool]:
    """sample id -> whether its VQA candidate is the gold ("Yes").

    A matched-pair draw. Samples in order of (does the gold name the story, how like the background
    its candidates are) are paired with their neighbour, and one of each pair gets "Yes", the other
    "No". A gold is usually more like its background than any negative, so a coin would let "say Yes
    to what looks like the background" beat chance: of the two ways to label a pair, the one that
    keeps the running difference between the Yes and the No candidates (background likeness and
    log length, scaled) nearer zero is taken, a coin seeded by the pair on a tie (an odd one out gets
    its own coin). Yes and No stay balanced within every stretch of the order, title words included.
    """
    order = sorted(items, key=lambda item: (item.names_story, item.gold_like + item.no_like, item.sample))
    yes: dict[str, bool] = {}
    like_sum = length_sum = 0.0
    for start in range(0, len(order), 2):
        pair = order[start : start + 2]
        coin = seeded(seed, *(item.sample for item in pair), "vqa-pair").random() < 0.5
        if len(pair) == 1:
            yes[pair[0].sample] = coin
            continue
        ways = []
        for first_yes, (yes_item, no_item) in ((True, pair), (False, pair[::-1])):
            like = like_sum + yes_item.gold_like - no_item.no_like
            length = length_sum + math.log(max(1, yes_item.gold_chars) / max(1, no_item.no_chars))
            cost = abs(like) / LIKENESS_SCALE + abs(length) / LENGTH_SCALE
            ways.append((cost, first_yes != coin, first_yes, like, length))
        _, _, first_yes, like_sum, length_sum = min(ways)
        yes[pair[0].sample], yes[pair[1].sample] = first_yes, not first_yes
    return yes
