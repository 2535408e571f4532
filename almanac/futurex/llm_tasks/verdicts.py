"""What the two event judges share: the item (one event's question text) and the verdict parser."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from almanac.llm.parsing import choice, collapse, one_tag, optional_tag
from almanac.llm.registry import TaskItem, reply_schema, text_field


@dataclass(frozen=True)
class EventVerdict:
    flagged: bool  # harmful / subjective: the event should be dropped
    reasons: str


def event_item(event_id: str, question: str, background: str, max_chars: int = 4000) -> TaskItem:
    return TaskItem(event_id, {"question": question[:max_chars], "background": background[:max_chars]})


def verdict_parser(flag: str, keep: str) -> Callable[[str, Mapping[str, str]], EventVerdict]:
    """A parser of ``<verdict>flag|keep</verdict>`` (and optional ``<reasons>``)."""

    def parse(text: str, variables: Mapping[str, str]) -> EventVerdict:
        del variables
        verdict = choice(one_tag(text, "verdict"), (flag, keep), "<verdict>")
        return EventVerdict(verdict == flag, collapse(optional_tag(text, "reasons")))

    return parse


def verdict_schema(flag: str, keep: str) -> dict[str, Any]:
    """The reply as JSON for roles with structured outputs: reasons first, then the verdict."""
    return reply_schema(reasons=text_field(), verdict=text_field(flag, keep))


def verdict_reply(flag: str, keep: str, why: str | None) -> str:
    if why is None:
        return f"<reasons>No rule of the offline baseline applies.</reasons>\n<verdict>{keep}</verdict>"
    return f"<reasons>{why}</reasons>\n<verdict>{flag}</verdict>"
