"""What the FutureX steps share: seeded draws by content hash, and how a relation is written as an option.

A draw is a hash of (seed, id), never a random stream, so an event's fate does not depend on the other
events or on their order, and is the same on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from almanac.core.ids import content_id


def seeded_fraction(seed: int, key: str) -> float:
    """A number in [0, 1) fixed by (seed, key)."""
    return int(content_id(str(seed), key, length=8), 16) / 2**64


def seeded_rng(seed: int, *parts: str) -> random.Random:
    """A generator for one decision (e.g. one question's option order), fixed by (seed, parts)."""
    return random.Random(int(content_id(str(seed), *parts, length=8), 16))


def relation_option(code: str, labels: Mapping[str, str]) -> str:
    """``"042 Make a visit"``: the code first, so a prediction may name the code alone."""
    return f"{code} {labels.get(code, '')}".strip()
