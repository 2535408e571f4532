"""Build the bundled GDELT 2.0 sample: python scripts/build_gdelt_sample.py [--out data/raw/sample/gdelt]

Writes ``files/<YYYYMMDDHHMMSS>.export.CSV.zip`` and ``.mentions.CSV.zip`` for 2025-04, 2025-05 and
2025-06 (eight 15-minute slots per month, on six days including the first and last of the month) and
``masterfilelist.txt`` listing them with their real sizes and MD5s, plus lines that must be ignored:
GKG files, files of 2025-02 and 2025-03 (not shipped; no month after the sample is listed, so
adding a month to `months` finds no files for it rather than files missing from the mirror), a blank
line and a garbled line.

The events are invented but in GDELT 2.0's exact layout (61 tab-separated fields, no header), with real
CAMEO country and event codes, GDELT's QuadClass of each root (01-05 verbal cooperation, 06-09 material
cooperation, 10-14 verbal conflict, 15-20 material conflict, as in the real exports under
../shared/realdata/gdelt) and the Goldstein value GDELT gives each code. Per month:

* 30 candidate (date, subject, object) groups: every relation quad of the group has > 50 mentions, the
  group >= 100, from >= 5 distinct URLs; dates, root codes and regions spread out. Some groups also
  hold a relation with too few mentions (not an answer), one holds two URLs that are one canonical URL.
* one group whose quads have exactly 50 and 55 mentions: a candidate under ">=" 50 only;
  near misses: 120 mentions from 4 URLs, 99 mentions from 6 URLs.
* one case per MIRAI cleaning rule: a GlobalEventID exported twice, a heavy group whose Day is the day
  before its DATEADDED, a SOURCEURL reused on a later day, a missing actor country, a same-country
  group, regional actors (EUR, AFR), Romania's CAMEO code ROM (ISO ROU), EventRootCode "--".
* a few SOURCEURLs that are articles of the bundled CC-News sample (one with a utm_ parameter).
* history: for each candidate group from the month's third day on, the same pair (same direction) on one
  or two earlier days of the month (never the first, whose quiet event is a planted case), with the
  group's first relation and sometimes a second one, each quad 52-90 mentions from one URL: in the
  database (>= 50 mentions) but never a candidate (at most two URLs a day, each quad < 100 mentions).
  Real pairs that make a heavy day have been in the news before; without this the frequency baseline
  (`almanac score mirai --baseline`) has no history to read and scores 0. Drawn from their own RNG
  (``HISTORY_SEED``), as are their export and mentions fields, so every other event keeps its lines.
* companions: about half the one-relation candidate groups after the month's first day get a second
  relation on their day (52-90 mentions, one URL, a page in the archive), so a released query can have
  more than one answer (without it every admitted query had exactly one).
* background events with few mentions; in 2025-05, one file with malformed lines (a cut-short row,
  NumMentions "1O", a Latin-1 byte in a URL) and a mentions row with 15 fields.

It also writes ``pages/``, a page archive for gdelt_articles (``gdelt_articles.page_archives``):
``sample-pages.warc.gz`` and ``sample-pages-late.warc.gz``, WARC/1.0 with one gzip member per ``response``
record (HTTP/1.1 headers, an HTML page). The pages are SYNTHETIC: invented news texts about the sample's
invented events (:mod:`sample_gdelt.pages`; each page says so in a ``<meta>`` tag), naming the two
countries, the day and the CAMEO relation in words, 80+ words, plus a breadcrumb, a share bar and a cookie
line that the paragraph pass drops. Pages go to every URL of each (date, subject, relation, object) event
with >= 100 mentions, the test-event threshold (13, 13 and 17 events; 10, 9 and 12 of them with >= 5
URLs); every other URL has no page, as real crawls miss pages. So that MIRAI's paper recipe (>= 100
mentions and >= 5 articles whose cleaned text survived) admits 9, 8 and 11 events, and so that each way a
page can fail is met once, the following are planted (the script prints each case with its URL):

* an event with 7 URLs keeps 6 pages (the last URL is left out);
* per month one event with exactly 5 URLs loses pages to cleaning and falls to 4 articles: 2025-04 a
  too-short page (too_few_words) and a page strewn with template garbage (special_chars, each paragraph
  under the paragraph limit, the whole over the document limit); 2025-05 a page with one flagged word per
  paragraph (flagged_words, again only the document pass sees it); 2025-06 a page whose paragraphs are
  printed twice (char_repetition);
* 2025-04: an HTTP 404 capture, and a URL captured twice (a 200, then a 404: the first capture is used);
* 2025-05: an ``application/pdf`` capture;
* 2025-06: a page in cp1252 bytes under a UTF-8 label, on an event that needs it for its 5 articles; and
  the pages of a quiet (50-99 mention) event in the late file, whose last record is cut short.

Deterministic: a seeded RNG and fixed zip member times, so every run writes the same bytes. The pages
use their own seeded RNG per month (the zips and ``masterfilelist.txt`` do not depend on it) and fixed
WARC-Dates and WARC-Record-IDs derived from each URL.
"""

