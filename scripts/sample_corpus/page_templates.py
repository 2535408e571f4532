"""HTML page templates of the fictional outlets of the sample corpus.

Each outlet has its own page layout (nav menu, cookie banner, related stories,
footer) around an ``<article>``, so that the extraction stage is tested against
several realistic boilerplate patterns.  Output is fully deterministic.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from html import escape
from typing import Any

from sample_corpus.page_parts import (
    Page,
    _analytics,
    _cookie,
    _head,
    _nav_items,
    _paras,
    _related,
    _ui,
)


def meridian(page: Page) -> str:
    ld = json.dumps(
        {
            "@context": "https://schema.org",
            "@type": "NewsArticle",
            "headline": page.title,
            "datePublished": page.published,
            "author": {"@type": "Person", "name": page.author},
            "publisher": {"@type": "Organization", "name": page.outlet},
        },
        ensure_ascii=False,
    )
    extra = f'<script type="application/ld+json">{ld}</script>\n'
    return (
        _head(page, "herald", extra)
        + f"""<body class="article-page">
{_cookie(page, "cookie-consent", "cookie-banner")}<header class="site-header">
<a class="logo" href="/">The Meridian Herald</a>
<nav class="main-nav" aria-label="Sections"><ul>{_nav_items(page)}</ul></nav>
<form class="search" action="/search"><input type="search" name="q" placeholder="Search the Herald"></form>
</header>
<main id="content">
<article class="story">
<header class="story-header">
<h1 class="headline">{escape(page.title)}</h1>
<p class="byline">{_ui(page, "by")} <a rel="author" href="/authors/">{escape(page.author)}</a></p>
<time datetime="{page.published}">{page.human_date}</time>
</header>
<div class="story-body">
{_paras(page)}
</div>
</article>
<aside class="related" aria-label="{_ui(page, "related")}">
<h2>{_ui(page, "related")}</h2>
<ul>
{_related(page)}
</ul>
</aside>
</main>
<footer class="site-footer">
<ul class="footer-links"><li><a href="/about/">About us</a></li>
<li><a href="/contact/">Contact the newsroom</a></li><li><a href="/privacy/">Privacy policy</a></li>
<li><a href="/terms/">Terms and conditions</a></li></ul>
<p class="copyright">&copy; 2025 Meridian Herald Media Ltd. All rights reserved.
Registered office: 1 Quay Street, Port Alder.</p>
</footer>
{_analytics()}</body>
</html>
"""
    )


def tidewater(page: Page) -> str:
    return (
        _head(page, "tidewater")
        + f"""<body class="post-template-default single single-post">
<div id="page" class="site">
<div class="top-bar"><a href="/subscribe/">Subscribe</a> | <a href="/login/">Sign in</a> |
<span class="weather">Port Alder 14&deg;C, light showers</span></div>
<header id="masthead" class="site-header">
<p class="site-title"><a href="/" rel="home">Tidewater Post</a></p>
<nav id="site-navigation" class="main-navigation">
<ul id="primary-menu" class="menu">{_nav_items(page, "menu-item")}</ul></nav>
</header>
{_cookie(page, "cn-notice", "cookie-notice")}<div id="content" class="site-content">
<div id="primary" class="content-area"><main id="main" class="site-main">
<article class="post type-post status-publish format-standard">
<header class="entry-header">
<h1 class="entry-title">{escape(page.title)}</h1>
<div class="entry-meta"><span class="posted-on">Posted on
<time class="entry-date published" datetime="{page.published}">{page.human_date}</time></span>
<span class="byline">by <span class="author vcard">{escape(page.author)}</span></span></div>
</header>
<div class="entry-content">
{_paras(page)}
</div>
<footer class="entry-footer"><div class="share-buttons">Share this:
<a href="#">Facebook</a> <a href="#">X</a> <a href="#">Email</a></div></footer>
</article>
<section class="related-posts"><h3>More from Tidewater Post</h3>
<ul>
{_related(page)}
</ul>
</section>
</main></div>
<aside id="secondary" class="widget-area"><section class="widget">
<h2 class="widget-title">Newsletter</h2>
<p>Get the Tidewater Post morning briefing in your inbox every weekday.</p>
<form><input type="email" placeholder="Your email address"><button>Sign up</button></form>
</section></aside>
</div>
<footer id="colophon" class="site-footer"><div class="site-info">
&copy; 2025 Tidewater Post Publishing Company. <a href="/privacy/">Privacy</a> &middot;
<a href="/terms/">Terms of use</a> &middot; <a href="/advertise/">Advertise with us</a></div></footer>
</div>
{_analytics()}</body>
</html>
"""
    )


def northgate(page: Page, body: str | None = None) -> str:
    cookie = "" if body else _cookie(page, "consent", "consent-banner")
    if body is None:
        body = f"""<article class="wire-story" itemscope itemtype="https://schema.org/NewsArticle">
<h1 itemprop="headline">{escape(page.title)}</h1>
<div class="story-meta"><span itemprop="author">{escape(page.author)}</span> &middot;
<time itemprop="datePublished" datetime="{page.published}">{page.human_date}</time></div>
<div class="article-text" itemprop="articleBody">
{_paras(page)}
</div>
</article>
<div class="related-coverage"><h4>{_ui(page, "related")}</h4>
<ul>
{_related(page)}
</ul>
</div>"""
    return (
        _head(page, "wire")
        + f"""<body>
