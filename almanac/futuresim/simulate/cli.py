"""``almanac simulate``: replay the published FutureSim question set with an agent and score it per day."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from almanac.core.layout import futuresim_index_dir, futuresim_questions_dir
from almanac.core.params import load_params, parse_section
from almanac.core.rejects import StageLedger
from almanac.futuresim.simulate.agents import Agent, NoForecastAgent, SearchOnceAgent
from almanac.futuresim.simulate.environment import Simulation, question_from_row
from almanac.futuresim.simulate.judge import RoleJudge
from almanac.futuresim.simulate.protocol import serve
from almanac.futuresim.simulate.world import World

SPLITS = ("train", "validation", "test")
AGENTS = ("baseline-search", "constant", "command")


@dataclass(frozen=True)
class SimulateConfig:
    """params ``futuresim.simulate``."""

    forecaster_role: str = "editor"  # the baseline-search agent's forecaster
    judge_role: str = "validator"  # answer matching
    k: int = 5  # chunks per search of the baseline agent
    days_before: int = 1  # the baseline searches this many days before a question resolves
    max_chunk_chars: int = 2000


def main(argv: Sequence[str] | None = None, prog: str = "almanac simulate") -> int:
    args = _parser(prog).parse_args(argv)
    params = load_params(args.params)
    config = parse_section(SimulateConfig, params.get("futuresim") or {}, "simulate")
    from almanac.llm.cache import LLMCache
    from almanac.llm.config import parse_llm_config

    llm = parse_llm_config(params)
    rows = _question_rows(Path(args.questions), args.split)
    if not rows:
        print(
            f"simulate: no questions in {args.questions} ({args.split}): run `dvc repro` first",
            file=sys.stderr,
        )
        return 1
    state = Path(args.state or f"out/simulation/{args.agent}")
    ledger = StageLedger("simulate")
    with LLMCache(llm.cache_path) as cache:
        judge = RoleJudge(llm, config.judge_role, cache, ledger)
        index = Path(args.index)
        world = World(Path(args.articles), index if (index / "manifest.json").is_file() else None)
        simulation = Simulation(
            [question_from_row(row) for row in rows], world, judge, state, label=args.agent
        )
        if simulation.finished:
            print(f"simulate: {state} is finished already: {_summary_line(simulation.summary())}")
            return 0
        if args.agent == "command":
            if not args.command:
                print("simulate: --agent command needs --command 'program args'", file=sys.stderr)
                return 2
            _drive_process(simulation, args.command)
        else:
            agent: Agent = (
                NoForecastAgent()
                if args.agent == "constant"
                else SearchOnceAgent(
                    llm,
                    config.forecaster_role,
                    cache,
                    ledger,
                    config.k,
                    config.days_before,
                    config.max_chunk_chars,
                )
            )
            _drive(simulation, agent, args.days)
    if judge.failures:
        print(
            f"simulate: {judge.failures} outcome(s) the judge could not rule on were scored as no match",
            file=sys.stderr,
        )
    if not simulation.finished:
        simulation.draw()  # paused: the figure of the days so far (the last day drew it otherwise)
    done = "finished" if simulation.finished else f"paused at {simulation.today} (rerun to continue)"
    print(f"simulate: {args.agent} {done}: {_summary_line(simulation.summary())}; outputs in {state}/")
    return 0


def _drive(simulation: Simulation, agent: Agent, days: int | None) -> None:
    count = 0
    while not simulation.finished and (days is None or count < days):
        agent.act(simulation)
        day = simulation.today
        simulation.next_day()
        count += 1
        last = simulation.summary()
        print(
            f"simulate: {day} done: accuracy {last['accuracy']}, Brier skill {last['brier_skill']}",
            file=sys.stderr,
        )


def _drive_process(simulation: Simulation, command: str) -> None:
    with subprocess.Popen(
        shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as agent:
        assert agent.stdin is not None and agent.stdout is not None
        try:
            serve(simulation, agent.stdout, agent.stdin)
        finally:
            agent.stdin.close()
            try:
                agent.wait(timeout=30)
            except subprocess.TimeoutExpired:
                agent.kill()


def _question_rows(folder: Path, split: str) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    names = SPLITS if split == "all" else (split,)
    rows: list[dict[str, Any]] = []
    for name in names:
        path = folder / f"{name}.parquet"
        if path.is_file():
            rows.extend(pq.read_table(path).to_pylist())
    return rows


def _summary_line(summary: dict[str, Any]) -> str:
    return (
        f"{summary['questions']} questions over {summary['days']} days, accuracy {summary['accuracy']}, "
        f"Brier {summary['brier']}, Brier skill {summary['brier_skill']}, "
        f"time-weighted {summary['time_weighted_bss']}"
    )


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument("--agent", choices=AGENTS, default="baseline-search")
    parser.add_argument("--command", help="with --agent command: the agent program, speaking JSON lines")
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="all")
    parser.add_argument("--questions", default=str(futuresim_questions_dir()))
    parser.add_argument("--articles", default="data/futuresim/corpus/articles")
    parser.add_argument("--index", default=str(futuresim_index_dir()))
    parser.add_argument(
        "--state", help="the simulation's folder (default out/simulation/<agent>); reruns resume"
    )
    parser.add_argument("--days", type=int, help="stop after this many days (resume later)")
    return parser
