"""Each style's released rows as ``ReleasedRow``s, the shape the cross-style near-duplicate test reads.

Which rows count, per style: OpenForesight and FutureSim questions (split as released), OpenForecast
AQA, MCAC and MCNC samples (the tasks with one gold answer: the asked argument's value, or the gold
event's text; STF/LTF targets and VQA candidates repeat the same events), MIRAI queries (test only: the
paper releases no train split) and FutureX tier questions (an evaluation set: test).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from almanac.crossstyle.near_duplicates import ReleasedRow

Row = Mapping[str, Any]
OPENFORECAST_TASKS = ("aqa", "mcac", "mcnc")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def foresight_row(row: Row, style: str = "openforesight") -> ReleasedRow:
    """An OpenForesight question, or a FutureSim one (``style="futuresim"``: the same record shape)."""
    url = _text(row.get("url"))
    return ReleasedRow(
        style=style,
        split=str(row.get("split") or "test"),
        row_id=str(row["question_id"]),
        question=_text(row.get("question_title")),
        answer=_text(row.get("answer")),
        event=_text(row.get("article_title")),
        urls=(url,) if url else (),
    )


def openforecast_row(row: Row) -> ReleasedRow | None:
    task = str(row.get("task") or "")
    if task not in OPENFORECAST_TASKS:
        return None
    target = row.get("target") or {}
    event = _text(target.get("text")) if isinstance(target, Mapping) else ""
    if task == "mcnc":
        options, index = list(row.get("options") or ()), int(row.get("answer_index") or 0)
        answer = str(options[index]) if 0 <= index < len(options) else ""
        question = ""
    else:
        answer, question = _text(row.get("answer")), _text(row.get("question"))
    return ReleasedRow(
        style="openforecast",
        split=str(row.get("split") or "test"),
        row_id=str(row["sample_id"]),
        question=question,
        answer=answer,
        event=f"{event} {_text(row.get('ce_title'))}".strip(),
    )


def mirai_row(row: Row) -> ReleasedRow:
    answers = [str(answer) for answer in row.get("answers") or ()]
    return ReleasedRow(
        style="mirai",
        split="test",
        row_id=str(row["query_id"]),
        question=_text(row.get("query")),
        answer=", ".join(answers),
        event=f"{row.get('subject')} {row.get('object')} {row.get('date')}",
        urls=tuple(str(url) for url in row.get("urls") or ()),
    )


def futurex_row(row: Row, row_id_column: str = "question_id") -> ReleasedRow:
    """A FutureX tier question, or a candidate event (``row_id_column="event_id"``) before its tier."""
    answers = [str(answer) for answer in row.get("answers") or ()]
    source = _text(row.get("resolution_source"))
    return ReleasedRow(
        style="futurex",
        split="test",
        row_id=str(row[row_id_column]),
        question=_text(row.get("question")),
        answer="; ".join(answers),
        urls=(source,) if source.startswith(("http://", "https://")) else (),
    )