<nav class="navbar"><a class="brand" href="/">Northgate Wire</a>
<ul class="nav-links">{_nav_items(page)}</ul><a class="btn-login" href="/account/">My account</a></nav>
{cookie}<div class="container">
{body}
</div>
<footer class="wire-footer">
<p>All quotes delayed a minimum of 15 minutes. &copy; 2025 Northgate Wire. All rights reserved.</p>
<p><a href="/terms/">Terms of use</a> &middot; <a href="/accessibility/">Accessibility</a> &middot;
<a href="/corrections/">Corrections</a> &middot; <a href="/careers/">Careers</a></p>
</footer>
{_analytics()}</body>
</html>
"""
    )


def northgate_liveblog_shell(page: Page) -> str:
    """A live-blog page whose content is loaded by JavaScript: no article text.

    Only nav, scripts and footer (its consent banner is injected by a script).
    """
    body = f"""<div id="liveblog-root" data-feed="/api/live{page.path}.json"
 data-title="{escape(page.title)}"></div>
<noscript></noscript>
<script src="/static/js/liveblog.bundle.js" defer></script>
<script>window.__LIVE__={{"feed":"{page.path}","poll":30}};</script>"""
    return northgate(page, body)


def ledger(page: Page) -> str:
    return (
        _head(page, "ledger")
        + f"""<body class="ledger">
<div class="market-ticker" aria-hidden="true"><span>NX-100 8,214.3 &#9650;0.4%</span>
<span>GBP/EUR 1.1842</span> <span>Brent $71.20</span> <span>Gold $2,331</span></div>
<header class="masthead"><a class="wordmark" href="/">The Capital Ledger</a>
<nav class="sections"><ul>{_nav_items(page)}</ul></nav>
<a class="subscribe-btn" href="/subscribe/">Subscribe from 1 pound a week</a></header>
{_cookie(page, "gdpr-banner", "cookie-consent")}<main class="page">
<article class="ledger-article">
<div class="article-header">
<h1>{escape(page.title)}</h1>
<div class="byline"><span class="author">{escape(page.author)}</span>
<time datetime="{page.published}">{page.human_date}</time></div>
</div>
<div class="article-body">
{_paras(page)}
</div>
</article>
<aside class="most-read"><h3>Most read</h3>
<ol>
{_related(page)}
</ol>
</aside>
</main>
<footer class="ledger-footer"><p>&copy; 2025 The Capital Ledger Ltd.
Market data provided for information only and is not investment advice.</p>
<p><a href="/help/">Help centre</a> | <a href="/privacy/">Privacy</a> |
<a href="/cookies/">Cookie settings</a></p></footer>
{_analytics()}</body>
</html>
"""
    )


def gossip(page: Page) -> str:
    return (
        _head(page, "gossip")
        + f"""<body>
<div class="ad-slot ad-leaderboard" data-ad="top">Advertisement</div>
<header class="gd-header"><a class="gd-logo" href="/">Gossip Daily</a>
<ul class="gd-menu">{_nav_items(page)}</ul></header>
{_cookie(page, "cookie-wall", "cookie-wall")}<div class="gd-main">
<article class="gd-post">
<h1>{escape(page.title)}</h1>
<p class="gd-meta">{escape(page.author)} | <time datetime="{page.published}">{page.human_date}</time></p>
{_paras(page)}
</article>
<div class="ad-slot ad-mpu" data-ad="mpu">Advertisement</div>
<div class="gd-trending"><h3>Trending now</h3><ul>
{_related(page)}
</ul></div>
<div class="gd-comments"><h3>Comments (34)</h3><p>Log in to join the conversation.</p></div>
</div>
<footer class="gd-footer"><p>&copy; 2025 Gossip Daily. Send us your tips!</p></footer>
{_analytics()}</body>
</html>
"""
    )


TEMPLATES: dict[str, Callable[[Page], str]] = {
    "meridian": meridian,
    "tidewater": tidewater,
    "northgate": northgate,
    "ledger": ledger,
    "gossip": gossip,
}

# Strings of page chrome that must never appear in extracted article text.
BOILERPLATE_MARKERS = [
    "We use cookies",
    "Wir verwenden Cookies",
    "Accept all cookies",
    "Related stories",
    "More from Tidewater Post",
    "Most read",
    "All rights reserved",
    "Privacy policy",
    "Terms of use",
    "Subscribe",
    "Advertisement",
    "Newsletter",
    "Share this",
    "NX-100",
]


def render(template: str, page: Page) -> str:
    """Render ``page`` with the named outlet template."""
    return TEMPLATES[template](page)


def description(art: dict[str, Any]) -> str:
    """The article's explicit description, else its first sentence."""
    if art.get("description"):
        return str(art["description"])
    first = art["text"].split("\n\n", 1)[0]
    match = re.match(r"(.{40,}?[.!?])\s", first + " ")
    return match.group(1) if match else first


def page_bytes(art: dict[str, Any], doc: dict[str, Any]) -> bytes:
    """The HTML payload of an article of ``articles.json`` (``doc``), as served."""
    outlet = doc["outlets"][art["source_domain"]]
    related = sorted(
        (a["key"], a["url"], a["title"])
        for a in doc["articles"]
        if a["source_domain"] == art["source_domain"] and a["key"] != art["key"] and not a.get("malformed")
    )
    page = Page(
        outlet=outlet["name"],
        domain=art["source_domain"],
        url=art["url"],
        title=art["title"],
        author=art["author"],
        published=art["publish_date"],
        language=art["language"],
        description=description(art),
        paragraphs=art["text"].split("\n\n") if art["text"] else [],
        related=[(url, title) for _, url, title in related[:4]],
    )
    if art.get("malformed") == "no_article_text":
        return northgate_liveblog_shell(page).encode("utf-8")
    text = render(outlet["template"], page)
    if art.get("malformed") == "invalid_utf8":  # served as latin-1 although declared UTF-8
        return text.encode("latin-1", "xmlcharrefreplace")
    return text.encode("utf-8")
