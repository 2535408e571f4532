"""``almanac import openforesight``: someone else's released questions -> the project's split layout.

Reads records in OpenForesight's released shape (JSONL, or Parquet such as ``almanac publish``
writes) and writes ``<out>/splits/<split>/<resolution month>.parquet`` with the project's released
columns, ``<out>/questions/<split>.parquet`` with the full stage schema (so the filters can run on
it), ``<out>/rejects/<split>.parquet`` and ``<out>/metrics/<split>.json``; one file per split, so
importing a train file and a test file into the same folder builds both. Every input record is either
imported or rejected with a reason.

Released data is messy: dates written as "UNKNOWN", answer types in several spellings ("Person",
"person name", "String (Name)"), HTML in the resolution criteria, a start date only inside the
background ("Question Start Date: 10th January 2016."). Markup is turned into plain text because a
tag inside an answer ("Bob <b>Dylan</b>") would hide it from the checker's whole-word leak scan.
"""

from __future__ import annotations

import html
import json
import re
import shutil
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.io import write_json, write_month_partitions, write_parquet
from almanac.core.lazy import lazy_module
from almanac.core.rejects import StageLedger
from almanac.core.schemas import REJECT_SCHEMA, table_from_rows
from almanac.core.step import Drop, Step, apply_step
from almanac.foresight.answer_types import declared_answer_class, normalise_answer_type
from almanac.foresight.date_parsing import DateInterval, parse_date_interval, parse_question_date
from almanac.foresight.schema import QUESTION_SCHEMA, RELEASED_COLUMNS
from almanac.foresight.split import SPLITS

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

STAGE = "import_openforesight"
GENERATOR_PROMPT = "import:openforesight"  # in place of "<prompt version>:<hash>"
UNKNOWN_GENERATOR = "unknown"
TEXT_FIELDS = ("question_title", "background", "resolution_criteria", "answer", "url")
_UNKNOWN_VALUES = frozenset(("", "unknown", "n/a", "na", "none", "null", "nan", "tbd", "?"))
_TAG = re.compile(r"<\s*/?\s*[a-zA-Z][^<>]*>")
_BREAK = re.compile(r"<\s*(?:br|/p|/li|/ul|/ol|/div|/h\d|li|p|ul|ol|div)\b[^<>]*>", re.IGNORECASE)
_START_LABEL = re.compile(r"question\s+start\s+date\s*:\s*([^\n]+)", re.IGNORECASE)


class ImportReject(ValueError):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class ImportResult:
    out_dir: Path
    imported: int
    ledger: StageLedger
    files: list[Path] = field(default_factory=list)

    def summary(self) -> str:
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.ledger.rejected_by_reason.items())
        rejected = (
            f"; {self.ledger.rejected} rejected ({reasons})" if self.ledger.rejected else "; 0 rejected"
        )
        return (
            f"imported {self.imported} of {self.ledger.items_in} records into {len(self.files)} split "
            f"file(s) under {self.out_dir / 'splits'}{rejected}"
        )


def html_to_text(text: str) -> str:
    """Plain text of a field written in HTML; text without tags is returned unchanged."""
    if not _TAG.search(text):
        return text
    broken = _BREAK.sub("\n", text)
    plain = html.unescape(_TAG.sub("", broken))
    lines = (" ".join(line.split()) for line in plain.splitlines())
    return "\n".join(line for line in lines if line)


def _is_unknown(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _UNKNOWN_VALUES)


def parse_day(value: Any) -> date | None:
    """A day from a released date value: a date, a timestamp, ISO text or prose ("10th January 2016").

    Timestamps count in UTC. Returns None when the value is not one unambiguous day ("May 2025").
    """
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.tzinfo else value).date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return parse_question_date(value)
    return None


def parse_interval(value: Any) -> DateInterval | None:
    """Like ``parse_day``, but text may also name a whole month ("July 2025") or year ("2025")."""
    day = parse_day(value)
    if day is not None:
        return DateInterval(day, day, "day")
    return parse_date_interval(value) if isinstance(value, str) else None