from __future__ import annotations

import argparse
import hashlib
import random
from datetime import date, datetime, timedelta
from pathlib import Path

from sample_gdelt.events import (  # scripts/sample_gdelt/: found as the script's own folder is on sys.path
    CORPUS_URLS,
    COUNTRIES,
    MONTH_DATES,
    OUTLETS,
    REGIONAL,
    RELATIONS,
    SLUG_WORDS,
    Event,
    Slot,
    export_line,
    mention_lines,
    zipped,
)
from sample_gdelt.page_archive import build_pages

SEED = 6
HISTORY_SEED = (
    "gdelt-sample-history"  # history quads (and their fields): the main RNG's draws stay as they were
)
BASE_URL = "http://data.gdeltproject.org/gdeltv2/"


class MonthBuilder:
    def __init__(self, month: str, rng: random.Random) -> None:
        self.month = month
        self.rng = rng
        self.dates = [date.fromisoformat(day) for day in MONTH_DATES[month]]
        self.url_counter = 0
        times = ["011500", "064500", "093000", "121500", "154500", "183000", "214500"]
        second = set(rng.sample(range(len(self.dates)), 2))  # two days get a second file
        self.slots: dict[date, list[Slot]] = {}
        for index, day in enumerate(self.dates):
            picked = sorted(rng.sample(times, 2 if index in second else 1))
            self.slots[day] = [
                Slot(datetime.strptime(day.strftime("%Y%m%d") + t, "%Y%m%d%H%M%S")) for t in picked
            ]

    def url(self, day: date, subject: str, obj: str, relation: str) -> str:
        self.url_counter += 1
        names = [COUNTRIES[c][1] if c in COUNTRIES else REGIONAL.get(c, "officials") for c in (subject, obj)]
        words = "-".join([*names, SLUG_WORDS.get(relation[:2], "report")]).lower().replace(" ", "-")
        words = words.replace(",", "")
        outlet = self.rng.choice(OUTLETS)
        return f"https://{outlet}/{day:%Y/%m/%d}/{words}-{self.url_counter}"

    def add(self, event: Event, added: date | None = None, slot: int | None = None) -> Event:
        """File ``event`` under a slot of day ``added`` (default: its own day: reported that day)."""
        slots = self.slots[added or event.day]
        chosen = slots[slot] if slot is not None else self.rng.choice(slots)
        chosen.events.append(event)
        return event

    def quad(self, day: date, subject: str, obj: str, relation: str, total: int, rows: int) -> list[Event]:
        shares = split_total(self.rng, total, rows)
        return [Event(day, subject, obj, relation, n, self.url(day, subject, obj, relation)) for n in shares]


def split_total(rng: random.Random, total: int, parts: int, least: int = 3) -> list[int]:
    """``parts`` positive numbers (each >= least) summing to ``total``."""
    cuts = sorted(rng.sample(range(1, total - least * parts + parts), parts - 1))
    sizes = [b - a for a, b in zip([0, *cuts], [*cuts, total - least * parts + parts], strict=True)]
    return [size - 1 + least for size in sizes]


