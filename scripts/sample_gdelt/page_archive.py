"""The page archive of the bundled GDELT sample: which event URL gets which page, written as two WARCs.

The planted cases are listed in ``scripts/build_gdelt_sample.py``'s docstring; the pages themselves are
made in :mod:`sample_gdelt.pages`.
"""

from __future__ import annotations

import random
from datetime import date
from pathlib import Path

from sample_gdelt.events import CORPUS_URLS, COUNTRIES, MONTH_DATES, Slot
from sample_gdelt.pages import (
    Capture,
    PageEvent,
    bad_paragraphs,
    cp1252_paragraphs,
    good_paragraphs,
    page_html,
    warc_file,
)

# Which events get which planted page, per month (see scripts/build_gdelt_sample.py).
SABOTAGE: dict[str, tuple[str, ...]] = {
    "2025-04": ("too_short", "special_chars"),
    "2025-05": ("flagged_words",),
    "2025-06": ("repeated_paragraphs",),
}
PAGES_FILE = "sample-pages.warc.gz"
LATE_PAGES_FILE = "sample-pages-late.warc.gz"  # ends with a record cut short
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"


def canonical(url: str) -> str:
    return url.split("?")[0]  # enough for the sample: its only query strings are utm_ parameters


def page_events(slots: list[Slot]) -> dict[tuple[date, str, str, str], PageEvent]:
    """The month's (date, subject, relation, object) events as gdelt_clean keeps them (reported on their
    own day, two different countries, a CAMEO-coded relation), with summed mentions and their URLs."""
    seen: set[int] = set()
    events: dict[tuple[date, str, str, str], PageEvent] = {}
    for slot in slots:
        for event in slot.events:
            if id(event) in seen or event.damage or slot.stamp.date() != event.day:
                continue
            seen.add(id(event))
            if event.subject not in COUNTRIES or event.obj not in COUNTRIES or event.subject == event.obj:
                continue
            if event.relation == "---":
                continue
            key = (event.day, event.subject, event.relation, event.obj)
            quad = events.setdefault(key, PageEvent(*key))
            quad.mentions += event.mentions
            if canonical(event.url) not in map(canonical, quad.urls):
                quad.urls.append(event.url)
    return events


def page(event: PageEvent, url: str, paragraphs: list[str], variant: str = "first") -> Capture:
    body = page_html(event, paragraphs).encode()
    return Capture(url, "200 OK", "text/html; charset=utf-8", body, event.day, variant)


def month_pages(month: str, slots: list[Slot], notes: list[str]) -> tuple[list[Capture], list[Capture]]:
    """(captures of the main file, captures of the late file) for one month; ``notes`` gets a line per
    planted case."""
    rng = random.Random(f"gdelt-sample-pages-{month}")  # its own RNG: the zips' bytes do not depend on it
    events = page_events(slots)
    corpus = {canonical(url) for url in CORPUS_URLS.values()}
    loud = [events[key] for key in sorted(events) if events[key].mentions >= 100]
    eligible = [event for event in loud if len(event.urls) >= 5]
    exactly_five = [event for event in eligible if len(event.urls) == 5]
    sabotaged, charset_event = exactly_five[0], exactly_five[-1]
    roomy = [event for event in eligible if len(event.urls) >= 6]
    main: list[Capture] = []
    late: list[Capture] = []

    def label(event: PageEvent) -> str:
        return f"{event.day} {event.subject} {event.relation} {event.obj} ({event.mentions} mentions)"

    for event in loud:
        urls = sorted(url for url in event.urls if canonical(url) not in corpus)
        if len(urls) >= 7:  # a page the crawl missed: the event keeps 6
            notes.append(f"{month}: no page for {urls[-1]} ({label(event)} keeps 6 pages)")
            urls = urls[:-1]
        for index, url in enumerate(urls):
            kinds = SABOTAGE[month] if event is sabotaged else ()
            if index < len(kinds):
                main.append(page(event, url, bad_paragraphs(rng, event, kinds[index])))
                notes.append(f"{month}: {kinds[index]} page for {label(event)}: 4 articles left")
            elif event is charset_event and index == 0 and month == "2025-06":
                body = page_html(event, cp1252_paragraphs(rng, event)).encode("cp1252")
                main.append(Capture(url, "200 OK", "text/html; charset=utf-8", body, event.day))
                notes.append(f"{month}: cp1252 bytes labelled utf-8, {url} ({label(event)} needs it)")
            else:
                main.append(page(event, url, good_paragraphs(rng, event)))
    # Odd captures, each on an event that keeps >= 5 articles without the URL it hits.
    target = roomy[0]
    odd_url = sorted(target.urls)[0]
    captured = [capture for capture in main if capture.url == odd_url]
    if month == "2025-04":
        main.remove(captured[0])
        main.append(Capture(odd_url, "404 Not Found", "text/html", b"<html>Not found</html>", target.day))
        notes.append(f"{month}: HTTP 404 for {odd_url} ({label(target)})")
        twin = roomy[-1]
        twin_url = sorted(twin.urls)[-2]
        broken = Capture(twin_url, "404 Not Found", "text/html", b"<html>gone</html>", twin.day, "second")
        main.append(broken)  # a later capture of a page already archived: the first one is read
        notes.append(f"{month}: {twin_url} captured twice, a 200 then a 404 ({label(twin)})")
    elif month == "2025-05":
        main.remove(captured[0])
        main.append(Capture(odd_url, "200 OK", "application/pdf", PDF, target.day))
        notes.append(f"{month}: application/pdf for {odd_url} ({label(target)})")
    else:
        # Pages of a quiet event (50-99 mentions) in the late file, the last one cut short.
        quiet = next(events[key] for key in sorted(events) if 50 <= events[key].mentions < 100)
        late += [page(quiet, url, good_paragraphs(rng, quiet)) for url in sorted(quiet.urls)]
        notes.append(f"{month}: {sorted(quiet.urls)[-1]} cut short at the end of {LATE_PAGES_FILE}")
    # Pages of the quiet (50-99 mention) relations that share their day and pair with a loud event, so
    # they can be answers of its query; drawn last, so no page above changes.
    loud_pairs = {(event.day, event.subject, event.obj) for event in loud}
    for key in sorted(events):
        event = events[key]
        if 50 <= event.mentions < 100 and (event.day, event.subject, event.obj) in loud_pairs:
            main += [page(event, url, good_paragraphs(rng, event)) for url in sorted(event.urls)]
    return main, late


def build_pages(months: list[list[Slot]], out: Path) -> list[str]:
    """Write the page archive; return the notes on planted cases."""
    notes: list[str] = []
    main: list[Capture] = []
    late: list[Capture] = []
    for month, slots in zip(MONTH_DATES, months, strict=True):
        month_main, month_late = month_pages(month, slots, notes)
        main += month_main
        late += month_late
    target = out / "pages"
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.warc.gz"):
        stale.unlink()
    (target / PAGES_FILE).write_bytes(warc_file(main))
    late_bytes = warc_file(late)
    last = warc_file(late[-1:])
    # Cut the last record (its own gzip member) in the middle of its HTML: header intact, body short.
    (target / LATE_PAGES_FILE).write_bytes(late_bytes[: len(late_bytes) - len(last) // 2])
    return notes
