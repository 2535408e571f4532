"""GDELT 2.0 lines for the bundled sample: the 61 export fields and 16 mentions fields of an invented event.

Facts (CAMEO codes, Goldstein values, FIPS geo blocks) come from ``tables.json``; the scenario that
decides which events exist is ``scripts/build_gdelt_sample.py``.
"""

from __future__ import annotations

import io
import json
import random
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

TABLES = json.loads((Path(__file__).parent / "tables.json").read_text(encoding="utf-8"))
# CAMEO code: [actor name, geo name, FIPS 10-4 code, latitude, longitude] as GDELT writes them.
COUNTRIES: dict[str, list[Any]] = TABLES["countries"]
REGIONAL: dict[str, str] = TABLES["regional"]  # CAMEO region codes: actors, but no country
# Second-level relation -> [[event code as exported, Goldstein value GDELT assigns to it], ...].
RELATIONS: dict[str, list[list[Any]]] = TABLES["relations"]
SLUG_WORDS: dict[str, str] = TABLES["slug_words"]  # root -> a headline word for invented URLs
OUTLETS: list[str] = TABLES["outlets"]
MONTH_DATES: dict[str, list[str]] = TABLES["month_dates"]
# Articles of the bundled CC-News sample (data/articles), cited on their publication day.
CORPUS_URLS: dict[str, str] = TABLES["corpus_urls"]
UNCODED = ("---", "---", "--")  # EventCode, EventBaseCode, EventRootCode of an event CAMEO could not type


def quad_class(root: str) -> int:
    number = int(root)
    return 1 if number <= 5 else 2 if number <= 9 else 3 if number <= 14 else 4


@dataclass
class Event:
    day: date
    subject: str  # CAMEO country or region code; "" = an actor without a country
    obj: str
    relation: str  # EventBaseCode, or "---" for an uncoded event
    mentions: int
    url: str
    global_id: int = 0
    damage: str = ""  # "cut" | "bad_mentions" | "latin1": written as a malformed line
    fields: list[str] = field(default_factory=list)  # once drawn, so a re-exported event repeats them
    history: bool = False  # an earlier quad of a candidate's pair: its fields come from the history RNG


@dataclass
class Slot:
    """One 15-minute export file of the sample and the events it holds."""

    stamp: datetime
    events: list[Event] = field(default_factory=list)


def actor(rng: random.Random, code: str, relation: str) -> list[str]:
    """The ten Actor fields: Code, Name, CountryCode, KnownGroup, Ethnic, Religion1/2, Type1/2/3."""
    if not code:
        kind = rng.choice(["GOV", "MIL", "BUS", "CVL"])
        names = {"GOV": "GOVERNMENT", "MIL": "SOLDIER", "BUS": "COMPANY", "CVL": "CIVILIAN"}
        return [kind, names[kind], "", "", "", "", "", kind, "", ""]
    name = COUNTRIES[code][0] if code in COUNTRIES else REGIONAL[code]
    conflict = relation[:2] in ("15", "17", "18", "19", "20")
    kind = rng.choice(["MIL", "MIL", ""] if conflict else ["GOV", "GOV", "", "", "BUS"])
    return [code + kind, name, code, "", "", "", "", kind, "", ""]


def geo(code: str) -> list[str]:
    """A country-level (type 1) geo block, or an empty one (type 0) for actors without a country."""
    if code not in COUNTRIES:
        return ["0", "", "", "", "", "", "", ""]
    _, name, fips, lat, lon = COUNTRIES[code]
    return ["1", name, fips, fips, "", f"{lat:g}", f"{lon:g}", fips]


def event_fields(rng: random.Random, event: Event, added: datetime) -> list[str]:
    if not event.fields:
        event.fields = draw_event_fields(rng, event)
    return [*event.fields[:-2], added.strftime("%Y%m%d%H%M%S"), event.fields[-1]]


def draw_event_fields(rng: random.Random, event: Event) -> list[str]:
    if event.relation == "---":
        code, base, root = UNCODED
        goldstein, quad = 0.0, 1  # not in CAMEO: no class of its own; rows are dropped by gdelt_clean
    else:
        code, goldstein = rng.choice(RELATIONS[event.relation])
        base, root = event.relation, event.relation[:2]
        quad = quad_class(root)
    sources = max(1, event.mentions // rng.randint(2, 6))
    tone = rng.uniform(-9.0, 1.5) if quad >= 3 else rng.uniform(-3.0, 5.0)
    fraction = event.day.year + ((event.day.month - 1) * 30 + event.day.day) / 365
    action = event.obj if event.obj in COUNTRIES and rng.random() < 0.5 else event.subject
    return [
        str(event.global_id),
        event.day.strftime("%Y%m%d"),
        event.day.strftime("%Y%m"),
        str(event.day.year),
        f"{fraction:.4f}",
        *actor(rng, event.subject, event.relation),
        *actor(rng, event.obj, event.relation),
        rng.choice(["1", "1", "0"]),
        code,
        base,
        root,
        str(quad),
        f"{goldstein:.1f}",
        str(event.mentions),
        str(sources),
        str(event.mentions),
        repr(round(tone, 12)),
        *geo(event.subject),
        *geo(event.obj),
        *geo(action),
        "",  # DATEADDED: set per file
        event.url,
    ]


def mention_lines(rng: random.Random, event: Event, added: datetime) -> list[str]:
    """The article that first reported the event, and for some events a second one (a subset of the
    NumMentions mentions: real mentions files list every one)."""
    lines = []
    count = 2 if rng.random() < 0.25 else 1
    for number in range(count):
        url = event.url if number == 0 else f"https://{rng.choice(OUTLETS)}/wire/{event.global_id}-{number}"
        source = url.split("/")[2].removeprefix("www.")
        doc_len = rng.randint(900, 9000)
        fields = [
            str(event.global_id),
            added.strftime("%Y%m%d%H%M%S"),
            added.strftime("%Y%m%d%H%M%S"),
            "1",  # web
            source,
            url,
            str(rng.randint(1, 12)),
            str(rng.randint(0, doc_len // 2)),
            str(rng.randint(0, doc_len // 2)) if event.obj else "-1",
            str(rng.randint(0, doc_len // 2)),
            rng.choice(["1", "1", "0"]),
            str(rng.choice([10, 20, 30, 50, 70, 100])),
            str(doc_len),
            repr(round(rng.uniform(-8.0, 4.0), 12)),
            "",
            "",
        ]
        lines.append("\t".join(fields))
    return lines


def zipped(member: str, data: bytes, stamp: datetime) -> bytes:
    info = zipfile.ZipInfo(member, date_time=stamp.timetuple()[:6])
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o644 << 16
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr(info, data, compresslevel=9)
    return out.getvalue()


def export_line(rng: random.Random, event: Event, added: datetime) -> bytes:
    fields = event_fields(rng, event, added)
    if event.damage == "cut":
        fields = fields[:44]  # a row cut short
    elif event.damage == "bad_mentions":
        fields[31] = "1O"  # NumMentions with a letter O for a zero
    elif event.damage == "latin1":  # a URL with a Latin-1 byte, not UTF-8
        return "\t".join(fields[:-1]).encode() + b"\thttps://www.lavoixdunord.example/actualit\xe9s/sommet\n"
    return ("\t".join(fields) + "\n").encode()