def history_url(
    builder: MonthBuilder, history_rng: random.Random, day: date, pair: tuple[str, str], relation: str
) -> str:
    builder.url_counter += 1
    names = [COUNTRIES[code][1] for code in pair]
    words = "-".join([*names, SLUG_WORDS.get(relation[:2], "report")]).lower().replace(" ", "-")
    return (
        f"https://{history_rng.choice(OUTLETS)}/{day:%Y/%m/%d}/{words.replace(',', '')}-{builder.url_counter}"
    )


def add_history(
    builder: MonthBuilder,
    history_rng: random.Random,
    groups: list[tuple[date, str, str, list[str]]],
    used: set[tuple[date, str, str]],
) -> None:
    """Earlier quads of each candidate group's pair, and companions of one-relation groups (see the
    module docstring), filed on their own day: one URL per quad, so a history day holds at most two URLs
    and can never become a candidate."""
    for day, subject, obj, relations in groups:
        if len(relations) == 1 and day != builder.dates[0] and history_rng.random() < 0.5:
            companion = history_rng.choice(sorted(r for r in RELATIONS if r[:2] != relations[0][:2]))
            url = history_url(builder, history_rng, day, (subject, obj), companion)
            builder.add(
                Event(day, subject, obj, companion, history_rng.randint(52, 90), url, history=True), slot=0
            )
        earlier = [other for other in builder.dates[1:] if other < day and (other, subject, obj) not in used]
        if not earlier:
            continue
        for other in sorted(history_rng.sample(earlier, min(len(earlier), history_rng.choice((1, 2))))):
            used.add((other, subject, obj))
            kept = relations[:1]
            if relations[1:] and history_rng.random() < 0.5:
                kept.append(history_rng.choice(relations[1:]))
            for relation in kept:
                url = history_url(builder, history_rng, other, (subject, obj), relation)
                event = Event(other, subject, obj, relation, history_rng.randint(52, 90), url, history=True)
                builder.add(event, slot=0)


