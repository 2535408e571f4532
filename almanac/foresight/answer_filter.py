"""Answer-type filter: normalise the declared type, classify the answer, keep the allowed classes."""

from __future__ import annotations

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.foresight.answer_types import AnswerTypeConfig, classify_answer, load_nlp, normalise_answer_type
from almanac.foresight.records import questions_table

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
    ledger = StageLedger(STAGE, items_in=questions.num_rows)
    nlp = load_nlp(config.spacy_model)
    kept = []
    for row in questions.to_pylist():
        answer_type = normalise_answer_type(row["answer_type"])
        context = answer_context(row["answer"], article_texts.get(row["article_id"], ""), row["background"])
        answer_class = classify_answer(row["answer"], answer_type, context, nlp)
        if answer_class not in config.allowed_classes:
            detail = f"answer {row['answer']!r} ({answer_type}) classified as {answer_class}"
            ledger.reject(
                row["question_id"], f"answer_class_{answer_class}", detail, f"article:{row['article_id']}"
            )
            continue
        kept.append({**row, "answer_type": answer_type, "answer_class": answer_class})
    ledger.items_out = len(kept)
    return questions_table(kept), ledger
