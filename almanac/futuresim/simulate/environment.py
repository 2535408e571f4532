"""The replay loop: questions open and resolve day by day, forecasts are held and scored.

Two actions change the state, as in FutureSim: :meth:`Simulation.submit_forecast` (register or replace
the forecast of one open question) and :meth:`Simulation.next_day` (score the day, commit it, move on).
A question is open from its start date to the day before its resolution date: on the resolution day the
day's news may report the outcome, so from then on it is resolved and its answer is shown.

State lives in a folder: one JSON file per completed day (its submissions and scores), then
``simulation.json`` naming the last completed day, each written atomically in that order. A killed run
loses only the day in progress; reopening the folder replays the committed days and continues from the
next one, and an agent that acts the same way on the same state gets byte-identical outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from almanac.core.ids import content_id
from almanac.core.io import read_json, write_json
from almanac.futuresim.search import SearchHit
from almanac.futuresim.simulate.outputs import write_figure, write_outputs
from almanac.futuresim.simulate.scoring import (
    Forecast,
    ForecastError,
    brier_skill,
    forecast_from,
    top_correct,
)
from almanac.futuresim.simulate.world import CappedWorld, Search, World

STATE_FILE = "simulation.json"
DAYS_DIR = "days"
FORMAT = 1
# What an agent sees of a question; the answer is added once it resolves. The source article's URL and
# title are never shown: they report the outcome.
PUBLIC_FIELDS = ("question_id", "question_title", "background", "resolution_criteria", "answer_type")


@dataclass(frozen=True)
class Question:
    fields: Mapping[str, str]  # PUBLIC_FIELDS
    start: date
    resolution: date
    answer: str

    @property
    def question_id(self) -> str:
        return self.fields["question_id"]

    def open_on(self, day: date) -> bool:
        return self.start <= day < self.resolution


def question_from_row(row: Mapping[str, Any]) -> Question:
    fields = {name: str(row.get(name) or "") for name in PUBLIC_FIELDS}
    start, resolution = _day(row.get("question_start_date")), _day(row.get("resolution_date"))
    return Question(fields, min(start, resolution), resolution, str(row["answer"]))


def _day(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value)[:10])


# Judge: (question, outcome) pairs -> does each outcome match the question's answer?
Judge = Callable[[Sequence[tuple[Question, str]]], list[bool]]


class Simulation:
    def __init__(
        self,
        questions: Sequence[Question],
        world: World,
        judge: Judge,
        state_dir: Path,
        search: Search | None = None,
        label: str = "",
    ) -> None:
        if not questions:
            raise ValueError("no questions to simulate")
        self.questions = {question.question_id: question for question in sorted(questions, key=_order)}
        self.start = min(question.start for question in questions)
        self.end = max(question.resolution for question in questions)
        self.state_dir = state_dir
        self.label = label
        self._judge = judge
        self._verdicts: dict[tuple[str, str], bool] = {}
        self._held: dict[str, Forecast] = {}
        self._pending: dict[str, Forecast] = {}
        self._days: list[dict[str, Any]] = []
        self._world = CappedWorld(world, self.start, search)
        self._digest = content_id(
            *(f"{q.question_id}|{q.start}|{q.resolution}|{q.answer}" for q in self.questions.values())
        )
        self._resume()

    # --- what an agent may look at -------------------------------------------------------------
    @property
    def today(self) -> date:
        return self._world.today

    @property
    def finished(self) -> bool:
        return bool(self._days) and self._days[-1]["day"] == self.end.isoformat()

    def open_questions(self) -> list[dict[str, Any]]:
        return [self._public(q) for q in self.questions.values() if q.open_on(self.today)]

    def resolved_questions(self) -> list[dict[str, Any]]:
        return [self._public(q) for q in self.questions.values() if q.resolution <= self.today]

    def held_forecast(self, question_id: str) -> list[list[Any]] | None:
        forecast = self._pending.get(question_id) or self._held.get(question_id)
        return None if forecast is None else [[name, p] for name, p in forecast.outcomes]

    def list_days(self) -> list[date]:
        return self._world.list_days()

    def read_day(self, day: date) -> list[dict[str, Any]]:
        return self._world.read_day(day)

    def search(self, query: str, k: int = 5) -> list[SearchHit]:
        return self._world.search(query, k)

    # --- the two actions -----------------------------------------------------------------------
    def submit_forecast(
        self, question_id: str, outcomes: Mapping[str, float] | Sequence[Sequence[object]]
    ) -> None:
        question = self.questions.get(question_id)
        if question is None:
            raise ForecastError(f"no question {question_id!r} in this simulation")
        if not question.open_on(self.today):
            state = "resolved" if question.resolution <= self.today else f"opens on {question.start}"
            raise ForecastError(f"question {question_id} is not open on {self.today} ({state})")
        if self.finished:
            raise ForecastError("the simulation has ended")
        self._pending[question_id] = forecast_from(outcomes)

    def next_day(self) -> dict[str, Any]:
        """Score and commit today, then advance; returns what changed (new day, resolutions)."""
        if self.finished:
            raise ForecastError("the simulation has ended")
        submissions = {qid: self._pending[qid] for qid in sorted(self._pending)}
        self._held.update(submissions)
        self._judge_new()
        record = self._score_day(self.today, submissions)
        write_json(record, self.state_dir / DAYS_DIR / f"{self.today.isoformat()}.json")
        self._days.append(record)
        self._pending = {}
        write_json(self._state(), self.state_dir / STATE_FILE)
        write_outputs(self.state_dir, self._days, self._time_weighted(), self.label)
        if self.finished:
            self.draw()
            return {"finished": True, "day": self.today.isoformat(), "summary": self.summary()}
        self._world.advance(self.today + timedelta(days=1))
        resolved = [self._public(q) for q in self.questions.values() if q.resolution == self.today]
        return {
            "finished": False,
            "day": self.today.isoformat(),
            "new_articles": len(self.read_day(self.today)),
            "open": len(self.open_questions()),
            "resolved": resolved,
        }

    def draw(self) -> None:
        """``daily.png`` of the days completed so far (next_day draws it on the last day)."""
        if self._days:
            write_figure(self.state_dir, self._days, self.label)

    def summary(self) -> dict[str, Any]:
        last = self._days[-1] if self._days else {}
        return {
            "days": len(self._days),
            "questions": len(self.questions),
            "accuracy": last.get("accuracy"),
            "brier": last.get("brier"),
            "brier_skill": last.get("brier_skill"),
            "time_weighted_bss": self._time_weighted(),
        }

    # --- internals -----------------------------------------------------------------------------
    def _public(self, question: Question) -> dict[str, Any]:
        view: dict[str, Any] = {
            **question.fields,
            "question_start_date": question.start.isoformat(),
            "resolution_date": question.resolution.isoformat(),
        }
        if question.resolution <= self.today:
            held = self._held.get(question.question_id)
            view["answer"] = question.answer
            view["score"] = brier_skill(held, self._matches(question.question_id, held))
        return view

    def _matches(self, question_id: str, forecast: Forecast | None) -> dict[str, bool]:
        if forecast is None:
            return {}
        return {name: self._verdicts.get((question_id, name), False) for name, _ in forecast.outcomes}

    def _judge_new(self) -> None:
        wanted = sorted(
            {(qid, name) for qid, held in self._held.items() for name, _ in held.outcomes}
            - set(self._verdicts)
        )
        if wanted:
            verdicts = self._judge([(self.questions[qid], name) for qid, name in wanted])
            self._verdicts.update(zip(wanted, verdicts, strict=True))

    def _score_day(self, day: date, submissions: Mapping[str, Forecast]) -> dict[str, Any]:
        scores: dict[str, float] = {}
        correct: dict[str, bool] = {}
        for qid, question in self.questions.items():
            held = self._held.get(qid)
            matches = self._matches(qid, held)
            scores[qid] = brier_skill(held, matches) if question.start <= day else 0.0
            correct[qid] = top_correct(held, matches) and question.start <= day
        resolved = [qid for qid, q in self.questions.items() if q.resolution <= day]
        count = len(self.questions)
        return {
            "day": day.isoformat(),
            "submissions": {qid: [[name, p] for name, p in f.outcomes] for qid, f in submissions.items()},
            "open": sorted(qid for qid, q in self.questions.items() if q.open_on(day)),
            "resolved": len(resolved),
            "forecasts_held": len(self._held),
            "accuracy": round(sum(correct.values()) / count, 6),
            "brier_skill": round(sum(scores.values()) / count, 6),
            "brier": round(1.0 - sum(scores.values()) / count, 6),
            "resolved_accuracy": _mean([float(correct[qid]) for qid in resolved]),
            "resolved_brier_skill": _mean([scores[qid] for qid in resolved]),
            "scores": {qid: round(score, 6) for qid, score in scores.items()},
        }

    def _time_weighted(self) -> float:
        """100 x the sum over questions of the mean daily BSS over the days each was open (paper G.2)."""
        total = 0.0
        for qid, question in self.questions.items():
            daily = [d["scores"][qid] for d in self._days if question.open_on(date.fromisoformat(d["day"]))]
            if daily:
                total += sum(daily) / len(daily)
        return round(100 * total, 4)

    def _state(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "questions": self._digest,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "completed_through": self._days[-1]["day"] if self._days else None,
            "label": self.label,
        }

    def _resume(self) -> None:
        path = self.state_dir / STATE_FILE
        if not path.is_file():
            return
        state = read_json(path)
        if state.get("format") != FORMAT or state.get("questions") != self._digest:
            raise ValueError(
                f"{self.state_dir} holds a simulation of other questions: use another --state folder"
            )
        last = state.get("completed_through")
        day = self.start
        while last is not None and day <= date.fromisoformat(last):
            record = read_json(self.state_dir / DAYS_DIR / f"{day.isoformat()}.json")
            self._held.update(
                {qid: forecast_from(outcomes) for qid, outcomes in record["submissions"].items()}
            )
            self._days.append(record)
            day += timedelta(days=1)
        self._judge_new()
        if not self.finished:
            self._world.advance(day)


def _order(question: Question) -> tuple[date, str]:
    return question.resolution, question.question_id


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 6) if values else None
