"""The page model and the pieces every outlet layout of the sample corpus shares (head, nav, cookie banner).

Loaded by ``page_templates.py`` as ``sample_corpus.page_parts``: ``scripts/`` is on ``sys.path`` when
``scripts/build_sample.py`` runs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from html import escape

UI: dict[str, dict[str, str]] = {
    "en": {
        "cookie": "We use cookies and similar technologies to personalise content and ads "
        "and to analyse our traffic. You can change your choices at any time.",
        "accept": "Accept all cookies",
        "manage": "Manage preferences",
        "related": "Related stories",
        "by": "By",
    },
    "de": {
        "cookie": "Wir verwenden Cookies und ähnliche Technologien, um Inhalte und Anzeigen "
        "zu personalisieren und Zugriffe zu analysieren.",
        "accept": "Alle akzeptieren",
        "manage": "Einstellungen",
        "related": "Mehr zum Thema",
        "by": "Von",
    },
}

SECTIONS = ["News", "World", "Business", "Sport", "Culture", "Opinion", "Weather"]
MONTHS_DE = [
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
]


@dataclass(frozen=True)
class Page:
    """Everything a template needs to render one article page."""

    outlet: str
    domain: str
    url: str
    title: str
    author: str
    published: str  # ISO 8601 with offset
    language: str
    description: str
    paragraphs: list[str]
    related: list[tuple[str, str]]  # (url, title)

    @property
    def path(self) -> str:
        return self.url.split(self.domain, 1)[1]

    @property
    def human_date(self) -> str:
        d = dt.datetime.fromisoformat(self.published)
        if self.language == "de":
            return f"{d.day}. {MONTHS_DE[d.month - 1]} {d.year}, {d:%H:%M} Uhr"
        return f"{d:%B} {d.day}, {d.year} {d:%H:%M}"


def _ui(page: Page, key: str) -> str:
    return UI.get(page.language, UI["en"])[key]


def _head(page: Page, css: str, extra: str = "") -> str:
    t, a = escape(page.title), escape(page.author)
    return f"""<!DOCTYPE html>
<html lang="{page.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{t} | {escape(page.outlet)}</title>
<meta name="description" content="{escape(page.description)}">
<meta name="author" content="{a}">
<meta property="og:type" content="article">
<meta property="og:site_name" content="{escape(page.outlet)}">
<meta property="og:title" content="{t}">
<meta property="og:description" content="{escape(page.description)}">
<meta property="og:url" content="{page.url}">
<meta property="og:image" content="https://{page.domain}/media{page.path}.jpg">
<meta property="article:published_time" content="{page.published}">
<link rel="canonical" href="{page.url}">
<link rel="stylesheet" href="/static/css/{css}.min.css">
{extra}<script async src="https://metrics.{page.domain.removeprefix("www.")}/collect.js"></script>
</head>
"""


def _paras(page: Page, indent: str = "") -> str:
    return "\n".join(f"{indent}<p>{escape(p, quote=False)}</p>" for p in page.paragraphs)


def _nav_items(page: Page, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return "".join(f'<li{attr}><a href="/{s.lower()}/">{s}</a></li>' for s in SECTIONS)


def _related(page: Page) -> str:
    return "\n".join(f'<li><a href="{u}">{escape(t)}</a></li>' for u, t in page.related)


def _cookie(page: Page, elem_id: str, cls: str) -> str:
    return (
        f'<div id="{elem_id}" class="{cls}" role="dialog" aria-live="polite">\n'
        f'<p>{_ui(page, "cookie")}</p>\n<button type="button">{_ui(page, "accept")}</button> '
        f'<button type="button">{_ui(page, "manage")}</button>\n</div>\n'
    )


def _analytics() -> str:
    return (
        "<script>window.dataLayer=window.dataLayer||[];"
        'window.dataLayer.push({"event":"pageview","template":"article"});</script>\n'
    )
