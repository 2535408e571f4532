"""``futurex_filter``: FutureX's event filtering (its appendix C), five keep-or-reject steps in order.

1. ``harmful``: each judge role (``futurex.filter.judge_roles``) says harmful or acceptable; the event is
   dropped when the vote rule (``vote``: any, majority, all) says so, with every role's reason.
2. ``subjective``: the same vote over subjective / objective.
3. ``yes_no``: yes/no events (answered yes/no, or asked in yes/no form: :mod:`almanac.futurex.question_forms`)
   are down-sampled to ``yes_no_keep_rate``. The draw is a content hash of (seed, event id), not a random
   stream, so an event's fate does not depend on the others or their order.
4. ``template_cap``: at most ``max_per_template`` events (FutureX: one) per (site, day, question
   template), so a site's templated questions cannot crowd out the rest; the kept ones are the lowest by
   the same seeded hash.
5. ``source_day_cap``: at most ``max_per_source_day`` events per (outlet, day); 0 (the default) = off, as
   FutureX has no such cap.

Each step has its own count (``steps`` in the metrics); the rejects name the step's reason.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.futurex.config import FilterConfig
from almanac.futurex.draws import seeded_fraction
from almanac.futurex.llm_tasks.harmful import HARMFUL
from almanac.futurex.llm_tasks.subjective import SUBJECTIVE
from almanac.futurex.llm_tasks.verdicts import EventVerdict, event_item
from almanac.futurex.question_forms import is_binary_question, question_template
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.registry import Task
from almanac.llm.tasks import TaskResult, run_task

FILTER_STAGE: Final = "futurex_filter"
STEP_NAMES: Final = ("harmful", "subjective", "yes_no", "template_cap", "source_day_cap")
YES_NO_ANSWERS: Final = frozenset({"yes", "no", "true", "false"})

Event = dict[str, Any]


def flagged_by_vote(flags: int, roles: int, vote: str) -> bool:
    if vote == "any":
        return flags >= 1
    if vote == "majority":
        return flags * 2 > roles
    return flags == roles


def is_yes_no(event: Mapping[str, Any]) -> bool:
    answers = [str(answer).strip().lower() for answer in event["answers"]]
    answered_yes_no = len(answers) == 1 and answers[0] in YES_NO_ANSWERS
    return answered_yes_no or is_binary_question(str(event.get("question") or ""))


def judge_step(
    name: str,
    task: Task[..., EventVerdict],
    events: Sequence[Event],
    config: FilterConfig,
    llm: LLMConfig,
    cache: LLMCache,
    ledger: StageLedger,
) -> Callable[[Event], Event | Drop]:
    """The decision of a judge step: every role judges every event first, then the vote decides."""
    items = [
        event_item(event["event_id"], event["question"], event["background"], config.max_text_chars)
        for event in events
    ]
    verdicts: dict[str, list[tuple[str, TaskResult[Any]]]] = defaultdict(list)
    for role in config.judge_roles:
        for result in run_task(llm.role(role), task, items, cache, ledger, llm.prompts_dir):
            verdicts[result.item_id].append((role, result))

    def decide(event: Event) -> Event | Drop:
        results = verdicts[event["event_id"]]
        for _role, result in results:
            if not result.ok:
                return result.failure()
        verdicts_of = [(role, result.value) for role, result in results]
        flags = [
            (role, verdict)
            for role, verdict in verdicts_of
            if isinstance(verdict, EventVerdict) and verdict.flagged
        ]
        if not flagged_by_vote(len(flags), len(results), config.vote):
            return event
        detail = "; ".join(f"{role}: {verdict.reasons}" for role, verdict in flags)
        return Drop(name, f"{len(flags)} of {len(results)} roles ({config.vote}): {detail}"[:2000])

    return decide


def yes_no_step(config: FilterConfig, seed: int) -> Callable[[Event], Event | Drop]:
    def decide(event: Event) -> Event | Drop:
        if not is_yes_no(event) or seeded_fraction(seed, event["event_id"]) < config.yes_no_keep_rate:
            return event
        return Drop("yes_no_downsampled", f"yes/no event beyond the keep rate {config.yes_no_keep_rate}")

    return decide


def cap_step(
    events: Sequence[Event], cap: int, seed: int, by_template: bool
) -> Callable[[Event], Event | Drop]:
    """Keep ``cap`` events (0 = all) per (outlet, day), or per (outlet, day, template) if ``by_template``."""
    reason = "template_cap" if by_template else "source_day_cap"

    def key(event: Event) -> tuple[Any, ...]:
        where = (event["news_source"], event["source_day"])
        return (*where, question_template(str(event["question"]))) if by_template else where

    groups: dict[tuple[Any, ...], list[Event]] = defaultdict(list)
    for event in events:
        groups[key(event)].append(event)
    rank: dict[str, tuple[int, str]] = {}
    for group in groups.values():
        ordered = sorted(
            group, key=lambda event: (seeded_fraction(seed, event["event_id"]), event["event_id"])
        )
        for index, event in enumerate(ordered):
            rank[event["event_id"]] = (index, ordered[0]["event_id"])

    def decide(event: Event) -> Event | Drop:
        index, first = rank[event["event_id"]]
        if not cap or index < cap:
            return event
        where = f"{event['news_source']} on {event['source_day']}"
        what = (
            f"over {cap} event(s) of the template {key(event)[-1]!r}" if by_template else f"over {cap} events"
        )
        return Drop(reason, f"{where}: {what}", related_id=first)

    return decide


def filter_events(
    events: Sequence[Event], config: FilterConfig, seed: int, llm: LLMConfig, cache: LLMCache
) -> tuple[list[Event], StageLedger]:
    """The five steps in order, each counted on its own; the stage ledger holds all their rejects."""
    ledger = StageLedger(FILTER_STAGE, items_in=len(events))
    steps: list[dict[str, Any]] = []
    current = list(events)
    for name in STEP_NAMES:
        part = StageLedger(FILTER_STAGE)
        if name == "harmful":
            decide = judge_step(name, HARMFUL, current, config, llm, cache, part)
        elif name == "subjective":
            decide = judge_step(name, SUBJECTIVE, current, config, llm, cache, part)
        elif name == "yes_no":
            decide = yes_no_step(config, seed)
        elif name == "template_cap":
            decide = cap_step(current, config.max_per_template, seed, by_template=True)
        else:
            decide = cap_step(current, config.max_per_source_day, seed, by_template=False)
        current = apply_step(current, Step(decide, _event_id, _source), part, desc=f"{FILTER_STAGE} {name}")
        steps.append({"step": name, "in": part.items_in, "out": part.items_out, "rejected": part.rejected})
        ledger.rejects.extend(part.rejects)
        for key, value in part.extra.items():  # LLM accounting per role
            ledger.extra[key] = value if key not in ledger.extra else _add(ledger.extra[key], value)
        for label, seconds in part.timings.items():
            ledger.add_time(label, seconds)
        for label, amount in part.run_counts.items():
            ledger.add_run_count(label, amount)
    ledger.items_out = len(current)
    ledger.extra["steps"] = steps
    ledger.extra["judge_roles"] = list(config.judge_roles)
    # Which backend and model made the verdicts (offline: the rule lists, not a model).
    ledger.extra["judges"] = {
        role: f"{llm.role(role).backend}:{llm.role(role).model}" for role in config.judge_roles
    }
    ledger.extra["vote"] = config.vote
    return current, ledger


def _add(left: Any, right: Any) -> Any:
    if isinstance(left, dict) and isinstance(right, dict):
        return {key: _add(left.get(key, 0), right.get(key, 0)) for key in sorted({*left, *right})}
    return left + right


def _event_id(event: Event) -> str:
    return str(event["event_id"])


def _source(event: Event) -> str:
    return f"{event['origin']}:{event['source_id']}"
