"""Parse one Current Events Portal day page into events.

A day page lists bold category lines; under each, bullets whose depth (the count of leading ``*``)
gives the nesting. A bullet made only of a wiki link is a *story* (the article that groups events);
a bullet with prose and external links in brackets is an *event*. Bullets are read line by line
because the nesting lives in the line prefixes, which a wikitext parser does not model; each
event's text is then cleaned with mwparserfromhell.
"""

from __future__ import annotations

import re
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import date

import mwparserfromhell
from mwparserfromhell.nodes import ExternalLink, Tag, Template, Wikilink
from mwparserfromhell.wikicode import Wikicode

from almanac.core.ids import canonical_url, content_id, source_domain

PORTAL_PREFIX = "Portal:Current events/"
# Spelled out rather than taken from ``calendar.month_name``, which follows the process locale.
_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
_TITLE_DATE = re.compile(r"^portal:current[ _]events/(\d{4})[ _]([a-z]+)[ _](\d{1,2})$", re.IGNORECASE)
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_BOLD_HEADING = re.compile(r"^'''(?!')(.+?)'''\s*:?\s*$")
_TERM_HEADING = re.compile(r"^;\s*(.+?)\s*$")
_BULLET = re.compile(r"^(\*+)\s*(.*)$")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?)])")
_EMPTY_PARENS = re.compile(r"\(\s*\)")
# What may sit between the links of a story bullet such as "[[A]] and [[B]]".
_LINK_GLUE = re.compile(r"[\s/,;&\u2013\u2014-]|\band\b")
_WEB_SCHEMES = ("http://", "https://", "//")
# Links into these namespaces are images or page categories, not words of the sentence.
_NON_TEXT_LINK_PREFIXES = ("file:", "image:", "category:", "media:")
_DAY_TEMPLATES = ("current events", "current events header")
# Templates whose parameters are words of the sentence (strip_code would drop them): name -> the
# positional parameters that make up the text.
_TEXT_TEMPLATES = {
    "nowrap": ("1",),
    "nobr": ("1",),
    "lang": ("2",),
    "abbr": ("1",),
    "convert": ("1", "2"),
    "cvt": ("1", "2"),
}


class PortalLayoutError(ValueError):
    """The page is not laid out as a day page we can read (no date, date mismatch, no event bullets)."""


@dataclass(frozen=True)
class WcepEvent:
    event_id: str  # content_id(date ISO, summary)
    date: date
    category: str  # "" when the event precedes any category heading
    story_path: tuple[str, ...]  # story article titles, outermost first
    summary: str
    source_urls: tuple[str, ...]  # canonical, first occurrence order, no duplicates
    source_names: tuple[str, ...]  # one display label per source URL


@dataclass(frozen=True)
class DayParse:
    """Events of one page plus bullets that looked like events but yielded no summary text."""

    events: list[WcepEvent]
    empty_bullets: list[str] = field(default_factory=list)  # "line <n of the day's content>: <raw text>"


def parse_title_date(title: str) -> date | None:
    """``Portal:Current events/2025 April 3`` -> 2025-04-03; None for any other title or an impossible day."""
    match = _TITLE_DATE.match(title.strip())
    if not match:
        return None
    month = _MONTHS.get(match.group(2).lower())
    if month is None:
        return None
    try:
        return date(int(match.group(1)), month, int(match.group(3)))
    except ValueError:
        return None


def parse_day_page(title: str, wikitext: str) -> list[WcepEvent]:
    """The page's events in page order; raises PortalLayoutError when the page cannot be read."""
    return parse_day(title, wikitext).events


def parse_day(title: str, wikitext: str) -> DayParse:
    day = parse_title_date(title)
    if day is None:
        raise PortalLayoutError(f"title {title!r} does not name a day")
    body = _day_body(mwparserfromhell.parse(wikitext), day)
    # Comments become their newlines so that reported line numbers still point into the content.
    return _parse_body(_COMMENT.sub(lambda match: "\n" * match.group(0).count("\n"), body), day)


def _day_body(page: Wikicode, day: date) -> str:
    """The ``content=`` of the day template when there is one (2018+ layout), else the whole page."""
    for template in page.filter_templates(recursive=False):
        name = str(template.name).strip().replace("_", " ").lower().removeprefix("template:")
        if name not in _DAY_TEMPLATES:
            continue
        stated = _template_date(template)
        if stated is not None and stated != day:
            raise PortalLayoutError(f"template date {stated.isoformat()} differs from title date {day}")
        if template.has("content"):
            return str(template.get("content").value)
    return str(page)


def _template_date(template: Template) -> date | None:
    parts: list[str] = []
    for named, positional in (("year", "1"), ("month", "2"), ("day", "3")):
        key = named if template.has(named) else positional if template.has(positional) else None
        if key is None:
            return None
        parts.append(str(template.get(key).value).strip())
    year, month, day = parts
    month_number = int(month) if month.isdigit() else _MONTHS.get(month.lower())
    if not (year.isdigit() and day.isdigit() and month_number):
        raise PortalLayoutError(f"template date {year}/{month}/{day} is not a date")
    try:
        return date(int(year), month_number, int(day))
    except ValueError as error:
        raise PortalLayoutError(f"template date {year}/{month}/{day}: {error}") from error


