"""The six forecasting tasks (OpenForecast 3, 4.3) cut out of complex-event timelines.

What is an item: one *candidate sample*, i.e. one (cut, task) pair. Every chosen cut of a timeline
brings six candidates (STF, LTF, AQA, MCNC, MCAC, VQA); each becomes one sample or one reject row:
``outside_split_windows`` / ``straddles_split_boundary`` / ``no_target_in_window`` (all six, see
:mod:`almanac.events.plan`), ``no_eligible_target`` (AQA / MCAC: no target event has a non-empty
argument among the configured ones), an LLM failure (``TaskResult.failure``),
``too_few_negatives`` (MCNC: fewer than three usable real events of other timelines of the split),
``too_few_same_side_options`` (MCAC "When": fewer than three wrong dates on or after the cut),
``hindsight_background`` (all six: too little background left without hindsight wording, see
:mod:`almanac.events.plan`) and ``no_mcnc_sample`` (VQA of a rejected MCNC). Each MCNC sample gives
exactly one VQA sample, its gold event (Yes) or one of its negatives (No); Yes and No alternate over a
seeded order of the MCNC samples, and the gold of MCNC and MCAC takes positions A-D in turn the same way
(README "How options are built"). Timelines without an eligible cut day contribute no candidates; they
are counted in ``timelines_without_cut``.

LLM calls: one ``argument_question`` call per cut feeds both AQA and MCAC (same question, answer and
negatives). MCNC makes no call: its negatives are real events of other timelines
(:mod:`almanac.events.distractors`), and VQA is drawn from MCNC.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa

from almanac.check.shortcuts import content_words
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import Drop, Step, apply_step
from almanac.events.cuts import (
    Event,
    EventTasksConfig,
    date_span,
    event_arguments,
    seeded,
    timeline_event,
)
from almanac.events.distractors import (
    balanced_positions,
    choose_negatives,
    donor_pool,
    hardest_negative,
    placed_options,
    same_side_times,
)
from almanac.events.llm_tasks.argument_question import ARGUMENT_QUESTION, argument_question_item
from almanac.events.llm_tasks.items import target_argument_value
from almanac.events.llm_tasks.replies import ArgumentQuestion
from almanac.events.options import shuffled_options, vqa_candidate
from almanac.events.plan import CutSample, plan_cuts
from almanac.events.samples import OPTION_LABELS, SAMPLE_SCHEMAS, SPLITS, TASKS, sample_id
from almanac.events.vqa_draw import VqaPair, background_likeness, paired_yes
from almanac.llm.cache import LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.registry import Task, TaskItem
from almanac.llm.tasks import TaskResult, run_task

STAGE = "event_tasks"
N_NEGATIVES = 3
ARGUMENT_TASKS = ("aqa", "mcac")  # one argument_question call per cut feeds both
Runner = Callable[[Task[..., Any], list[TaskItem]], list[TaskResult[Any]]]


def build_tasks(
    timelines: pa.Table, config: EventTasksConfig, role: RoleConfig, cache: LLMCache, prompts_dir: str
) -> tuple[dict[str, pa.Table], StageLedger]:
    """Samples of every task (rows sorted by sample_id) and the ledger of candidate samples."""
    ledger = StageLedger(STAGE)
    cuts = plan_cuts(timelines.to_pylist(), config, ledger)
    # Each task's step takes over its candidates from the plan (chained: they were counted in there).
    rows: dict[str, list[dict[str, Any]]] = {
        "stf": apply_step(cuts, Step(stf_row, _candidate_of("stf"), _source), ledger, chained=True),
        "ltf": apply_step(cuts, Step(ltf_row, _candidate_of("ltf"), _source), ledger, chained=True),
    }

    def run(task: Task[..., Any], items: list[TaskItem]) -> list[TaskResult[Any]]:
        return run_task(role, task, items, cache, ledger, prompts_dir) if items else []

    aqa, mcac = argument_tasks(cuts, config, run, ledger)
    rows["aqa"], rows["mcac"] = aqa, with_balanced_gold(mcac, config.seed, lambda row: row["answer"])
    mcnc = mcnc_task(cuts, timelines.to_pylist(), config, ledger)
    rows["mcnc"] = with_balanced_gold(mcnc, config.seed, lambda row: str(row["target"]["text"]))
    rows["vqa"] = vqa_task(cuts, rows["mcnc"], config, ledger)

    tables = {}
    for task in TASKS:
        task_rows = sorted(rows[task], key=lambda row: row["sample_id"])
        tables[task] = table_from_rows(task_rows, SAMPLE_SCHEMAS[task])
        ledger.extra.setdefault("samples", {})[task] = {
            split: sum(1 for row in task_rows if row["split"] == split) for split in SPLITS
        }
    ledger.extra["targets_trimmed"] = sum(row["targets_trimmed"] for row in rows["ltf"])
    ledger.extra["samples_with_trimmed_targets"] = sum(1 for row in rows["ltf"] if row["targets_trimmed"])
    return tables, ledger


def _candidate_of(task: str) -> Callable[[CutSample], str]:
    return lambda cut: cut.candidate_id(task)


def _source(cut: CutSample) -> str:
    return cut.source


def stf_row(cut: CutSample) -> dict[str, Any]:
    on_day = [event for event in cut.targets if event["day"] == cut.cut.day]
    return {
        **cut.common("stf", sample_id("stf", cut.ce_id, cut.cut.day)),
        "targets": on_day,
        "targets_trimmed": 0,
    }


def ltf_row(cut: CutSample) -> dict[str, Any]:
    sample = sample_id("ltf", cut.ce_id, cut.cut.day)
    return {**cut.common("ltf", sample), "targets": cut.targets, "targets_trimmed": cut.trimmed}


def _subsequent(cut: CutSample, target: Event) -> list[Any]:
    return [timeline_event(event) for event in cut.targets if event["event_id"] != target["event_id"]]


def _has(event: Event, argument: str) -> bool:
    """Whether a question about ``argument`` has an answer (a "When" falls back on the event's date)."""
    return bool(target_argument_value(timeline_event(event), event_arguments(event), argument).strip())


def argument_tasks(
    cuts: Sequence[CutSample], config: EventTasksConfig, run: Runner, ledger: StageLedger
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """AQA and MCAC from one argument_question call per cut (same target, argument and question)."""
    items, asked = [], []
    outcomes: dict[int, tuple[dict[str, Any] | Drop, dict[str, Any] | Drop]] = {}
    for index, cut in enumerate(cuts):
        candidates = [event for event in cut.targets if any(_has(event, name) for name in config.arguments)]
        if not candidates:
            no_target = Drop("no_eligible_target", f"no target event has any of {list(config.arguments)}")
            outcomes[index] = (no_target, no_target)
            continue
        rng = seeded(config.seed, cut.ce_id, cut.cut.day.isoformat(), "aqa")
        target = rng.choice(candidates)
        # No "When" about a target on the cut day: every wrong date on its side of the cut would be later.
        span = date_span(target)
        on_cut = span is not None and span[0] == cut.cut.day
        asked_about = [name for name in config.arguments if _has(target, name)]
        argument = rng.choice(
            [name for name in asked_about if not (on_cut and name == "time")] or asked_about
        )
        aqa_id = sample_id("aqa", cut.ce_id, cut.cut.day, target["event_id"], argument)
        background = [timeline_event(event) for event in cut.background]
        items.append(
            argument_question_item(
                aqa_id,
                background,
                timeline_event(target),
                event_arguments(target),
                argument,
                _subsequent(cut, target),
            )
        )
        asked.append((index, target, argument, aqa_id))
    for (index, target, argument, aqa_id), result in zip(asked, run(ARGUMENT_QUESTION, items), strict=True):
        cut = cuts[index]
        mcac_id = sample_id("mcac", cut.ce_id, cut.cut.day, target["event_id"], argument)
        if not result.ok:
            failed = result.failure()
            outcomes[index] = (
                dataclasses.replace(failed, item_id=aqa_id),
                dataclasses.replace(failed, item_id=mcac_id),
            )
            continue
        value = result.value
        assert isinstance(value, ArgumentQuestion)
        llm = {"model": result.model, "prompt_version": result.prompt_version}
        shared = {"target": target, "argument": argument, "question": value.question}
        aqa = aqa_row(cut, aqa_id, target, argument, value, result)
        negatives = list(value.negatives)
        if argument == "time":
            when = seeded(config.seed, mcac_id, "dates")
            negatives = same_side_times(value.answer, negatives, cut.cut.day, N_NEGATIVES, when)
            if len(negatives) < N_NEGATIVES:
                why = f"{len(negatives)} wrong dates on or after the cut {cut.cut.day}"
                outcomes[index] = (aqa, Drop("too_few_same_side_options", why, item_id=mcac_id))
                continue
        options = shuffled_options(value.answer, negatives[:N_NEGATIVES], config.seed, mcac_id)
        mcac = {**cut.common("mcac", mcac_id), **shared, **options, "answer": value.answer, **llm}
        outcomes[index] = (aqa, mcac)

    def decide(candidate: tuple[int, int]) -> dict[str, Any] | Drop:
        index, which = candidate
        return outcomes[index][which]

    step = Step(decide, lambda c: cuts[c[0]].candidate_id(ARGUMENT_TASKS[c[1]]), lambda c: cuts[c[0]].source)
    argument_candidates = [(index, which) for index in range(len(cuts)) for which in (0, 1)]
    kept = apply_step(argument_candidates, step, ledger, chained=True)
    return [row for row in kept if row["task"] == "aqa"], [row for row in kept if row["task"] == "mcac"]


def aqa_row(
    cut: CutSample,
    aqa_id: str,
    target: Event,
    argument: str,
    value: ArgumentQuestion,
    result: TaskResult[Any],
) -> dict[str, Any]:
    return {
        **cut.common("aqa", aqa_id),
        "target": target,
        "argument": argument,
        "question": value.question,
        "answer": value.answer,
        "model": result.model,
        "prompt_version": result.prompt_version,
    }


def mcnc_task(
    cuts: Sequence[CutSample],
    timelines: Sequence[dict[str, Any]],
    config: EventTasksConfig,
    ledger: StageLedger,
) -> list[dict[str, Any]]:
    """Gold target + three real events of other timelines of the split (:mod:`almanac.events.distractors`)."""
    pool = donor_pool(timelines, {cut.ce_id: cut.split for cut in cuts}, config.split)
    # negatives_generated: candidates that reached the true-event test; negatives_discarded: refused there.
    tally = {"negatives_generated": 0, "negatives_discarded": 0}

    def decide(cut: CutSample) -> dict[str, Any] | Drop:
        target = seeded(config.seed, cut.ce_id, cut.cut.day.isoformat(), "mcnc").choice(cut.targets)
        mcnc_id = sample_id("mcnc", cut.ce_id, cut.cut.day, target["event_id"])
        donors = pool.get(cut.split, [])
        negatives, refused = choose_negatives(
            cut.timeline,
            cut.cut.day,
            target,
            donors,
            config.negatives,
            config.seed,
            mcnc_id,
            N_NEGATIVES,
            cut.background,
        )
        tally["negatives_generated"] += len(negatives) + refused
        tally["negatives_discarded"] += refused
        if len(negatives) < N_NEGATIVES:
            others = len({donor.ce_id for donor in donors} - {cut.ce_id})
            detail = f"{len(negatives)} usable events from {others} other {cut.split} timelines"
            return Drop("too_few_negatives", detail, item_id=mcnc_id)
        return {
            **cut.common("mcnc", mcnc_id),
            "target": target,
            **shuffled_options(str(target["text"]), negatives, config.seed, mcnc_id),
            "negatives_discarded": refused,
            "model": "",  # no model wrote the options: the gold and the negatives are timeline events
            "prompt_version": "",
        }

    rows = apply_step(cuts, Step(decide, _candidate_of("mcnc"), _source), ledger, chained=True)
    ledger.extra.update(tally)
    return rows


def with_balanced_gold(
    rows: Sequence[dict[str, Any]], seed: int, gold_of: Callable[[dict[str, Any]], str]
) -> list[dict[str, Any]]:
    """The rows with their gold moved to balanced positions (each of A-D equally often over the task)."""
    positions = balanced_positions([row["sample_id"] for row in rows], len(OPTION_LABELS), seed)
    placed = []
    for row in rows:
        gold = gold_of(row)
        negatives = [option for i, option in enumerate(row["options"]) if i != row["answer_index"]]
        position = positions[row["sample_id"]]
        options = placed_options(gold, negatives, position, seed, row["sample_id"])
        placed.append(
            {**row, "options": options, "answer_index": position, "answer_label": OPTION_LABELS[position]}
        )
    return placed


def vqa_task(
    cuts: Sequence[CutSample],
    mcnc_rows: Sequence[dict[str, Any]],
    config: EventTasksConfig,
    ledger: StageLedger,
) -> list[dict[str, Any]]:
    """One VQA sample per MCNC sample: its gold option (Yes) or one of its negatives (No)."""
    by_cut = {(row["ce_id"], row["cut_date"]): row for row in mcnc_rows}
    no_candidates = {row["sample_id"]: _no_candidate(row) for row in mcnc_rows}
    yes = paired_yes([_vqa_pair(row, no_candidates[row["sample_id"]]) for row in mcnc_rows], config.seed)

    def decide(cut: CutSample) -> dict[str, Any] | Drop:
        mcnc = by_cut.get((cut.ce_id, cut.cut.day))
        if mcnc is None:
            return Drop("no_mcnc_sample", "the MCNC sample of this cut was rejected")
        gold = mcnc["options"][mcnc["answer_index"]]
        negatives = [no_candidates[mcnc["sample_id"]]]
        label, candidate = vqa_candidate(
            gold, negatives, config.seed, mcnc["sample_id"], yes[mcnc["sample_id"]]
        )
        return {
            **{key: mcnc[key] for key in SAMPLE_SCHEMAS["vqa"].names if key in mcnc},
            "sample_id": sample_id("vqa", mcnc["ce_id"], mcnc["cut_date"], candidate),
            "task": "vqa",
            "candidate": candidate,
            "label": label,
            "mcnc_sample_id": mcnc["sample_id"],
        }

    rows = apply_step(cuts, Step(decide, _candidate_of("vqa"), _source), ledger, chained=True)
    yes_count = sum(1 for row in rows if row["label"] == "Yes")
    ledger.extra["vqa_labels"] = {"Yes": yes_count, "No": len(rows) - yes_count}
    ledger.extra["vqa_yes_share"] = round(yes_count / len(rows), 4) if rows else None
    return rows


def _no_candidate(mcnc: dict[str, Any]) -> str:
    gold = mcnc["options"][mcnc["answer_index"]]
    negatives = [option for i, option in enumerate(mcnc["options"]) if i != mcnc["answer_index"]]
    background = [str(event["text"]) for event in mcnc["background"]]
    return hardest_negative(gold, negatives, mcnc["ce_title"], background)


def _vqa_pair(mcnc: dict[str, Any], no_candidate: str) -> VqaPair:
    gold = mcnc["options"][mcnc["answer_index"]]
    background = [str(event["text"]) for event in mcnc["background"]]
    return VqaPair(
        mcnc["sample_id"],
        bool(content_words(gold) & content_words(mcnc["ce_title"])),
        background_likeness(gold, background),
        background_likeness(no_candidate, background),
        len(gold),
        len(no_candidate),
    )
