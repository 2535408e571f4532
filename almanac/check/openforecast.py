"""Invariants of released OpenForecast-style task splits (STF, LTF, AQA, MCNC, MCAC, VQA).

Rows are the split files' records plus ``_split_dir``. ``timelines`` maps a complex event id to its
released timeline (``events``) and ``documents`` maps it to the ids of the documents it was built from,
so every event a row shows traces to an event of its timeline and that event to a source document.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from rapidfuzz.fuzz import token_set_ratio

from almanac.check.choices import openforecast_tasks
from almanac.check.common import split_matches_folder, unique_ids
from almanac.check.dates import Interval, as_day, interval, parse_day
from almanac.check.report import StyleReport
from almanac.check.shortcuts import audit, hindsight_in, option_date
from almanac.check.text import fold
from almanac.core.date_mentions import dates_named
from almanac.core.hindsight import HINDSIGHT_WORDS

Row = Mapping[str, Any]
Event = Mapping[str, Any]


@dataclass(frozen=True)
class Windows:
    """Inclusive day windows of the three splits; train is open to the past."""

    train_end: date
    validation_start: date
    validation_end: date
    test_start: date
    test_end: date

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Windows:
        raw = ((params.get("event_tasks") or {}).get("split")) or {}
        names = ("train_end", "validation_start", "validation_end", "test_start", "test_end")
        return cls(*(parse_day(raw.get(name), f"event_tasks.split.{name}") for name in names))

    def bounds(self, split: str) -> tuple[date, date] | None:
        return {
            "train": (date.min, self.train_end),
            "validation": (self.validation_start, self.validation_end),
            "test": (self.test_start, self.test_end),
        }.get(split)

    def ordered(self) -> bool:
        return (
            self.train_end < self.validation_start <= self.validation_end < self.test_start <= self.test_end
        )


@dataclass(frozen=True)
class OptionRules:
    """params event_tasks.negatives.fuzzy_threshold, .hindsight_words and .shortcut_audit."""

    fuzzy_threshold: float = 80.0
    hindsight_words: tuple[str, ...] = HINDSIGHT_WORDS
    margin: float = 0.10
    min_samples: int = 20

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> OptionRules:
        section = params.get("event_tasks") or {}
        audit = section.get("shortcut_audit") or {}
        return cls(
            float((section.get("negatives") or {}).get("fuzzy_threshold", 80.0)),
            tuple(section.get("hindsight_words") or HINDSIGHT_WORDS),
            float(audit.get("margin", 0.10)),
            int(audit.get("min_samples", 20)),
        )


def check_openforecast(
    rows: Sequence[Row],
    windows: Windows,
    timelines: Mapping[str, Sequence[Event]],
    documents: Mapping[str, set[str]],
    scope: str = "all",
    rules: OptionRules | None = None,
) -> StyleReport:
    rules = rules or OptionRules()
    report = StyleReport("openforecast", scope, rows=len(rows))
    report.check(
        "split_windows_ordered",
        "train_end < validation_start <= validation_end < test_start <= test_end",
        [("event_tasks.split", None if windows.ordered() else "windows overlap or are out of order")],
    )
    report.check("ids_unique", "sample_id unique across tasks and splits", unique_ids(rows, "sample_id"))
    report.check(
        "split_matches_folder",
        "the row's split is the folder it was released in",
        split_matches_folder(rows, "sample_id"),
    )
    report.check("cut_in_split_window", "cut_date lies in its split's window", _cut_window(rows, windows))
    report.check("event_dates_are_intervals", "every shown event has a day, month or year date", _dated(rows))
    report.check(
        "background_before_cut", "every background event's interval ends before the cut", _background(rows)
    )
    report.check(
        "background_text_dates_before_cut",
        "no background event's text names a day or month that does not end before the cut",
        _background_mentions(rows),
    )
    report.check(
        "targets_inside_split_window",
        "every target's whole interval lies inside its split's window, on or after the cut's day",
        _targets(rows, windows),
    )
    report.check(
        "one_split_per_complex_event", "each complex event's samples are all in one split", _one_split(rows)
    )
    report.check(
        "events_traceable",
        "shown events are events of the complex event's timeline, from one of its documents",
        _traceable(rows, timelines, documents),
    )
    report.check(
        "options_consistent", "exactly the gold option sits at answer_index (MCNC, MCAC)", _options(rows)
    )
    report.check(
        "negatives_not_true_events",
        "no MCNC negative or VQA 'No' candidate is a true event of the timeline",
        _negatives(rows, timelines),
    )
    report.check(
        "negatives_not_reworded_true_events",
        "no MCNC negative or VQA 'No' candidate fuzzily matches an event of its own timeline "
        "(token-set ratio < event_tasks.negatives.fuzzy_threshold)",
        _reworded(rows, timelines, rules.fuzzy_threshold),
    )
    report.check(
        "mcac_options_same_side",
        "no MCAC option dated wholly before the cut (the gold would be the only one after it)",
        _same_side(rows),
    )
    report.check(
        "background_without_hindsight",
        "no background event uses hindsight wording (event_tasks.hindsight_words)",
        _hindsight(rows, rules.hindsight_words),
    )
    shortcuts = audit(openforecast_tasks(rows), rules.margin, rules.min_samples)
    report.check(
        "shortcut_baselines",
        f"no no-knowledge baseline above chance + {rules.margin:.0%} on >= {rules.min_samples} tasks",
        shortcuts.failures(),
    )
    report.notes.extend(shortcuts.lines())
    report.extra["shortcut_baselines"] = [score.row() for score in shortcuts.scores]
    report.check("vqa_traceable", "a VQA sample comes from a released MCNC sample of its split", _vqa(rows))
    return report


def _events_shown(row: Row) -> Iterator[tuple[str, Event]]:
    for event in row.get("background") or ():
        yield "background", event
    for event in row.get("targets") or ():
        yield "target", event
    if row.get("target"):
        yield "target", row["target"]


def _span(event: Event) -> Interval | None:
    return interval(event.get("date"), event.get("date_precision"))


def _cut_window(rows: Sequence[Row], windows: Windows) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        cut, bounds = as_day(row.get("cut_date")), windows.bounds(str(row.get("split")))
        if cut is None or bounds is None:
            yield row["sample_id"], f"cut {row.get('cut_date')!r}, split {row.get('split')!r}"
        elif not bounds[0] <= cut <= bounds[1]:
            yield row["sample_id"], f"cut {cut} outside {row['split']}"
        else:
            yield row["sample_id"], None


def _dated(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        bad = [
            f"{role} {event.get('date')!r}/{event.get('date_precision')!r}"
            for role, event in _events_shown(row)
            if _span(event) is None
        ]
        yield row["sample_id"], "; ".join(bad[:3]) if bad else None


def _background(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        cut = as_day(row.get("cut_date"))
        late = [
            str(event.get("date"))
            for event in row.get("background") or ()
            if cut is None or (span := _span(event)) is None or span[1] >= cut
        ]
        yield row["sample_id"], f"background dated {late[:3]} not before cut {cut}" if late else None


def _background_mentions(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    """A background event dated before the cut may still quote a later date ("... signed on 20 June"):
    the named date, read with its precision (a month is its last day), must end before the cut too."""
    for row in rows:
        cut = as_day(row.get("cut_date"))
        late: list[str] = []
        for event in row.get("background") or ():
            span = _span(event)
            if cut is None or span is None:
                continue  # counted by event_dates_are_intervals / cut_in_split_window
            named = dates_named(str(event.get("text") or ""), span[0])
            late.extend(
                f"{event.get('event_id')}: {mention.text!r}" for mention in named if mention.last >= cut
            )
        yield row["sample_id"], f"names {late[:3]}, not before cut {cut}" if late else None


def _targets(rows: Sequence[Row], windows: Windows) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        bounds, cut = windows.bounds(str(row.get("split"))), as_day(row.get("cut_date"))
        bad = []
        for role, event in _events_shown(row):
            span = _span(event)
            if role != "target" or bounds is None or cut is None:
                continue
            if span is None or span[0] < bounds[0] or span[1] > bounds[1] or span[1] < cut:
                bad.append(str(event.get("date")))
        yield row["sample_id"], f"target dated {bad[:3]} outside {row.get('split')}" if bad else None


def _one_split(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    splits: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        splits[str(row["ce_id"])].add(str(row.get("split")))
    for ce_id, found in sorted(splits.items()):
        yield ce_id, f"in {sorted(found)}" if len(found) > 1 else None


def _event_key(event: Event) -> tuple[str, str, str, str]:
    return tuple(str(event.get(name)) for name in ("event_id", "text", "date", "date_precision"))  # type: ignore[return-value]


def _traceable(
    rows: Sequence[Row], timelines: Mapping[str, Sequence[Event]], documents: Mapping[str, set[str]]
) -> Iterator[tuple[str, str | None]]:
    keys = {ce_id: {_event_key(event): event for event in events} for ce_id, events in timelines.items()}
    for row in rows:
        known = keys.get(str(row["ce_id"]))
        if known is None:
            yield row["sample_id"], f"complex event {row['ce_id']} has no timeline"
            continue
        docs = documents.get(str(row["ce_id"]), set())
        unknown = [
            str(event.get("event_id"))
            for _, event in _events_shown(row)
            if _event_key(event) not in known or event.get("doc_id") not in docs
        ]
        yield (
            row["sample_id"],
            f"events {unknown[:3]} not in the timeline or its documents" if unknown else None,
        )


def _options(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        if row.get("task") not in ("mcnc", "mcac"):
            continue
        options, index = list(row.get("options") or []), row.get("answer_index")
        gold = row["target"]["text"] if row["task"] == "mcnc" else row.get("answer")
        if not isinstance(index, int) or not 0 <= index < len(options) or len(options) != 4:
            yield row["sample_id"], f"answer_index {index} of {len(options)} options"
        elif options[index] != gold or sum(fold(option) == fold(str(gold)) for option in options) != 1:
            yield row["sample_id"], "gold option not exactly once at answer_index"
        else:
            yield row["sample_id"], None


def _negatives(
    rows: Sequence[Row], timelines: Mapping[str, Sequence[Event]]
) -> Iterator[tuple[str, str | None]]:
    true_texts = {
        ce_id: {fold(str(event["text"])) for event in events} for ce_id, events in timelines.items()
    }
    for row in rows:
        texts = true_texts.get(str(row["ce_id"]), set())
        if row.get("task") == "mcnc":
            negatives = [option for i, option in enumerate(row["options"]) if i != row["answer_index"]]
        elif row.get("task") == "vqa" and row.get("label") == "No":
            negatives = [row["candidate"]]
        else:
            continue
        true = [negative for negative in negatives if fold(str(negative)) in texts]
        yield row["sample_id"], f"negative {true[0][:60]!r} is a true event" if true else None


def _vqa(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    mcnc = {row["sample_id"]: row for row in rows if row.get("task") == "mcnc"}
    for row in rows:
        if row.get("task") != "vqa":
            continue
        source = mcnc.get(row.get("mcnc_sample_id"))
        if source is None:
            yield row["sample_id"], f"MCNC sample {row.get('mcnc_sample_id')} not released"
        elif source["split"] != row.get("split"):
            yield row["sample_id"], f"its MCNC sample is in {source['split']}"
        elif row.get("label") not in ("Yes", "No"):
            yield row["sample_id"], f"label {row.get('label')!r}"
        elif (row["label"] == "Yes") != (row["candidate"] == source["target"]["text"]):
            yield row["sample_id"], f"label {row['label']} does not match the gold event"
        elif row["candidate"] not in source["options"]:
            yield row["sample_id"], "candidate is not an option of its MCNC sample"
        else:
            yield row["sample_id"], None


def _negative_options(row: Row) -> list[str]:
    if row.get("task") == "mcnc":
        return [str(option) for i, option in enumerate(row["options"]) if i != row["answer_index"]]
    if row.get("task") == "vqa" and row.get("label") == "No":
        return [str(row["candidate"])]
    return []


def _reworded(
    rows: Sequence[Row], timelines: Mapping[str, Sequence[Event]], threshold: float
) -> Iterator[tuple[str, str | None]]:
    texts = {ce_id: [fold(str(event["text"])) for event in events] for ce_id, events in timelines.items()}
    for row in rows:
        negatives = _negative_options(row)
        if not negatives:
            continue
        true = texts.get(str(row["ce_id"]), [])
        found = next(
            (
                f"{negative[:50]!r} ~ {text[:50]!r} ({score:.0f})"
                for negative in negatives
                for text in true
                if (score := token_set_ratio(fold(negative), text)) >= threshold
            ),
            None,
        )
        yield row["sample_id"], found


def _same_side(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        cut = as_day(row.get("cut_date"))
        if row.get("task") != "mcac" or cut is None:
            continue
        early = [str(o) for o in row.get("options") or () if (span := option_date(str(o))) and span[1] < cut]
        yield row["sample_id"], f"options {early[:3]} dated before the cut {cut}" if early else None


def _hindsight(rows: Sequence[Row], words: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        found = next(
            (
                f"{phrase!r} in {str(event.get('text'))[:60]!r}"
                for event in row.get("background") or ()
                if (phrase := hindsight_in(str(event.get("text") or ""), words))
            ),
            None,
        )
        yield row["sample_id"], found
