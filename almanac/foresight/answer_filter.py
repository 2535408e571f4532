"""Answer-type filter: normalise the declared type, verify it, classify the answer, keep allowed classes."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.foresight.answer_types import (
    AnswerTypeConfig,
    classify_answer,
    declared_answer_class,
    load_nlp,
    normalise_answer_type,
)
from almanac.foresight.records import article_source, question_id, questions_table
from almanac.foresight.type_check import ArticleEntities, article_entities, type_mismatch

STAGE = "foresight_answer_type"
CONTEXT_CHARS = 300


def answer_context(answer: str, article_text: str, fallback: str) -> str:
    """The stretch of the article around the answer's first mention: what NER needs, not the whole text."""
    position = article_text.lower().find(answer.lower())
    if position < 0:
        return fallback
    start = max(0, position - CONTEXT_CHARS)
    return article_text[start : position + len(answer) + CONTEXT_CHARS]


def filter_answer_types(
    questions: pa.Table, article_texts: dict[str, str], config: AnswerTypeConfig
) -> tuple[pa.Table, StageLedger]:
    ledger = StageLedger(STAGE)
    nlp = load_nlp(config.spacy_model)
    entities: dict[str, ArticleEntities] = {}  # one spaCy pass per article, not per question

    def decide(row: dict[str, Any]) -> dict[str, Any] | Drop:
        answer_type = normalise_answer_type(row["answer_type"])
        article_text = article_texts.get(row["article_id"], "")
        declared = declared_answer_class(row["answer"], answer_type)
        if declared is not None:
            if row["article_id"] not in entities:
                entities[row["article_id"]] = article_entities(article_text, nlp)
            mismatch = type_mismatch(row["answer"], declared, entities[row["article_id"]])
            if mismatch is not None:
                return Drop("answer_type_mismatch", f"declared {answer_type}: {mismatch}")
        context = answer_context(row["answer"], article_text, row["background"])
        answer_class = classify_answer(row["answer"], answer_type, context, nlp)
        if answer_class not in config.allowed_classes:
            detail = f"answer {row['answer']!r} ({answer_type}) classified as {answer_class}"
            return Drop(f"answer_class_{answer_class}", detail)
        return {**row, "answer_type": answer_type, "answer_class": answer_class}

    kept = apply_step(questions.to_pylist(), Step(decide, question_id, article_source), ledger)
    return questions_table(kept), ledger
