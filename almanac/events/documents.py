"""Plain-text forms of complex-event documents, shared by the stages that build and read them."""

from __future__ import annotations

import re
from collections.abc import Sequence

from almanac.wiki.sections import LEAD_LEVEL, Section

ELLIPSIS = " ..."
_LAST_SPACE = re.compile(r"\s\S*\Z")


def sections_text(sections: Sequence[Section]) -> str:
    """Sections as plain text: each headed section under its title line, blank lines between them."""
    blocks = []
    for section in sections:
        heading = section.title if section.level != LEAD_LEVEL else ""
        block = "\n".join(part for part in (heading, section.text) if part)
        if block:
            blocks.append(block)
    return "\n\n".join(blocks)


def truncate_words(text: str, max_chars: int) -> str:
    """``text`` cut to at most ``max_chars`` characters at a word boundary, marked with " ..."."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    room = max_chars - len(ELLIPSIS)
    if room <= 0:
        return text[:max_chars]
    boundary = _LAST_SPACE.search(text[: room + 1])  # text[room] being a space is a boundary too
    head = text[: boundary.start()].rstrip() if boundary else ""
    return (head or text[:room]) + ELLIPSIS  # a single word longer than the room is cut inside
