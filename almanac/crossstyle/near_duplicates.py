"""Cross-style near-duplicates: an evaluation row of one style that repeats a training row of another.

A lab that trains on one style's train split and evaluates on another style's test rows is contaminated
when the two share a question. Every released row is reduced to a ``ReleasedRow`` (its style, split,
question, answer, event text and source URLs); two rows are near-duplicates when

- their questions share content words with Jaccard >= ``text_jaccard`` (templates such as "Which
  organization will ... by <date>?" lose their function words first, so only the substance counts), or
- they have the same folded answer and the same event: a shared source URL, or event texts whose
  content words reach Jaccard >= ``event_jaccard``.

A row is compared with the rows of *other* styles released in an earlier-ranked split (train <
validation < test; FutureX tiers and MIRAI queries rank as test): what a lab may fit to before it
evaluates on that row. The build stages (FutureX: ``futurex_events``) use it to exclude or mark their
rows; ``almanac check all`` proves the same over everything released.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from almanac.core.params import parse_section
from almanac.core.text import fold

ACTIONS: Final = ("exclude", "mark")
SPLIT_RANK: Final = {"train": 0, "validation": 1, "test": 2}
MARK_COLUMN: Final = "cross_style_duplicate"  # the reason, on a marked evaluation row; null otherwise

# Function words and question scaffolding: what every generated question shares regardless of content.
_SCAFFOLD_WORDS = (
    "a an and are as at be by for from in is it its of on or the to which what who whom whose will when "
    "where how many much did does do was were with this that these those answer one number"
)
_SCAFFOLD: Final = frozenset(_SCAFFOLD_WORDS.split())
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class CrossStyleConfig:
    action: str = "exclude"  # exclude: the build drops the row (a reject with its reason); mark: keeps it
    text_jaccard: float = 0.6  # question content-word Jaccard that makes two questions the same
    event_jaccard: float = 0.3  # with the same answer, event-text Jaccard that makes two events the same

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"check.cross_style.action must be one of {ACTIONS}, got {self.action!r}")
        for name in ("text_jaccard", "event_jaccard"):
            if not 0.0 < getattr(self, name) <= 1.0:
                raise ValueError(f"check.cross_style.{name} must lie in (0, 1]")


def parse_cross_style(params: Mapping[str, Any]) -> CrossStyleConfig:
    return parse_section(CrossStyleConfig, params.get("check") or {}, "cross_style")


@dataclass(frozen=True)
class ReleasedRow:
    style: str
    split: str  # train | validation | test (FutureX and MIRAI rows: test)
    row_id: str
    question: str
    answer: str = ""
    event: str = ""  # a short text of the event the row is about (question, target event, title)
    urls: tuple[str, ...] = ()

    @property
    def rank(self) -> int:
        return SPLIT_RANK[self.split]


def content_words(text: str) -> frozenset[str]:
    return frozenset(word for word in _WORD.findall(fold(text)) if word not in _SCAFFOLD)


def jaccard(left: frozenset[str], right: frozenset[str]) -> float:
    union = len(left | right)
    return len(left & right) / union if union else 0.0


class TrainingIndex:
    """The rows an evaluation row may not repeat, indexed by content word and by folded answer."""

    def __init__(self, rows: Iterable[ReleasedRow], config: CrossStyleConfig) -> None:
        self.config = config
        self.rows = [row for row in rows if row.rank < SPLIT_RANK["test"]]
        self.words = [content_words(row.question) for row in self.rows]
        self.events = [content_words(f"{row.question} {row.event}") for row in self.rows]
        self.by_word: dict[str, list[int]] = defaultdict(list)
        self.by_answer: dict[str, list[int]] = defaultdict(list)
        for position, words in enumerate(self.words):
            for word in words:
                self.by_word[word].append(position)
            if fold(self.rows[position].answer):
                self.by_answer[fold(self.rows[position].answer)].append(position)

    def _eligible(self, row: ReleasedRow, position: int) -> bool:
        other = self.rows[position]
        return other.style != row.style and other.rank < row.rank

    def duplicate_of(self, row: ReleasedRow) -> str | None:
        """Why ``row`` repeats a training row of another style, or None."""
        words = content_words(row.question)
        shared = Counter(position for word in words for position in self.by_word.get(word, ()))
        for position, _count in sorted(shared.items(), key=lambda item: (-item[1], item[0])):
            if not self._eligible(row, position):
                continue
            score = jaccard(words, self.words[position])
            if score >= self.config.text_jaccard:
                return f"question repeats {self._name(position)} (content-word Jaccard {score:.2f})"
        event = content_words(f"{row.question} {row.event}")
        for position in self.by_answer.get(fold(row.answer), ()) if fold(row.answer) else ():
            if not self._eligible(row, position):
                continue
            other = self.rows[position]
            shared_url = sorted(set(row.urls) & set(other.urls))
            score = jaccard(event, self.events[position])
            if shared_url or score >= self.config.event_jaccard:
                how = f"source {shared_url[0]}" if shared_url else f"event Jaccard {score:.2f}"
                return f"answer {row.answer!r} and event repeat {self._name(position)} ({how})"
        return None

    def _name(self, position: int) -> str:
        other = self.rows[position]
        return f"{other.style} {other.split} {other.row_id}"