def _required_interval(record: Mapping[str, Any], name: str, days_only: bool = False) -> DateInterval:
    raw = record.get(name)
    if name not in record:
        raise ImportReject(f"{name}_missing", f"the record has no {name}")
    if _is_unknown(raw):
        raise ImportReject(f"{name}_unknown", f"{name} is {raw!r}")
    interval = parse_interval(raw)
    if interval is None or (days_only and interval.precision != "day"):
        raise ImportReject(f"{name}_unparseable", f"{name} {raw!r} is not one calendar day")
    return interval


def start_date(record: Mapping[str, Any], background: str) -> tuple[DateInterval, str]:
    """The question start date, from its own field or else the background's "Question Start Date:" line."""
    raw = record.get("question_start_date")
    if not _is_unknown(raw):
        interval = parse_interval(raw)
        if interval is None:
            raise ImportReject(
                "question_start_date_unparseable", f"question_start_date {raw!r} is not a date"
            )
        return interval, str(raw)
    match = _START_LABEL.search(background)
    if match:
        line = match.group(1).strip()
        # The date ends at the first full stop that parses ("10th January 2016. The prize ...").
        pieces = line.split(". ")
        for count in range(1, len(pieces) + 1):
            candidate = ". ".join(pieces[:count])
            interval = parse_date_interval(candidate)
            if interval is not None:
                return interval, candidate
    raise ImportReject(
        "question_start_date_unknown",
        f"question_start_date is {raw!r} and the background has no readable 'Question Start Date:' line",
    )