@dataclass(frozen=True)
class _Bullet:
    line: int
    depth: int
    code: Wikicode
    raw: str


def _parse_body(body: str, day: date) -> DayParse:
    # Collect bullets per heading first: a bullet is a story when the next bullet is nested under it.
    sections: list[tuple[str, list[_Bullet]]] = [("", [])]
    headings = 0
    for number, line in enumerate(body.splitlines(), start=1):
        text = line.strip()
        bullet = _BULLET.match(text)
        if bullet:
            code = mwparserfromhell.parse(bullet.group(2))
            sections[-1][1].append(_Bullet(number, len(bullet.group(1)), code, bullet.group(2)))
            continue
        heading = _BOLD_HEADING.match(text) or _TERM_HEADING.match(text)
        if heading:
            headings += 1
            sections.append((_plain(mwparserfromhell.parse(heading.group(1))), []))
        # Any other line (prose, layout templates, closing braces) carries no event.
    result = DayParse(events=[])
    for category, bullets in sections:
        _collect_events(category, bullets, day, result)
    if not result.events and not result.empty_bullets:
        raise PortalLayoutError(f"no event bullets found ({headings} category headings)")
    return result


def _collect_events(category: str, bullets: list[_Bullet], day: date, result: DayParse) -> None:
    stack: list[tuple[int, str]] = []  # (depth, story title) of the open story bullets
    for index, bullet in enumerate(bullets):
        while stack and stack[-1][0] >= bullet.depth:
            stack.pop()
        has_children = index + 1 < len(bullets) and bullets[index + 1].depth > bullet.depth
        story = _story_title(bullet.code, has_children)
        if story is not None:
            stack.append((bullet.depth, story))
            continue
        event = _event(bullet.code, day, category, tuple(title for _, title in stack))
        if event is None:
            if bullet.raw.strip():
                result.empty_bullets.append(f"line {bullet.line}: {bullet.raw.strip()[:200]}")
            continue
        result.events.append(event)


def _story_title(code: Wikicode, has_children: bool) -> str | None:
    """The grouping article of a story bullet, or None when the bullet is an event."""
    if any(_is_web_link(link) for link in code.filter_external_links(recursive=True)):
        return None
    links = [link for link in code.filter_wikilinks(recursive=False) if _is_text_link(link)]
    rest = str(code)
    for link in links:
        rest = rest.replace(str(link), "")
    for template in code.filter_templates(recursive=False):
        rest = rest.replace(str(template), "")
    link_only = bool(links) and not _LINK_GLUE.sub("", rest)
    if link_only:
        return _article_title(str(links[0].title)) or _plain(code)
    if has_children:
        return _plain(code) or None
    return None


def _event(code: Wikicode, day: date, category: str, story_path: tuple[str, ...]) -> WcepEvent | None:
    urls: list[str] = []
    names: list[str] = []
    for link in list(code.filter_external_links(recursive=True)):
        if _is_web_link(link):
            url = canonical_url(str(link.url))
            if url not in urls:
                urls.append(url)
                names.append(_link_label(link, url))
        _remove(code, link)
    for tag in list(code.filter_tags(recursive=True)):
        if str(tag.tag).strip().lower() == "ref":
            _remove(code, tag)
    for wikilink in list(code.filter_wikilinks(recursive=True)):
        if not _is_text_link(wikilink):
            _remove(code, wikilink)
    _inline_text_templates(code)
    summary = _plain(code)
    if not summary:
        return None
    return WcepEvent(
        event_id=content_id(day.isoformat(), summary),
        date=day,
        category=category,
        story_path=story_path,
        summary=summary,
        source_urls=tuple(urls),
        source_names=tuple(names),
    )


def _inline_text_templates(code: Wikicode) -> None:
    for template in list(code.filter_templates(recursive=True)):
        keys = _TEXT_TEMPLATES.get(str(template.name).strip().lower())
        if keys is None:
            continue
        words = [_plain(template.get(key).value) for key in keys if template.has(key)]
        with suppress(ValueError):  # gone already with an enclosing template
            code.replace(template, " ".join(words))


def _remove(code: Wikicode, node: ExternalLink | Tag | Wikilink) -> None:
    with suppress(ValueError):  # already gone with an enclosing node (a link inside a removed ref)
        code.remove(node)


def _is_web_link(link: ExternalLink) -> bool:
    return str(link.url).strip().lower().startswith(_WEB_SCHEMES)


def _is_text_link(link: Wikilink) -> bool:
    return not str(link.title).strip().lstrip(":").lower().startswith(_NON_TEXT_LINK_PREFIXES)


def _link_label(link: ExternalLink, url: str) -> str:
    label = _plain(mwparserfromhell.parse(str(link.title))) if link.title is not None else ""
    label = label.strip().removeprefix("(").removesuffix(")").strip()
    return label or source_domain(url)


def _article_title(target: str) -> str:
    """A link target as the article's title: no section anchor, spaces, first letter upper-case."""
    title = " ".join(target.split("#", 1)[0].replace("_", " ").split()).lstrip(":")
    return title[:1].upper() + title[1:]


def _plain(code: Wikicode) -> str:
    text = code.strip_code(normalize=True, collapse=True)
    text = _EMPTY_PARENS.sub("", " ".join(text.split()))
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text).strip()
