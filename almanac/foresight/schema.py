"""The question record that flows through every OpenForesight stage, and the released subset.

Each stage reads and writes ``QUESTION_SCHEMA``, filling the columns it owns (nullable until then),
so that any intermediate file can be inspected with the same tools as the final splits.
"""

from __future__ import annotations

import pyarrow as pa

from almanac.core.field_roles import Role
from almanac.core.schemas import TIMESTAMP

QUESTION_SCHEMA = pa.schema(
    [
        # identity and provenance (qgen)
        pa.field("question_id", pa.string(), nullable=False),  # content_id(article_id, title, answer)
        pa.field("article_id", pa.string(), nullable=False),
        pa.field("month", pa.string(), nullable=False),  # the article's publish month (the partition)
        pa.field("url", pa.string(), nullable=False),
        pa.field("article_title", pa.string()),
        pa.field("article_publish_date", TIMESTAMP, nullable=False),
        pa.field("news_source", pa.string(), nullable=False),
        pa.field("candidate_index", pa.int16(), nullable=False),  # position in the generator's answer
        # the question (qgen; background and resolution_criteria may be rewritten by leakage)
        pa.field("question_title", pa.string(), nullable=False),
        pa.field("background", pa.string(), nullable=False),
        pa.field("resolution_criteria", pa.string(), nullable=False),
        pa.field("answer", pa.string(), nullable=False),
        pa.field("answer_type", pa.string(), nullable=False),  # "string (name)" style, normalised later
        pa.field("question_start_date_text", pa.string(), nullable=False),  # as generated
        pa.field("resolution_date_text", pa.string(), nullable=False),
        pa.field("generator_model", pa.string(), nullable=False),
        pa.field("generator_prompt", pa.string(), nullable=False),  # "<version>:<content hash>"
        # qgen: why this candidate of the reply is unusable ("<reason>: <detail>"), None when it is fine;
        # the validate stage files it as a reject before any call, so its siblings are unaffected
        pa.field("candidate_problem", pa.string()),
        # later stages
        pa.field("validator_model", pa.string()),
        pa.field("leakage_edited", pa.bool_()),  # the editor rewrote background / criteria
        pa.field("answer_class", pa.string()),  # answer_type stage: name, location, organization, ...
        pa.field("question_start_date", pa.date32()),  # dates stage
        pa.field("resolution_date", pa.date32()),
        pa.field("resolution_date_clamped", pa.bool_()),
        pa.field("question_start_date_clamped", pa.bool_()),  # start moved to the day before the article
        pa.field("question_start_date_text_precision", pa.string()),  # day / month / year, as written
        pa.field("resolution_date_text_precision", pa.string()),  # "by July 2025" -> month
        pa.field("cross_question_leak", pa.bool_()),  # split stage: the answer appears in another question
        pa.field("split", pa.string()),  # split stage: train / validation / test
    ]
)

# What a published split holds, in this order (compatible with OpenForesight's released fields).
RELEASED_COLUMNS = (
    "question_id",
    "question_title",
    "background",
    "resolution_criteria",
    "answer",
    "answer_type",
    "answer_class",
    "question_start_date",
    "resolution_date",
    "url",
    "article_title",
    "article_publish_date",
    "news_source",
    "article_id",  # traces the row to its article in data/articles (and the published articles table)
    "split",
    "cross_question_leak",
    "generator_model",
    "validator_model",
)

# What a forecaster sees of a released OpenForesight row: the role of each column.
# Undeclared columns are provenance (almanac/core/field_roles.py).
FIELD_ROLES: dict[str, Role] = {
    # OpenForesight's forecaster prompt: the question, its background, how it resolves, and "today".
    "question_title": "prompt",
    "background": "prompt",
    "resolution_criteria": "prompt",
    "question_start_date": "prompt",
    "answer": "answer",
    "answer_type": "answer",
    "answer_class": "answer",
    # The day the outcome became known (clamped to the article date): it tells when the event
    # happened, so it is not shown; the deadline a forecaster needs is written in the title.
    "resolution_date": "answer",
    "question_id": "provenance",
    "url": "provenance",
    "article_title": "provenance",
    "article_publish_date": "provenance",
    "news_source": "provenance",
    "article_id": "provenance",
    "split": "provenance",
    "cross_question_leak": "provenance",
    "generator_model": "provenance",
    "validator_model": "provenance",
}
