"""Synthetic news pages for the bundled GDELT sample's page archive (``data/raw/sample/gdelt/pages``).

Every page is invented (each says so in ``<meta name="description">``): a short news text about one
(date, subject, relation, object) event of the sample, naming the two countries, the day and the CAMEO
relation in words. Sentences are drawn without repetition from a pool of templates so that no page
repeats itself (its word 5-gram and character 10-gram repetition stay low), and every page carries
the boilerplate lines real pages leave in extracted text (a breadcrumb, a share bar, a cookie button)
that the paragraph pass of gdelt_articles drops. The broken pages (too short, flagged-word spam, copied
paragraphs, special-character garbage) and the odd captures (HTTP 404, a PDF, a cp1252 page labelled
UTF-8) are built here too; which URL gets which is decided by ``scripts/build_gdelt_sample.py``.
"""

from __future__ import annotations

import hashlib
import io
import random
import uuid
from dataclasses import dataclass, field
from datetime import date, timedelta
from html import escape

from sample_gdelt.events import COUNTRIES
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

# Second-level CAMEO code -> what the subject did to the object, as a past-tense phrase for prose.
RELATION_PHRASES: dict[str, str] = {
    "010": "issued a statement about",
    "012": "made pessimistic comments about",
    "013": "made optimistic comments about",
    "020": "made an appeal to",
    "021": "appealed for material cooperation from",
    "023": "appealed for aid from",
    "030": "said it intends to cooperate with",
    "031": "said it intends to cooperate materially with",
    "036": "said it is ready to meet and negotiate with",
    "040": "held consultations with",
    "042": "sent a delegation on a visit to",
    "043": "hosted a visiting delegation from",
    "046": "opened negotiations with",
    "051": "praised",
    "057": "signed a formal agreement with",
    "060": "agreed on material cooperation with",
    "061": "agreed on economic cooperation with",
    "070": "provided aid to",
    "071": "provided economic aid to",
    "083": "acceded to demands for political reform from",
    "084": "returned detained persons and seized property to",
    "090": "opened an investigation concerning",
    "100": "issued demands to",
    "104": "demanded political reform from",
    "111": "criticized and denounced",
    "112": "accused",
    "120": "rejected a proposal from",
    "128": "defied international norms in a dispute with",
    "130": "threatened",
    "138": "threatened military force against",
    "141": "saw demonstrations and rallies directed at",
    "145": "saw violent protests directed at",
    "150": "staged a show of military and police power aimed at",
    "154": "mobilized additional armed forces against",
    "160": "reduced diplomatic relations with",
    "163": "imposed an embargo and sanctions on",
    "171": "seized property belonging to",
    "172": "imposed administrative sanctions on",
    "173": "arrested and charged citizens of",
    "180": "was blamed for unconventional violence against",
    "183": "was blamed for a bombing targeting",
    "190": "used conventional military force against",
    "193": "fought with small arms against forces of",
    "195": "used aerial weapons against",
    "202": "was accused of mass killings of civilians from",
}

