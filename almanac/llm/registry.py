"""What an LLM task is, and the table the client finds tasks in by name.

A :class:`Task` bundles everything one prompt needs: its name (the template is ``prompts/<name>.md``,
and the name is the ``task`` field of every request and cache key), the builder of its items from
domain records, the strict parser of a reply, and the offline baseline's answer. Tasks live with their
domain (``almanac.foresight.llm_tasks``, ``almanac.events.llm_tasks``) and register themselves when
their module is imported, so this layer never imports a domain package.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class TaskItem:
    item_id: str
    variables: Mapping[str, str]


@dataclass(frozen=True)
class Task(Generic[P, T]):
    name: str  # prompts/<name>.md; also the request's task, so renaming a task changes its cache keys
    item: Callable[P, TaskItem]  # domain record(s) -> the template's variables
    parse: Callable[[str, Mapping[str, str]], T]  # reply text and the item's variables -> value or ParseError
    offline: Callable[[Mapping[str, str], str], str]  # the baseline's reply text for (variables, spaCy model)
    # JSON schema of the reply for roles with structured_outputs: an object whose properties are the
    # reply's tags (nested objects for nested tags); its JSON reply is read back as those tags, so the
    # same parser reads both. None: the task is always asked for tagged text.
    schema: Mapping[str, Any] | None = None

    @property
    def prompt_file(self) -> str:
        return f"{self.name}.md"


def reply_schema(**fields: Mapping[str, Any]) -> dict[str, Any]:
    """A task's reply schema: an object with every field required and no others (strict mode wants both);
    fields in the order the model should write them (reasons before the verdict)."""
    return {"type": "object", "properties": fields, "required": list(fields), "additionalProperties": False}


def text_field(*allowed: str) -> dict[str, Any]:
    """A string field, limited to ``allowed`` when given."""
    return {"type": "string", "enum": list(allowed)} if allowed else {"type": "string"}


_TASKS: dict[str, Task[..., Any]] = {}


def register(task: Task[P, T]) -> Task[P, T]:
    """Add ``task`` to the table and return it (``QGEN = register(Task(...))``); one task per name."""
    known = _TASKS.get(task.name)
    if known is not None and known != task:
        raise ValueError(f"two LLM tasks are named {task.name!r}: {known} and {task}")
    _TASKS[task.name] = task
    return task


def lookup(name: str) -> Task[..., Any]:
    if name not in _TASKS:
        raise KeyError(
            f"no LLM task {name!r} is registered (known: {sorted(_TASKS)}); "
            "import the domain module that defines it (e.g. almanac.foresight.llm_tasks)"
        )
    return _TASKS[name]


def registered() -> dict[str, Task[..., Any]]:
    """The table as it stands: the tasks of every domain module imported so far, by name."""
    return dict(_TASKS)