def build_month(month: str, rng: random.Random, history_rng: random.Random) -> list[Slot]:
    builder = MonthBuilder(month, rng)
    d = builder.dates
    countries = sorted(COUNTRIES)
    roots = [f"{n:02d}" for n in range(1, 21)]
    by_root = {root: sorted(r for r in RELATIONS if r.startswith(root)) for root in roots}
    root_cycle = roots + rng.sample(roots, 10)
    rng.shuffle(root_cycle)
    # (day, subject, object) of the rule cases, so no candidate or background event joins their groups.
    rule_dyads = [
        (d[1], "USA", ""), (d[1], "", "IRN"), (d[2], "USA", "USA"), (d[3], "IND", "PAK"),
        (d[3], "RUS", "UKR"), (d[4], "EUR", "RUS"), (d[5], "AFR", "CHN"),
        (d[2] - timedelta(days=365), "GBR", "FRA"),
    ]  # fmt: skip
    late_object = rng.choice(["CHN", "RUS", "IRN"])
    late_day = d[1] - timedelta(days=1)
    used: set[tuple[date, str, str]] = {*rule_dyads, (late_day, "USA", late_object)}

    def dyad(day: date, first: str | None = None) -> tuple[str, str]:
        while True:
            subject, obj = rng.sample(countries, 2)
            subject = first or subject
            if subject != obj and (day, subject, obj) not in used:
                used.add((day, subject, obj))
                return subject, obj

    def add_all(events: list[Event], added: date | None = None) -> None:
        for event in events:
            builder.add(event, added=added)

    # Candidate groups: 5 per day, each relation quad > 50 mentions, the group >= 100 from >= 5 URLs.
    groups: list[tuple[date, str, str, list[str]]] = []
    for index in range(30):
        day = d[index % len(d)]
        subject, obj = dyad(day, "ROM" if index == 7 else None)
        first = rng.choice(by_root[root_cycle[index]])
        shape = rng.choice((1, 2, 2, 3))
        relations = [first, *rng.sample([r for r in RELATIONS if r[:2] != first[:2]], shape - 1)]
        events: list[Event] = []
        groups.append((day, subject, obj, relations))
        if shape == 1:
            events += builder.quad(day, subject, obj, first, rng.randint(100, 170), rng.randint(5, 7))
        else:
            for relation in relations:
                events += builder.quad(day, subject, obj, relation, rng.randint(52, 95), rng.randint(2, 4))
            if len(events) < 5:
                events += builder.quad(day, subject, obj, relations[-1], rng.randint(52, 70), 5 - len(events))
        if index % 4 == 1:  # a relation too rare to be an answer
            low = rng.choice([r for r in RELATIONS if r not in relations])
            events += builder.quad(day, subject, obj, low, rng.randint(6, 40), rng.randint(1, 2))
        if index == 3:  # the same article twice, once with a tracking parameter: one canonical URL
            twin = events[0]
            events.append(Event(day, subject, obj, twin.relation, 9, twin.url + "?utm_source=rss"))
        corpus_url = CORPUS_URLS.get(day.isoformat())
        if corpus_url and index < len(d):  # the first group of each such day
            events[0].url = corpus_url
        add_all(events)

    # ">=" versus ">": quads of exactly 50 and 55 mentions, six URLs.
    s, o = dyad(d[2])
    add_all(builder.quad(d[2], s, o, "043", 50, 3) + builder.quad(d[2], s, o, "057", 55, 3))
    # Near misses: 120 mentions but 4 URLs; 99 mentions from 6 URLs.
    s, o = dyad(d[3])
    add_all(builder.quad(d[3], s, o, "190", 120, 4))
    s, o = dyad(d[4])
    add_all(builder.quad(d[4], s, o, "036", 99, 6))

    # Cleaning rules. A GlobalEventID exported twice (the second copy in a later slot of the same day).
    two_slots = next(day for day in d if len(builder.slots[day]) == 2)
    builder.slots[two_slots][1].events.append(builder.slots[two_slots][0].events[0])
    # Reported late: a heavy group whose Day is the day before its DATEADDED, and a year-old event.
    add_all(builder.quad(late_day, "USA", late_object, "112", 140, 6), added=d[1])
    old_day = d[2] - timedelta(days=365)
    add_all([Event(old_day, "GBR", "FRA", "042", 4, builder.url(d[2], "GBR", "FRA", "042"))], added=d[2])
    # A SOURCEURL cited again on a later day, as the only article of a 60-mention quad.
    reused_url = builder.slots[d[0]][0].events[1].url
    add_all([Event(d[3], "IND", "PAK", "111", 60, reused_url)])
    # Actors without a country; the same country on both sides; regional actors; an uncoded event.
    add_all(builder.quad(d[1], "USA", "", "173", 90, 3) + builder.quad(d[1], "", "IRN", "042", 70, 3))
    add_all(builder.quad(d[2], "USA", "USA", "112", 150, 6) + builder.quad(d[4], "EUR", "RUS", "036", 130, 5))
    add_all(builder.quad(d[5], "AFR", "CHN", "042", 110, 5) + builder.quad(d[3], "RUS", "UKR", "---", 95, 5))

    # Background: events with few mentions, a sixth of them about the day before.
    for _ in range(60):
        day = rng.choice(d)
        event_day = day - timedelta(days=rng.choice([0, 0, 0, 0, 0, 1]))
        subject, obj = rng.choice(countries), rng.choice([*countries, ""])
        if (event_day, subject, obj) in used:
            continue
        relation = rng.choice(sorted(RELATIONS))
        url = builder.url(day, subject, obj, relation)
        add_all([Event(event_day, subject, obj, relation, rng.randint(1, 12), url)], added=day)
    add_history(builder, history_rng, groups, used)
    # Lines the ingest must reject or repair, in the third file of 2025-05.
    if month == "2025-05":
        slot = [slot for day in d for slot in builder.slots[day]][2]
        for damage in ("cut", "bad_mentions", "latin1"):
            day = slot.stamp.date()
            url = builder.url(day, "FRA", "DEU", "042")
            slot.events.append(Event(day, "FRA", "DEU", "042", 3, url, damage=damage))
    return [slot for day in d for slot in builder.slots[day]]


