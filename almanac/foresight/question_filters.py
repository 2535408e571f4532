"""The question filter table of the OpenForesight recipe: rules that keep or reject one question on its
own fields, run in the ``foresight_answer_type`` stage right after the answer-type filter.

A new filter is one module defining a :class:`QuestionFilter` plus one entry in ``QUESTION_FILTERS``:
no new DVC stage, path or recipe step. Its rejects go to that stage's rejects file under the reasons
its ``decide`` returns, and its counts into that stage's row of the funnel (the step layer chains the
filters, so a question is counted in once). Its settings are the frozen dataclass ``config``, read from
``params.yaml`` ``foresight.question_filters.<name>``; that section is a params dep of the stage, so
editing a setting reruns it. Filters run in table order; a filter that needs the article text or a
model belongs in a stage of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

import pyarrow as pa

from almanac.core.params import parse_section
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.foresight.records import article_source, question_id, questions_table

C = TypeVar("C")
Question = dict[str, Any]


@dataclass(frozen=True)
class QuestionFilter(Generic[C]):
    name: str  # its params section under foresight.question_filters
    config: type[C]  # a frozen dataclass whose defaults are the paper's (or the filter's) choice
    decide: Callable[[Question, C], Question | Drop]  # the kept question, or why it is dropped


QUESTION_FILTERS: Final[tuple[QuestionFilter[Any], ...]] = ()


def apply_question_filters(
    questions: pa.Table,
    params: Mapping[str, Any],
    ledger: StageLedger,
    filters: tuple[QuestionFilter[Any], ...] = QUESTION_FILTERS,
) -> pa.Table:
    """Run ``filters`` in order over the questions a step of ``ledger``'s stage has already counted in.

    ``params`` is ``foresight.question_filters``; a section that names no filter is refused (a typo would
    otherwise leave a filter at its defaults without a word).
    """
    unknown = sorted(set(params) - {question_filter.name for question_filter in filters})
    if unknown:
        raise ValueError(f"params.yaml: foresight.question_filters has no filter named {unknown}")
    rows = questions.to_pylist()
    for question_filter in filters:
        config = parse_section(question_filter.config, params, question_filter.name)
        step = Step(_with_config(question_filter.decide, config), question_id, article_source)
        rows = apply_step(rows, step, ledger, chained=True)
    return questions_table(rows) if filters else questions


def _with_config(
    decide: Callable[[Question, C], Question | Drop], config: C
) -> Callable[[Question], Question | Drop]:
    return lambda question: decide(question, config)