def _text(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ImportReject(f"{name}_missing", f"{name} is {value!r}")
    return html_to_text(value.strip())


def question_from_record(record: Any) -> dict[str, Any]:
    """One QUESTION_SCHEMA row (split unset) from a released record, or ImportReject."""
    if not isinstance(record, dict):
        raise ImportReject("not_an_object", f"a record must be a JSON object, got {type(record).__name__}")
    text = {name: _text(record, name) for name in TEXT_FIELDS}
    resolution = _required_interval(record, "resolution_date")
    # The checker compares the article's day with both question dates, so it must be one day.
    published = _required_interval(record, "article_publish_date", days_only=True).first
    start, start_text = start_date(record, text["background"])
    raw_type = record.get("answer_type")
    answer_type = normalise_answer_type(raw_type if isinstance(raw_type, str) else "")
    article_id = record.get("article_id")
    if not isinstance(article_id, str) or not article_id.strip():
        # Released records carry no article text, so the project's id (url + text) cannot be remade.
        article_id = content_id(canonical_url(text["url"]))
    news_source = record.get("news_source")
    leak = record.get("cross_question_leak")
    return {
        "question_id": content_id(article_id, text["question_title"], text["answer"]),
        "article_id": article_id,
        "month": published.strftime("%Y-%m"),
        "url": text["url"],
        "article_title": html_to_text(str(record["article_title"])) if record.get("article_title") else None,
        "article_publish_date": datetime(published.year, published.month, published.day, tzinfo=UTC),
        "news_source": news_source
        if isinstance(news_source, str) and news_source
        else source_domain(text["url"]),
        "candidate_index": 0,
        "question_title": text["question_title"],
        "background": text["background"],
        "resolution_criteria": text["resolution_criteria"],
        "answer": text["answer"],
        "answer_type": answer_type,
        "question_start_date_text": start_text,
        "resolution_date_text": str(record["resolution_date"]),
        "generator_model": str(record.get("generator_model") or UNKNOWN_GENERATOR),
        "generator_prompt": GENERATOR_PROMPT,
        "validator_model": str(record["validator_model"]) if record.get("validator_model") else None,
        "leakage_edited": None,
        "answer_class": declared_answer_class(text["answer"], answer_type),
        # Leak-free ends of a month or year: the forecaster's "today" is its first day (knowing less),
        # the question resolves on its last day (as the dates stage does with "by July 2025").
        "question_start_date": start.first,
        "resolution_date": resolution.last,
        "resolution_date_clamped": None,
        "cross_question_leak": leak if isinstance(leak, bool) else False,
        "split": None,
        "question_start_date_text_precision": start.precision,
        "resolution_date_text_precision": resolution.precision,
    }


def read_records(path: Path) -> Iterator[tuple[str, Any | ImportReject]]:
    """(source, record or reject) per input record: ``name:line`` for JSONL, ``name:row`` for Parquet."""
    if path.suffix == ".parquet":
        for number, row in enumerate(pq.read_table(path).to_pylist(), start=1):
            yield f"{path.name}:{number}", row
        return
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue  # a blank line is no record
            try:
                yield f"{path.name}:{number}", json.loads(line)
            except json.JSONDecodeError as error:
                yield f"{path.name}:{number}", ImportReject("malformed_json", f"not JSON: {error.msg}")


def import_openforesight(path: Path, out_dir: Path, split: str = "test") -> ImportResult:
    """Import ``path`` as ``split``; writes splits, the full question table, rejects and metrics."""
    if split not in SPLITS:
        raise ValueError(f"--split must be one of {SPLITS}, got {split!r}")
    ledger = StageLedger(STAGE)
    seen: dict[str, str] = {}
    per_article: Counter[str] = Counter()

    def decide(entry: tuple[str, dict[str, Any] | ImportReject]) -> dict[str, Any] | Drop:
        source, record = entry
        try:
            if isinstance(record, ImportReject):
                raise record
            row = question_from_record(record)
        except ImportReject as reject:
            return Drop(reject.reason, reject.detail)
        # Streamed, so the first copy of a question is the one kept (a group rule read in file order).
        if row["question_id"] in seen:
            detail = f"same article, title and answer as {seen[row['question_id']]}"
            return Drop("duplicate_question", detail, row["question_id"], item_id=row["question_id"])
        seen[row["question_id"]] = source
        row["candidate_index"] = per_article[row["article_id"]]
        per_article[row["article_id"]] += 1
        row["split"] = split
        return row

    step = Step(decide, lambda entry: content_id(entry[0]), lambda entry: entry[0])
    rows = apply_step(read_records(path), step, ledger)
    ledger.check_balance()

    rows.sort(key=lambda r: (r["resolution_date"], r["question_id"]))
    questions = pa.Table.from_pylist(rows, schema=QUESTION_SCHEMA)
    write_parquet(questions, out_dir / "questions" / f"{split}.parquet")
    released = questions.select(list(RELEASED_COLUMNS))
    months = pc.strftime(released.column("resolution_date").cast(pa.timestamp("s")), format="%Y-%m")
    released = released.append_column("resolution_month", months)
    split_dir = out_dir / "splits" / split
    if released.num_rows:
        write_month_partitions(released, split_dir, None, "resolution_month", False)
    elif split_dir.exists():
        shutil.rmtree(split_dir)  # a re-import with no valid rows must not leave the old files behind
    reject_rows = [
        {
            "id": r.id,
            "stage": r.stage,
            "reason": r.reason,
            "detail": r.detail,
            "source": r.source,
            "related_id": r.related_id,
        }
        for r in ledger.rejects
    ]
    write_parquet(table_from_rows(reject_rows, REJECT_SCHEMA), out_dir / "rejects" / f"{split}.parquet")
    write_json(
        {
            "source": path.name,
            "split": split,
            "items_in": ledger.items_in,
            "items_out": ledger.items_out,
            "rejected_by_reason": ledger.rejected_by_reason,
        },
        out_dir / "metrics" / f"{split}.json",
    )
    files = sorted(split_dir.glob("*.parquet")) if released.num_rows else []
    return ImportResult(out_dir, len(rows), ledger, files)