# Templates of article paragraphs; each page uses a few, each at most once, in a shuffled order.
# {s} / {o}: subject and object country names; {act}: the relation phrase; {day}: "Monday, 7 April 2025".
LEDES = (
    "On {day}, {s} {act} {o}, according to officials in both capitals who spoke to reporters that evening.",
    "{s} {act} {o} on {day}, a move that diplomats said had been prepared for several weeks.",
    "Government sources confirmed that {s} {act} {o} on {day}, ending days of speculation in the press.",
)
BODY = (
    "A spokesperson for the foreign ministry of {s}, {person}, told a briefing that the decision reflected "
    "long-standing concerns and would be reviewed within {weeks} weeks.",
    "Officials in {o} responded cautiously, saying they had received no formal notice before the news was "
    "made public and would study the details.",
    "Analysts at the {institute} described the step as significant but warned that its consequences for "
    "trade worth about {billions} billion dollars a year were hard to predict.",
    "Relations between {s} and {o} have shifted repeatedly over the past decade, shaped by disputes over "
    "energy prices, migration and regional security.",
    "Opposition lawmakers demanded a debate in parliament, arguing that the cabinet had acted without "
    "consulting the committees responsible for foreign affairs.",
    "Markets reacted calmly: the main stock index closed {pct} percent {updown} and the currency barely "
    "moved against the dollar during afternoon trading.",
    "Several neighbouring governments issued statements urging restraint and offering to host further "
    "contacts between the two sides if both agreed.",
    "The episode is the latest in a series of {count} similar announcements this year, according to a "
    "tally kept by researchers at the {institute}.",
    "Diplomats expect the question to come up again at a regional summit scheduled for later in the "
    "season, where ministers from {s} and {o} are due to attend.",
    "{person}, a former ambassador, said in an interview that the timing suggested domestic politics "
    "played as large a role as any foreign consideration.",
    "Local newspapers in {o} devoted their front pages to the story, and commentators were divided over "
    "how the government should respond.",
    "No casualties or arrests were reported in connection with the announcement, and border crossings "
    "between the countries remained open throughout the day.",
)
PEOPLE = (
    "Amira Haddad", "Lukas Brenner", "Sofia Marchetti", "Kenji Arakawa", "Nadia Petrescu",
    "Daniel Okoye", "Ines Carvalho", "Tomasz Wrona", "Leila Farahani", "Ravi Menon",
)  # fmt: skip
INSTITUTES = (
    "Centre for Strategic Affairs", "Institute of International Relations", "Global Policy Forum",
    "Council on Regional Studies",
)  # fmt: skip
# Boilerplate the extractor keeps and the paragraph pass drops (too few words, or mostly special chars).
BOILERPLATE_TOP = ("Home > World", "News > Politics", "World > Diplomacy")
SHARE_BARS = ("Share: [f] [x] [in] [@] [✉]", "| f | x | in | ✉ | ⎙ |", "Share [f] [x] [✉] [⎙]")
COOKIE_LINES = ("Accept all cookies", "Cookie settings »", "OK, got it ✔")
# Flagged words injected into the spam page (entries of almanac/gdelt/flagged_words.txt).
SPAM_WORDS = ("porn", "xxx", "camgirls", "sexcam", "nudes")
GARBAGE = ("■■■■", "{{}}", "▲▼▲▼", "####", "<<>>", "◆◆◆◆", "@@@@", "||||")  # four special characters each


@dataclass
class PageEvent:
    """One (date, subject, relation, object) event of the sample and the SOURCEURLs that report it."""

    day: date
    subject: str
    relation: str
    obj: str
    mentions: int = 0
    urls: list[str] = field(default_factory=list)


def country_name(code: str) -> str:
    return str(COUNTRIES[code][1]).split(",")[0]  # "Vietnam, Republic Of" -> "Vietnam"


def facts(rng: random.Random, event: PageEvent) -> dict[str, str]:
    return {
        "s": country_name(event.subject),
        "o": country_name(event.obj),
        "act": RELATION_PHRASES[event.relation],
        "day": f"{event.day:%A}, {event.day.day} {event.day:%B %Y}",
        "person": rng.choice(PEOPLE),
        "institute": rng.choice(INSTITUTES),
        "weeks": str(rng.randint(2, 8)),
        "billions": str(rng.randint(3, 90)),
        "pct": f"{rng.uniform(0.1, 1.9):.1f}",
        "updown": rng.choice(("higher", "lower")),
        "count": str(rng.randint(3, 12)),
    }


def headline(event: PageEvent) -> str:
    return f"{country_name(event.subject)} {RELATION_PHRASES[event.relation]} {country_name(event.obj)}"


def story(rng: random.Random, event: PageEvent, paragraphs: int = 5) -> list[str]:
    """A lede and ``paragraphs - 1`` distinct body paragraphs about the event (>= 80 words in all)."""
    values = facts(rng, event)
    chosen = [rng.choice(LEDES), *rng.sample(BODY, paragraphs - 1)]
    return [template.format(**values) for template in chosen]


def good_paragraphs(rng: random.Random, event: PageEvent) -> list[str]:
    """An article with its boilerplate lines: crumb first, share bar inside, cookie button last."""
    text = story(rng, event, rng.randint(5, 6))
    text.insert(rng.randint(2, len(text) - 1), rng.choice(SHARE_BARS))
    return [rng.choice(BOILERPLATE_TOP), *text, rng.choice(COOKIE_LINES)]


