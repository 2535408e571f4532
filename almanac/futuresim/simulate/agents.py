"""The replay's baseline agents.

``constant``: never forecasts. Its Brier skill score is 0 on every day by definition: the reference any
agent must beat. ``baseline-search``: FutureSim's single-retrieval ablation; one search per question with
its title, on the day before it resolves (``days_before``; or on its first open day if it opens later;
exactly that day, so a resumed run searches what the killed one did),
then the forecaster role names up to five outcomes from the passages found. Both act only through the
simulation's own actions and reads, so the date cap that binds any agent binds them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Protocol

from almanac.core.rejects import StageLedger
from almanac.futuresim.evidence import Chunk
from almanac.futuresim.llm_tasks.forecast import FORECAST, Outcomes, forecast_item
from almanac.futuresim.simulate.environment import Simulation
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task


class Agent(Protocol):
    name: str

    def act(self, simulation: Simulation) -> None:
        """Everything the agent does on the simulation's current day, before ``next_day``."""


@dataclass
class NoForecastAgent:
    name: str = "constant"

    def act(self, simulation: Simulation) -> None:
        del simulation


@dataclass
class SearchOnceAgent:
    llm: LLMConfig
    role: str
    cache: LLMCache
    ledger: StageLedger
    k: int = 5
    days_before: int = 1
    max_chunk_chars: int = 2000
    name: str = "baseline-search"

    def act(self, simulation: Simulation) -> None:
        today = simulation.today
        due = [
            question
            for question in simulation.open_questions()
            if today == _search_day(question, self.days_before)
        ]
        if not due:
            return
        items = []
        for question in due:
            hits = simulation.search(question["question_title"], self.k)
            chunks = [Chunk(hit.chunk_id, hit.article_id, hit.available_date, hit.text) for hit in hits]
            items.append(
                forecast_item(str(question["question_id"]), question, today, chunks, self.max_chunk_chars)
            )
        results = run_task(
            self.llm.role(self.role), FORECAST, items, self.cache, self.ledger, self.llm.prompts_dir
        )
        for question, result in zip(due, results, strict=True):
            if isinstance(result.value, Outcomes) and result.value.outcomes:
                simulation.submit_forecast(
                    str(question["question_id"]), list(map(list, result.value.outcomes))
                )
            else:
                self.ledger.reject(
                    str(question["question_id"]), result.error or "no_outcome", result.detail, "forecast"
                )


def _search_day(question: dict[str, str], days_before: int) -> date:
    resolution = date.fromisoformat(question["resolution_date"])
    return max(date.fromisoformat(question["question_start_date"]), resolution - timedelta(days=days_before))
