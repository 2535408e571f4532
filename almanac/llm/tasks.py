"""Running a task (:class:`almanac.llm.registry.Task`): prompt template + reply parser + repair round.

:func:`run_task` is what stages call, with a task object or a registered task's name: it renders
``prompts/<task>.md`` for each item, sends the requests through :func:`run_requests` (cache,
concurrency, retries, accounting), parses every answer strictly, asks once more with a repair message
for answers that do not parse, and returns one :class:`TaskResult` per item. A result with
``ok=False`` carries a reject reason (``llm_malformed_output`` keeps the raw text in ``raw_text``) for
:meth:`TaskResult.reject_into`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop
from almanac.llm.accounting import add_metric
from almanac.llm.cache import LLMCache
from almanac.llm.client import arun_requests, run_in_loop
from almanac.llm.config import RoleConfig
from almanac.llm.parsing import ParseError, clean, json_as_tags
from almanac.llm.prompts import load_prompt
from almanac.llm.registry import Task, TaskItem, lookup
from almanac.llm.request import LLMRequest, LLMResult

T = TypeVar("T")
Parser = Callable[[str, Mapping[str, str]], Any]

REPAIR_PROMPT = "repair"
MALFORMED = "llm_malformed_output"


@dataclass(frozen=True)
class TaskResult(Generic[T]):
    item_id: str
    ok: bool
    value: T | None
    error: str  # reject reason when not ok
    detail: str
    raw_text: str  # the (last) answer text, kept for malformed outputs
    repaired: bool  # the first answer did not parse; the repair round's did
    cached: bool
    model: str
    prompt_version: str
    prompt_hash: str

    def reject_into(self, ledger: StageLedger, source: str, item_id: str | None = None) -> None:
        """File the failure as a reject of ``item_id`` (default: the request's item, when they coincide)."""
        ledger.reject(item_id or self.item_id, self.error, self.failure().detail, source)

    def failure(self) -> Drop:
        """The failure as a step's :class:`Drop` (filed under the step's id and source of the record)."""
        detail = self.detail if not self.raw_text else f"{self.detail} | raw: {self.raw_text[:2000]}"
        return Drop(self.error, detail)


def build_requests(
    task: Task[..., Any] | str, items: Sequence[TaskItem], prompts_dir: str | Path = "prompts"
) -> list[LLMRequest]:
    name = task if isinstance(task, str) else task.name
    schema = (lookup(task) if isinstance(task, str) else task).schema
    template = load_prompt(name, prompts_dir)
    return [
        LLMRequest(
            item.item_id,
            name,
            template.render(item.variables),
            template.version,
            template.content_hash,
            dict(item.variables),
            schema,
        )
        for item in items
    ]


def run_task(
    role: RoleConfig,
    task: Task[..., Any] | str,
    items: Sequence[TaskItem],
    cache: LLMCache,
    ledger: StageLedger | None = None,
    prompts_dir: str | Path = "prompts",
) -> list[TaskResult[Any]]:
    return run_in_loop(arun_task(role, task, items, cache, ledger, prompts_dir))


async def arun_task(
    role: RoleConfig,
    task: Task[..., Any] | str,
    items: Sequence[TaskItem],
    cache: LLMCache,
    ledger: StageLedger | None = None,
    prompts_dir: str | Path = "prompts",
) -> list[TaskResult[Any]]:
    parse = (lookup(task) if isinstance(task, str) else task).parse
    requests = build_requests(task, items, prompts_dir)
    first = await arun_requests(role, requests, cache, ledger)
    outcomes: list[TaskResult[Any] | ParseError] = [
        _parse(parse, request, result, role) for request, result in zip(requests, first, strict=True)
    ]
    retry = [i for i, outcome in enumerate(outcomes) if isinstance(outcome, ParseError)]
    if retry:
        repair = load_prompt(REPAIR_PROMPT, prompts_dir)
        repairs = []
        for i in retry:
            request, error = requests[i], outcomes[i]
            follow_up = repair.render({"problem": str(error)})
            repairs.append(
                LLMRequest(
                    request.item_id,
                    request.task,
                    (*request.messages, ("assistant", first[i].text), *follow_up),
                    f"{request.prompt_version}+repair{repair.version}",
                    f"{request.prompt_hash}+{repair.content_hash}",
                    request.variables,
                    request.schema,
                )
            )
        # A failure's share is of the task's requests, not of the few that needed a repair.
        second = await arun_requests(role, repairs, cache, ledger, share_of=len(requests))
        for i, request, result in zip(retry, repairs, second, strict=True):
            outcome = _parse(parse, request, result, role, repaired=True)
            if isinstance(outcome, ParseError):
                outcome = _failed(result, MALFORMED, f"answer did not parse after a repair round: {outcome}")
            outcomes[i] = outcome
    final = [outcome for outcome in outcomes if not isinstance(outcome, ParseError)]
    if ledger is not None:
        name = role.name or role.model
        add_metric(ledger, f"{name}.repair_requests", len(retry))
        add_metric(ledger, f"{name}.repaired", sum(1 for outcome in final if outcome.repaired))
        add_metric(ledger, f"{name}.malformed", sum(1 for outcome in final if outcome.error == MALFORMED))
    return final


def _parse(
    parse: Parser, request: LLMRequest, result: LLMResult, role: RoleConfig, repaired: bool = False
) -> TaskResult[Any] | ParseError:
    if not result.ok:
        return _failed(result, result.error, result.detail)
    try:
        text = json_as_tags(result.text) if request.structured(role) else result.text
        value = parse(clean(text), request.variables)
    except ParseError as error:
        return error
    return TaskResult(
        result.item_id,
        True,
        value,
        "",
        "",
        result.text,
        repaired,
        result.cached,
        result.model,
        request.prompt_version,
        request.prompt_hash,
    )


def _failed(result: LLMResult, error: str, detail: str) -> TaskResult[Any]:
    return TaskResult(
        result.item_id,
        False,
        None,
        error,
        detail,
        result.text,
        False,
        result.cached,
        result.model,
        result.prompt_version,
        result.prompt_hash,
    )