def cp1252_paragraphs(rng: random.Random, event: PageEvent) -> list[str]:
    """A good article with curly quotes, a dash and accents, whose boilerplate is cp1252-encodable (the
    page is written in cp1252 under a UTF-8 label)."""
    text = story(rng, event, 5)
    text.append(
        "Caf\u00e9 owners\u2019 views on the news were \u201cmixed\u201d \u2013 some welcomed it,"
        " others said it changed little."
    )
    return [
        rng.choice(BOILERPLATE_TOP),
        *text,
        "Share: [f] [x] [in] [@] [\u00bb]",
        rng.choice(COOKIE_LINES[:2]),
    ]


def bad_paragraphs(rng: random.Random, event: PageEvent, kind: str) -> list[str]:
    """A page that the extractor reads but cleaning rejects, for reason ``kind``."""
    text = story(rng, event, 6)
    if kind == "too_short":  # one real paragraph left after the boilerplate goes: < 50 words
        return [rng.choice(BOILERPLATE_TOP), text[0], rng.choice(SHARE_BARS), rng.choice(COOKIE_LINES)]
    if kind == "flagged_words":
        # One flagged word per paragraph of 20+ words: each paragraph stays under the paragraph limit
        # (1/20 = 0.05), the article as a whole is far over the document limit (0.01).
        return [f"{paragraph} {rng.choice(SPAM_WORDS)}" for paragraph in text]
    if kind == "repeated_paragraphs":  # a CMS fault printing the article twice
        return [*text[:3], *text[:3]]
    if kind == "special_chars":
        # Template garbage after every few words: about a quarter of each paragraph's characters are
        # special, under the paragraph limit (0.3) but over the document limit (0.2).
        out = []
        for paragraph in text:
            words = paragraph.split()
            out.append(
                " ".join(w + (" " + rng.choice(GARBAGE) if i % 2 else "") for i, w in enumerate(words))
            )
        return out
    raise ValueError(f"unknown bad page kind {kind!r}")


def page_html(event: PageEvent, paragraphs: list[str]) -> str:
    body = "".join(f"<p>{escape(paragraph)}</p>" for paragraph in paragraphs)
    title = escape(headline(event))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
        '<meta name="description" content="SYNTHETIC PAGE: an invented news text written for the '
        'Almanac GDELT sample; no real event is described.">'
        f'<meta property="article:published_time" content="{event.day.isoformat()}T09:00:00+00:00">'
        '</head><body><nav><a href="/">Home</a> <a href="/world">World</a></nav>'
        f"<article><h1>{title}</h1>{body}</article>"
        "<footer>Invented outlet, sample data</footer></body></html>"
    )


def record_id(url: str, variant: str) -> str:
    """A fixed WARC-Record-ID derived from the URL (and which capture of it this is)."""
    digest = hashlib.sha256(f"{variant}\n{url}".encode()).digest()
    return f"<urn:uuid:{uuid.UUID(bytes=digest[:16], version=4)}>"


@dataclass(frozen=True)
class Capture:
    url: str
    status: str  # "200 OK", "404 Not Found"
    content_type: str
    body: bytes
    day: date
    variant: str = "first"  # distinguishes two captures of one URL (record ids must differ)


def warc_file(captures: list[Capture]) -> bytes:
    """Per-record gzipped WARC/1.0 of ``response`` records with fixed dates and ids: the same bytes on
    every run."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.0")
    for capture in captures:
        headers = StatusAndHeaders(
            capture.status,
            [("Content-Type", capture.content_type), ("Content-Length", str(len(capture.body)))],
            protocol="HTTP/1.1",
        )
        minute = int(hashlib.sha256(capture.url.encode()).hexdigest()[:4], 16) % 600
        stamp = f"{capture.day + timedelta(days=1):%Y-%m-%d}T{minute // 60 + 6:02d}:{minute % 60:02d}:00Z"
        record = writer.create_warc_record(
            capture.url,
            "response",
            payload=io.BytesIO(capture.body),
            http_headers=headers,
            warc_headers_dict={"WARC-Date": stamp, "WARC-Record-ID": record_id(capture.url, capture.variant)},
        )
        writer.write_record(record)
    return buffer.getvalue()
