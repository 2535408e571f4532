"""Split wikitext into titled plain-text sections, and recognise the sections that tell an event's story.

Plain text keeps what a reader sees in the running prose: link labels, bold and italic words, list
items (one per line, without their bullets). Templates (infoboxes, citations, navboxes), references,
tables, galleries, files, categories, interlanguage links, comments and URLs are removed.

mwparserfromhell never rejects input: markup it cannot close (an unclosed ``{{`` or ``{|``) is kept as
literal text. Such leftovers in the output mean the page's structure was not understood, so they raise
:class:`WikitextError`, which callers turn into a ``broken_wikitext`` reject rather than keep junk.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import mwparserfromhell
from mwparserfromhell.definitions import is_visible
from mwparserfromhell.nodes import Argument, Comment, ExternalLink, Heading, Node, Tag, Template, Wikilink
from mwparserfromhell.wikicode import Wikicode

LEAD_LEVEL = 0

EVENT_SECTION_TITLES: tuple[str, ...] = (
    "Background",
    "Development",
    "Aftermath",
    "Reactions",
    "Timeline",
    "Chronology",
    "Events",
    "Course",
    "Prelude",
    "Causes",
    "Escalation",
    "Investigation",
    "Response",
    "Legacy",
    "Consequences",
    "Outcome",
    "Impact",
    "Effects",
    "Casualties",
    "Result",
    "Resolution",
    "Negotiations",
    "Trial",
    "Recovery",
)

# Tags whose content is not running prose.
_DROPPED_TAGS = frozenset(
    {"ref", "references", "table", "gallery", "imagemap", "math", "timeline", "score", "graph", "chem"}
)
_HIDDEN_LINK_PREFIXES = ("file:", "image:", "media:", "category:")
_INTERLANGUAGE = re.compile(r"^:?[a-z]{2,3}(?:-[a-z0-9]+)*:(?!\s)")
_REDIRECT = re.compile(r"^\s*#\s*redirect\s*:?\s*\[\[", re.IGNORECASE)
# Markup that survives only when the parser could not match it with its closing half.
_LEFTOVER_ANYWHERE = ("{{", "}}", "[[", "]]", "<ref")
_LEFTOVER_LINE_START = ("{|", "|}", "|-")
_WORD_SUFFIX = re.compile(r"(?<=\w{3})s$")
_NON_WORD = re.compile(r"[^\w]+")
_HAS_WORD = re.compile(r"[^\W_]")


class WikitextError(ValueError):
    """The wikitext could not be turned into trustworthy plain text (reject as ``broken_wikitext``)."""


@dataclass(frozen=True)
class Section:
    title: str  # "" for the lead
    level: int  # 0 for the lead, 2 for "== x ==", 3 for "=== x ===", ...
    text: str  # plain text, one paragraph or list item per line


def split_sections(wikitext: str) -> list[Section]:
    """The lead (always first, possibly empty) and every headed section in document order."""
    try:
        code = mwparserfromhell.parse(wikitext)
    except Exception as error:  # the tokenizer has raised assorted types on pathological input
        raise WikitextError(f"parser failed: {type(error).__name__}: {error}") from error
    if str(code) != wikitext:
        raise WikitextError("parser output does not reproduce the input")
    sections: list[Section] = []
    title, level = "", LEAD_LEVEL
    body: list[Node] = []
    for node in code.nodes:
        if isinstance(node, Heading):
            sections.append(_finish(title, level, body))
            title, level, body = _plain_inline(node.title), int(node.level), []
        else:
            body.append(node)
    sections.append(_finish(title, level, body))
    return sections


def word_count(sections: Iterable[Section]) -> int:
    """Words of section text (titles excluded): whitespace-separated tokens with a letter or digit."""
    return sum(1 for section in sections for token in section.text.split() if _HAS_WORD.search(token))


def is_redirect_text(text: str) -> bool:
    """True for wikitext of an (English-syntax) redirect: ``#REDIRECT [[Target]]``."""
    return bool(_REDIRECT.match(text))


def is_event_section(title: str, allowed: Sequence[str] = EVENT_SECTION_TITLES) -> bool:
    """True when an allowed title occurs as whole words in ``title``, ignoring case and plural -s.

    So "Background and origins", "Timeline of events" and "International reactions" all match
    "Background", "Timeline" and "Reactions".
    """
    words = _title_words(title)
    if not words:
        return False
    for candidate in allowed:
        wanted = _title_words(candidate)
        span = len(wanted)
        if span and any(words[i : i + span] == wanted for i in range(len(words) - span + 1)):
            return True
    return False


def select_event_sections(
    sections: Sequence[Section], allowed: Sequence[str] = EVENT_SECTION_TITLES, include_lead: bool = True
) -> list[Section]:
    """The lead plus each event section with all of its subsections (e.g. dated ones under Timeline)."""
    selected: list[Section] = []
    keep_below: int | None = None  # inside a kept section: keep headings deeper than this level
    for section in sections:
        if section.level == LEAD_LEVEL:
            if include_lead:
                selected.append(section)
            continue
        if keep_below is not None and section.level > keep_below:
            selected.append(section)
            continue
        keep_below = None
        if is_event_section(section.title, allowed):
            selected.append(section)
            keep_below = section.level
    return selected


def _title_words(title: str) -> list[str]:
    return [_WORD_SUFFIX.sub("", word) for word in _NON_WORD.sub(" ", title.lower()).split()]


def _finish(title: str, level: int, nodes: list[Node]) -> Section:
    text = _normalise(_render(Wikicode(nodes)))
    for line in text.splitlines():
        if any(mark in line for mark in _LEFTOVER_ANYWHERE) or line.startswith(_LEFTOVER_LINE_START):
            where = f"section {title!r}" if title else "the lead"
            raise WikitextError(f"unbalanced markup left in {where}: {line[:80]!r}")
    return Section(title=title, level=level, text=text)


def _plain_inline(code: Wikicode) -> str:
    return " ".join(_render(code).split())


def _render(code: Wikicode) -> str:
    parts: list[str] = []
    for node in code.nodes:
        if isinstance(node, Template | Argument | Comment):
            continue
        if isinstance(node, Tag):
            parts.append(_render_tag(node))
        elif isinstance(node, Wikilink):
            parts.append(_render_link(node))
        elif isinstance(node, ExternalLink):
            parts.append(_render(node.title) if node.title is not None and node.brackets else "")
        elif isinstance(node, Heading):  # a heading nested in a tag: keep its words as a line
            parts.append(f"\n{_plain_inline(node.title)}\n")
        else:
            stripped = node.__strip__(normalize=True, collapse=True)
            parts.append(str(stripped) if stripped is not None else "")
    return "".join(parts)


def _render_tag(tag: Tag) -> str:
    name = str(tag.tag).strip().lower()
    if name in _DROPPED_TAGS or not is_visible(name):
        return ""
    if name == "br":
        return "\n"
    if tag.self_closing or tag.contents is None:
        return ""  # includes list bullets ("*", "#") and definition markers
    return _render(tag.contents)


def _render_link(link: Wikilink) -> str:
    target = str(link.title).strip()
    lowered = target.lower()
    if lowered.startswith(_HIDDEN_LINK_PREFIXES):
        return ""  # an image or a category assignment; "[[:Category:X]]" (a visible link) is kept
    if link.text is not None:
        return _render(link.text)
    if _INTERLANGUAGE.match(target):
        return ""
    return _render(link.title).lstrip(":")


def _normalise(text: str) -> str:
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)
