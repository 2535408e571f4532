"""``params.yaml: futurex``: the event filters, the tiers and the scorer, as frozen dataclasses."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from almanac.core.params import parse_section

VOTES: Final = ("any", "majority", "all")


@dataclass(frozen=True)
class EventsConfig:
    # validate / answer_type reject reasons whose questions are numeric outcomes (Level 4 material)
    numeric_reasons: tuple[str, ...] = ("invalid_non_numeric", "answer_class_numeric")


@dataclass(frozen=True)
class FilterConfig:
    judge_roles: tuple[str, ...] = ("validator",)  # each role judges every event, harmful and subjective
    vote: str = "any"  # how many flagging roles drop an event: any, majority (> half) or all of them
    yes_no_keep_rate: float = 0.2  # share of yes/no events kept (seeded by content hash)
    max_per_template: int = 1  # events kept per (site, day, question template) as FutureX; 0 = no cap
    max_per_source_day: int = 0  # events kept per (source, day); 0 = no cap (FutureX has none)
    max_text_chars: int = 4000  # question text sent to a judge role

    def __post_init__(self) -> None:
        if self.vote not in VOTES:
            raise ValueError(f"futurex.filter.vote must be one of {', '.join(VOTES)}, got {self.vote!r}")
        if not self.judge_roles:
            raise ValueError("futurex.filter.judge_roles needs at least one role")
        if not 0.0 <= self.yes_no_keep_rate <= 1.0:
            raise ValueError("futurex.filter.yes_no_keep_rate must lie in [0, 1]")


@dataclass(frozen=True)
class TierConfig:
    level1_share: float = 0.6  # share of OpenForesight questions made single-choice (the rest: Level 3)
    level1_options: int = 3  # options per Level-1 question, the answer included (FutureX: fewer than 4)
    level2_min_correct: int = 2  # correct options a Level-2 question needs at least
    level2_options: int = 8  # options per Level-2 question, the answers included
    level4_sigma_relative: float = 0.1  # sigma = this x |answer| when no 7-day history exists

    def __post_init__(self) -> None:
        if not 2 <= self.level1_options <= 3:
            raise ValueError("futurex.tiers.level1_options must be 2 or 3 (FutureX: fewer than 4 options)")
        if self.level2_min_correct < 2:
            raise ValueError("futurex.tiers.level2_min_correct must be at least 2 (several correct options)")
        if self.level2_options <= self.level2_min_correct:
            raise ValueError("futurex.tiers.level2_options must exceed level2_min_correct")
        if not 0.0 <= self.level1_share <= 1.0:
            raise ValueError("futurex.tiers.level1_share must lie in [0, 1]")
        if self.level4_sigma_relative <= 0:
            raise ValueError("futurex.tiers.level4_sigma_relative must be positive")


@dataclass(frozen=True)
class ScoreConfig:
    weights: tuple[float, ...] = (0.1, 0.2, 0.3, 0.4)  # Level 1..4 (FutureX section 4.1)
    judge_role: str = "validator"  # the LLM-as-judge of Level-3 answers

    def __post_init__(self) -> None:
        if len(self.weights) != 4 or any(weight < 0 for weight in self.weights):
            raise ValueError("futurex.score.weights must be four non-negative numbers")


@dataclass(frozen=True)
class FuturexConfig:
    seed: int = 19
    events: EventsConfig = field(default_factory=EventsConfig)
    filter: FilterConfig = field(default_factory=FilterConfig)
    tiers: TierConfig = field(default_factory=TierConfig)
    score: ScoreConfig = field(default_factory=ScoreConfig)


def parse_futurex(params: Mapping[str, Any]) -> FuturexConfig:
    return parse_section(FuturexConfig, params, "futurex")