def assign_ids(months: list[list[Slot]]) -> None:
    """GlobalEventIDs increase with DATEADDED, as GDELT's do; a repeated Event object keeps its id."""
    next_id = 1_241_000_001
    for slots in months:
        for slot in slots:
            for event in slot.events:
                if not event.global_id:
                    event.global_id = next_id
                    next_id += 1


def write_slot(rng: random.Random, history_rng: random.Random, slot: Slot) -> dict[str, bytes]:
    stamp = slot.stamp.strftime("%Y%m%d%H%M%S")
    events = sorted(slot.events, key=lambda e: e.global_id)
    export = b"".join(export_line(history_rng if e.history else rng, e, slot.stamp) for e in events)
    mentions = [
        line for e in events for line in mention_lines(history_rng if e.history else rng, e, slot.stamp)
    ]
    if any(event.damage for event in events):
        mentions.append("\t".join(mentions[0].split("\t")[:15]))  # a mentions row with 15 fields
    mentions_bytes = ("\n".join(mentions) + "\n").encode()
    return {
        f"{stamp}.export.CSV.zip": zipped(f"{stamp}.export.CSV", export, slot.stamp),
        f"{stamp}.mentions.CSV.zip": zipped(f"{stamp}.mentions.CSV", mentions_bytes, slot.stamp),
    }


def master_line(name: str, data: bytes) -> str:
    return f"{len(data)} {hashlib.md5(data, usedforsecurity=False).hexdigest()} {BASE_URL}{name}"


def build(out: Path) -> dict[str, bytes]:
    rng = random.Random(SEED)
    history_rng = random.Random(HISTORY_SEED)
    months = [build_month(month, rng, history_rng) for month in MONTH_DATES]
    assign_ids(months)
    files: dict[str, bytes] = {}
    for slots in months:
        for slot in slots:
            files.update(write_slot(rng, history_rng, slot))
    # Lines that must be ignored: other months and GKG files (their bytes are not shipped).
    ignored: dict[str, bytes] = {}
    for stamp in ("20250228234500", "20250331234500"):
        ignored[f"{stamp}.export.CSV.zip"] = zipped(f"{stamp}.export.CSV", b"", datetime(2025, 3, 31))
        ignored[f"{stamp}.mentions.CSV.zip"] = zipped(f"{stamp}.mentions.CSV", b"", datetime(2025, 3, 31))
    for slots in months:
        stamp = slots[0].stamp.strftime("%Y%m%d%H%M%S")
        ignored[f"{stamp}.gkg.csv.zip"] = zipped(f"{stamp}.gkg.csv", b"", slots[0].stamp)
    order = {"export": 0, "mentions": 1, "gkg": 2}
    names = sorted({**files, **ignored}, key=lambda n: (n[:14], order[n.split(".")[1]]))
    lines = [master_line(name, files.get(name) or ignored[name]) for name in names]
    lines.insert(1, "")  # blank line
    lines.insert(3, f"{BASE_URL}20250331233000.export.CSV.zip")  # garbled: no size or MD5
    target = out / "files"
    target.mkdir(parents=True, exist_ok=True)
    for stale in target.glob("*.zip"):
        stale.unlink()
    for name, data in sorted(files.items()):
        (target / name).write_bytes(data)
    (out / "masterfilelist.txt").write_text("\n".join(lines) + "\n", encoding="ascii")
    for note in build_pages(months, out):
        print(note)
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("data/raw/sample/gdelt"))
    args = parser.parse_args()
    files = build(args.out)
    total = sum(len(data) for data in files.values())
    print(f"wrote {len(files)} files ({total} bytes) and masterfilelist.txt to {args.out}")


if __name__ == "__main__":
    main()
