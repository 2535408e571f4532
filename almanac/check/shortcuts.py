"""Shortcut audit: rules that know nothing about the world, run over released multiple-choice tasks.

A benchmark whose gold can be picked without forecasting measures the shortcut, not the forecaster. Each
baseline below looks only at the surface of a task (its options, title and background) and answers it;
its accuracy is set beside chance. A baseline that beats chance by more than a margin on enough tasks
fails the check: the options give the gold away.

Credit rules, so the expected accuracy of a rule that hesitates is honest: a rule that ties between m
options (the gold among them) earns 1/m; a rule that has nothing to go on abstains and its task is not
counted in its ``n`` (e.g. "only option dated after the cut" on options that are not dates).

Multiple-choice tasks (MCNC, MCAC, FutureX Level 1) and yes/no tasks (VQA) have their own forms of the
same rules: on a yes/no task a rule says "Yes" when the one candidate has the property (longer than the
median candidate, more like the background than the median, ...), and chance is one half.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from statistics import median

from rapidfuzz.fuzz import token_set_ratio

from almanac.check.dates import interval
from almanac.check.text import fold, tokens
from almanac.core.hindsight import HINDSIGHT_WORDS
from almanac.core.months import MONTH_NUMBERS

_STOPWORD_TEXT = (
    "the a an of in on at to for and or by with from as is are was were be been will its it this that "
    "into over after before new"
)
STOPWORDS = frozenset(_STOPWORD_TEXT.split(" "))
MIN_WORD_CHARS = 3
VQA_CHANCE = 0.5


@dataclass(frozen=True)
class ChoiceTask:
    """One released task as a no-knowledge rule sees it.

    Multiple choice: ``options`` and the gold's position ``gold``. Yes/no: ``options`` holds the one
    candidate and ``gold`` is 0 for Yes, 1 for No (``binary``).
    """

    item_id: str
    group: str  # the task family the accuracy is pooled over, e.g. "openforecast/mcnc"
    options: tuple[str, ...]
    gold: int
    title: str = ""
    background: tuple[str, ...] = ()
    cut: date | None = None
    binary: bool = False


Credit = float | None  # 1.0 right, 1/m a tie of m with the gold, 0.0 wrong, None abstains
Baseline = Callable[[Sequence[ChoiceTask]], list[Credit]]


def content_words(text: str) -> set[str]:
    return {word for word in tokens(text) if len(word) >= MIN_WORD_CHARS and word not in STOPWORDS}


def hindsight_in(text: str, words: Iterable[str] = HINDSIGHT_WORDS) -> str | None:
    """The first hindsight phrase ``text`` uses (whole words, folded), or None."""
    folded = " ".join(tokens(text))
    for phrase in words:
        if re.search(rf"(?<!\w){re.escape(' '.join(tokens(phrase)))}(?!\w)", folded):
            return phrase
    return None


def _argmax_credit(scores: Sequence[float], gold: int) -> float:
    best = max(scores)
    winners = [i for i, score in enumerate(scores) if score == best]
    return 1.0 / len(winners) if gold in winners else 0.0


def _similarity(a: str, b: str) -> float:
    return float(token_set_ratio(fold(a), fold(b)))


def _threshold_credit(values: Sequence[float | None], tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """Yes/no form: "Yes" on one side of the group's median value, the side that scores better (a rule
    that is right by saying the opposite is as much a tell; fitted on the group, an upper bound)."""
    known = [value for value in values if value is not None]
    if not known:
        return [None] * len(tasks)
    cut = median(known)
    above = [
        None if value is None else float((value >= cut) == (task.gold == 0))
        for value, task in zip(values, tasks, strict=True)
    ]
    below = [None if credit is None else 1.0 - credit for credit in above]
    return above if sum(c for c in above if c) >= sum(c for c in below if c) else below


def most_similar_option(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """MC: the option most like the others (mean token-set ratio). Yes/no: the candidate most like
    its background (best ratio against a background event)."""
    if tasks and tasks[0].binary:
        values = [
            max((_similarity(t.options[0], event) for event in t.background), default=None) for t in tasks
        ]
        return _threshold_credit(values, tasks)
    credits: list[Credit] = []
    for task in tasks:
        scores = [
            sum(_similarity(option, other) for j, other in enumerate(task.options) if j != i)
            for i, option in enumerate(task.options)
        ]
        credits.append(_argmax_credit(scores, task.gold))
    return credits


def most_like_background(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """MC only: the option sharing most content words with the background (the story's own names)."""
    if tasks and tasks[0].binary:
        return [None] * len(tasks)
    credits: list[Credit] = []
    for task in tasks:
        seen = content_words(" ".join(task.background))
        scores = [float(len(content_words(option) & seen)) for option in task.options]
        credits.append(_argmax_credit(scores, task.gold) if seen and max(scores) > 0 else None)
    return credits


def longest_option(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    if tasks and tasks[0].binary:
        return _threshold_credit([float(len(t.options[0])) for t in tasks], tasks)
    return [_argmax_credit([float(len(option)) for option in t.options], t.gold) for t in tasks]


def shortest_option(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """MC only (on a yes/no task "longest" already takes the better side)."""
    if tasks and tasks[0].binary:
        return [None] * len(tasks)
    return [_argmax_credit([-float(len(option)) for option in t.options], t.gold) for t in tasks]


def first_position(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """Always A; on a yes/no task always Yes."""
    return [float(task.gold == 0) for task in tasks]


def majority_position(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """The gold position (or label) most frequent in the group, fitted on the group itself (ties: first)."""
    if not tasks:
        return []
    counts = Counter(task.gold for task in tasks)
    top = max(counts.values())
    favourite = min(position for position, count in counts.items() if count == top)
    return [float(task.gold == favourite) for task in tasks]


def option_date(text: str) -> tuple[date, date] | None:
    """The days an option written as a date can mean (ISO, "3 March 2025", "March 3, 2025", "March
    2025", "2025"); None when it is not a date with a year."""
    stripped = text.strip().rstrip(".")
    for precision in ("day", "month", "year"):
        found = interval(stripped, precision)
        if found:
            return found
    words = tokens(stripped)
    months = [i for i, word in enumerate(words) if word in MONTH_NUMBERS]
    years = [word for word in words if len(word) == 4 and word.isdigit()]
    days = [word for word in words if word.isdigit() and len(word) <= 2]
    if len(years) != 1 or len(words) > 4:
        return None
    if not months:
        return interval(years[0], "year") if len(words) == 1 else None
    month = MONTH_NUMBERS[words[months[0]]]
    if days:
        return interval(f"{years[0]}-{month:02d}-{int(days[0]):02d}", "day")
    return interval(f"{years[0]}-{month:02d}", "month")


def only_dated_after_cut(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """MC: when every option is a date and exactly one can fall on or after the cut, pick it."""
    credits: list[Credit] = []
    for task in tasks:
        spans = [option_date(option) for option in task.options]
        if task.binary or task.cut is None or any(span is None for span in spans):
            credits.append(None)
            continue
        late = [i for i, span in enumerate(spans) if span is not None and span[1] >= task.cut]
        credits.append(float(late == [task.gold]) if len(late) == 1 else None)
    return credits


def _dated_extreme(tasks: Sequence[ChoiceTask], latest: bool) -> list[Credit]:
    """MC: when every option is a date, the earliest (or latest) one; ties split, abstains otherwise."""
    credits: list[Credit] = []
    for task in tasks:
        spans = [option_date(option) for option in task.options]
        if task.binary or any(span is None for span in spans):
            credits.append(None)
            continue
        starts = [float(span[0].toordinal()) for span in spans if span is not None]
        credits.append(_argmax_credit([value if latest else -value for value in starts], task.gold))
    return credits


def earliest_date(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    return _dated_extreme(tasks, latest=False)


def latest_date(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    return _dated_extreme(tasks, latest=True)


def title_words(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """MC: the option sharing most content words with the title (abstains when none shares any).
    Yes/no: "Yes" when the candidate shares a content word with the title."""
    credits: list[Credit] = []
    for task in tasks:
        title = content_words(task.title)
        scores = [float(len(content_words(option) & title)) for option in task.options]
        if task.binary:
            credits.append(float((scores[0] > 0) == (task.gold == 0)))
        else:
            credits.append(_argmax_credit(scores, task.gold) if max(scores) > 0 else None)
    return credits


def hindsight_words(tasks: Sequence[ChoiceTask]) -> list[Credit]:
    """The option sharing most words with the background events that use hindsight wording; abstains
    when no background event does (the released build should have none)."""
    credits: list[Credit] = []
    for task in tasks:
        told = set().union(*(content_words(event) for event in task.background if hindsight_in(event)))
        if not told:
            credits.append(None)
            continue
        scores = [float(len(content_words(option) & told)) for option in task.options]
        if task.binary:
            credits.append(float((scores[0] > 0) == (task.gold == 0)))
        else:
            credits.append(_argmax_credit(scores, task.gold) if max(scores) > 0 else None)
    return credits


BASELINES: dict[str, Baseline] = {
    "most_similar": most_similar_option,
    "most_like_background": most_like_background,
    "longest": longest_option,
    "shortest": shortest_option,
    "always_first": first_position,
    "majority_position": majority_position,
    "only_dated_after_cut": only_dated_after_cut,
    "earliest_date": earliest_date,
    "latest_date": latest_date,
    "title_words": title_words,
    "hindsight_words": hindsight_words,
}


@dataclass(frozen=True)
class BaselineScore:
    group: str
    baseline: str
    n: int  # tasks the rule answered (abstentions left out)
    correct: float  # summed credit
    chance: float  # mean chance over those tasks

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None

    def verdict(self, margin: float, min_samples: int) -> str | None:
        """Why this score fails the audit, or None."""
        accuracy = self.accuracy
        if accuracy is None or self.n < min_samples or accuracy <= self.chance + margin + 1e-9:
            return None
        return f"{accuracy:.1%} on {self.n} tasks, chance {self.chance:.1%} + margin {margin:.0%}"

    def row(self) -> dict[str, object]:
        accuracy = self.accuracy
        return {
            "group": self.group,
            "baseline": self.baseline,
            "n": self.n,
            "accuracy": None if accuracy is None else round(accuracy, 4),
            "chance": round(self.chance, 4),
        }


@dataclass(frozen=True)
class ShortcutAudit:
    margin: float = 0.10  # a baseline fails above chance + margin ...
    min_samples: int = 20  # ... when it answered at least this many tasks of its group
    scores: tuple[BaselineScore, ...] = field(default=())

    def failures(self) -> list[tuple[str, str | None]]:
        """(group/baseline, reason or None) for the check report."""
        return [
            (f"{score.group}/{score.baseline}", score.verdict(self.margin, self.min_samples))
            for score in self.scores
        ]

    def lines(self) -> list[str]:
        head = f"  shortcut baselines (fail above chance + {self.margin:.0%} on >= {self.min_samples} tasks):"
        out = [head]
        for score in self.scores:
            accuracy = "   -  " if score.accuracy is None else f"{score.accuracy:6.1%}"
            small = "  (n below minimum)" if 0 < score.n < self.min_samples else ""
            out.append(
                f"    {score.group:<22} {score.baseline:<21} {accuracy} chance {score.chance:6.1%} "
                f"n {score.n}{small}"
            )
        return out


def _chance(task: ChoiceTask) -> float:
    return VQA_CHANCE if task.binary else 1.0 / len(task.options)


def audit(tasks: Sequence[ChoiceTask], margin: float = 0.10, min_samples: int = 20) -> ShortcutAudit:
    """Every baseline over every group of ``tasks`` (groups in order of first appearance)."""
    groups: dict[str, list[ChoiceTask]] = {}
    for task in tasks:
        groups.setdefault(task.group, []).append(task)
    scores = []
    for group, members in groups.items():
        for name, baseline in BASELINES.items():
            credits = baseline(members)
            answered = [
                (credit, task) for credit, task in zip(credits, members, strict=True) if credit is not None
            ]
            chance = [_chance(task) for _, task in answered]
            scores.append(
                BaselineScore(
                    group,
                    name,
                    len(answered),
                    sum(credit for credit, _ in answered if credit is not None),
                    sum(chance) / len(chance) if chance else _chance(members[0]),
                )
            )
    return ShortcutAudit(margin, min_samples, tuple(scores))
