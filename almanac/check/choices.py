"""Released rows of the multiple-choice styles as :class:`~almanac.check.shortcuts.ChoiceTask` records."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from almanac.check.dates import as_day
from almanac.check.shortcuts import ChoiceTask


def openforecast_tasks(rows: Iterable[Mapping[str, Any]]) -> list[ChoiceTask]:
    """The MCNC, MCAC (four options) and VQA (yes/no) rows of an OpenForecast release."""
    tasks = []
    for row in rows:
        kind = row.get("task")
        if kind not in ("mcnc", "mcac", "vqa"):
            continue
        shown = ChoiceTask(
            item_id=str(row["sample_id"]),
            group=f"openforecast/{kind}",
            options=(),
            gold=0,
            title=str(row.get("ce_title") or ""),
            background=tuple(str(event.get("text") or "") for event in row.get("background") or ()),
            cut=as_day(row.get("cut_date")),
        )
        if kind == "vqa":
            gold = 0 if row.get("label") == "Yes" else 1
            candidate = (str(row.get("candidate")),)
            tasks.append(dataclasses.replace(shown, options=candidate, gold=gold, binary=True))
        else:
            options = tuple(str(option) for option in row.get("options") or ())
            index = row.get("answer_index")
            if len(options) >= 2 and isinstance(index, int) and 0 <= index < len(options):
                tasks.append(dataclasses.replace(shown, options=options, gold=index))
    return tasks


def futurex_tasks(rows: Iterable[Mapping[str, Any]]) -> list[ChoiceTask]:
    """FutureX Level-1 rows (one answer among two or three options). Level 2 has several right options,
    so a one-pick rule does not apply; Levels 3 and 4 have no options."""
    tasks = []
    for row in rows:
        options = tuple(str(option) for option in row.get("options") or ())
        answers = [str(answer) for answer in row.get("answers") or ()]
        if row.get("level") != 1 or len(answers) != 1 or answers[0] not in options:
            continue
        background = row.get("background")
        tasks.append(
            ChoiceTask(
                item_id=str(row["question_id"]),
                group="futurex/level1",
                options=options,
                gold=options.index(answers[0]),
                title=str(row.get("question") or ""),
                background=(background,) if isinstance(background, str) and background else (),
                cut=as_day(row.get("information_cutoff")),
            )
        )
    return tasks
