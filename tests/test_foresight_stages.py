"""The OpenForesight generation stages with a real-looking LLM: qgen, validation and selection."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.foresight.generate import QgenConfig, generate_questions
from almanac.foresight.records import article_index
from almanac.foresight.select import select_best
from almanac.foresight.validate import JudgeConfig, validate_questions
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from tests.foresight_stage_llm import article, cache, llm_server, question_block
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.support.llm_server import Reply

__all__ = ["cache", "llm_server"]  # pytest fixtures used by name


def test_qgen_routes_prose_repairs_malformed_and_no_question(llm_server: Any, cache: LLMCache) -> None:
    def script(prompt: str, seen: int) -> Reply:
        if "(prose)" in prompt:
            return Reply(
                text="Here are my questions.\n"
                + question_block(
                    "Which city will host the 2027 Northern Games by June 10, 2025?", "Brennford"
                )
                + "\n"
                + question_block("Who will lead the federation by June 10, 2025?", "Ana Whitlock")
            )
        if "(fixable)" in prompt:  # malformed first (no answer tag), well-formed when asked to repair
            return (
                Reply(text="<question><question_title>Which city?</question_title></question>")
                if "could not be read" not in prompt
                else Reply(
                    text=question_block(
                        "Which city will host the 2027 Northern Games by June 10, 2025?", "Brennford"
                    )
                )
            )
        if "(broken)" in prompt:
            return Reply(text="I cannot answer in tags, sorry.")
        return Reply(text="<no_question>The article reports no forecastable event.</no_question>")

    server, llm = llm_server(script)
    articles = pa.Table.from_pylist(
        [article("prose"), article("fixable"), article("broken"), article("none")]
    )
    questions, ledger = generate_questions(articles, QgenConfig(questions_per_article=3), llm, cache)
    ledger.check_balance()
    assert ledger.items_out == 2 and questions.num_rows == 3
    assert ledger.rejected_by_reason == {"llm_malformed_output": 1, "no_question": 1}
    broken = next(r for r in ledger.rejects if r.reason == "llm_malformed_output")
    assert broken.id == content_id("broken") and "cannot answer in tags" in broken.detail  # raw text kept
    rows = questions.to_pylist()
    assert {r["answer"] for r in rows} == {"Brennford", "Ana Whitlock"}
    assert {r["generator_model"] for r in rows} == {"generator-model"}
    # The prompt version is recorded per question, including the repair round that rescued one answer.
    assert {r["generator_prompt"].split(":")[0] for r in rows} == {"2", "2+repair1"}
    calls = len(server.chat_bodies)
    generate_questions(articles, QgenConfig(questions_per_article=3), llm, cache)  # a rerun is free
    assert len(server.chat_bodies) == calls


def test_validation_verdict_is_read_from_its_tag_not_the_last_digit(llm_server: Any, cache: LLMCache) -> None:
    def script(prompt: str, seen: int) -> Reply:
        if "Who will lead" in prompt:
            return Reply(
                text="<reasons>Past event; 3 of 5 criteria hold, score 1</reasons><failed_criteria>forward_looking, single_answer</failed_criteria><verdict>invalid</verdict>"
            )
        return Reply(
            text="<reasons>Fine, 0 issues</reasons><failed_criteria>none</failed_criteria><verdict>valid</verdict>"
        )

    _, llm = llm_server(script)
    generator, _ = llm_server(
        lambda prompt, seen: Reply(
            text=question_block("Which city will host the 2027 Northern Games by June 10, 2025?", "Brennford")
            + question_block("Who will lead the federation by June 10, 2025?", "Ana Whitlock")
        )
    )
    source = article("one")
    candidates, _ = generate_questions(
        pa.Table.from_pylist([source]),
        QgenConfig(),
        LLMConfig(roles={"generator": remote_role(generator)}, prompts_dir=str(PROMPTS_DIR)),
        cache,
    )
    valid, ledger = validate_questions(
        candidates, article_index(pa.Table.from_pylist([source])), JudgeConfig(), llm, cache
    )
    ledger.check_balance()
    assert valid.column("answer").to_pylist() == ["Brennford"]
    assert valid.column("validator_model").to_pylist() == ["validator-model"]
    assert ledger.rejected_by_reason == {"invalid_forward_looking": 1}
    assert "single_answer" in ledger.rejects[0].detail


def test_one_bad_date_costs_only_its_own_candidate(llm_server: Any, cache: LLMCache) -> None:
    good = question_block("Which city will host the 2027 Northern Games by June 10, 2025?", "Brennford")
    monthly = question_block(
        "Which body will pick the host by June 2025?", "Northern Games Federation"
    ).replace("2025-06-10</resolution_date>", "June 2025</resolution_date>")
    unknown = question_block("Who will lead the federation by June 10, 2025?", "Ana Whitlock").replace(
        "2025-06-10</resolution_date>", "UNKNOWN</resolution_date>"
    )
    _, gen_llm = llm_server(lambda prompt, seen: Reply(text=good + unknown + monthly))
    validator, llm = llm_server(
        lambda prompt, seen: Reply(
            text="<reasons>ok</reasons><failed_criteria>none</failed_criteria><verdict>valid</verdict>"
        )
    )
    source = article("three")
    candidates, qgen_ledger = generate_questions(pa.Table.from_pylist([source]), QgenConfig(), gen_llm, cache)
    qgen_ledger.check_balance()
    assert candidates.num_rows == 3 and qgen_ledger.extra["candidates_with_problem"] == 1
    problems = {row["answer"]: row["candidate_problem"] for row in candidates.to_pylist()}
    assert problems["Ana Whitlock"] == "unknown_resolution_date: resolution date 'UNKNOWN'"
    assert problems["Brennford"] is None and problems["Northern Games Federation"] is None
    valid, ledger = validate_questions(
        candidates, article_index(pa.Table.from_pylist([source])), JudgeConfig(), llm, cache
    )
    ledger.check_balance()
    assert sorted(valid.column("answer").to_pylist()) == ["Brennford", "Northern Games Federation"]
    assert ledger.rejected_by_reason == {"unknown_resolution_date": 1}
    assert len(validator.chat_bodies) == 2  # the flagged candidate costs no call


def test_select_keeps_lone_questions_and_asks_only_for_contested_articles(
    llm_server: Any, cache: LLMCache
) -> None:
    contested, lone, hopeless = article("contested"), article("lone"), article("hopeless")

    def script(prompt: str, seen: int) -> Reply:
        if "(contested)" in prompt:
            return Reply(text="<reasons>The second is clearer.</reasons><best>1</best>")
        return Reply(text="<reasons>Neither is answerable.</reasons><best>none</best>")

    server, llm = llm_server(script)
    generator, _ = llm_server(
        lambda prompt, seen: Reply(
            text=question_block("Which city will host the 2027 Games by June 10, 2025?", "Brennford")
            + (
                ""
                if "(lone)" in prompt
                else question_block(
                    "Which body will pick the 2027 host by June 10, 2025?", "Northern Games Federation"
                )
            )
        )
    )
    table = pa.Table.from_pylist([contested, lone, hopeless])
    candidates, _ = generate_questions(
        table,
        QgenConfig(),
        LLMConfig(roles={"generator": remote_role(generator)}, prompts_dir=str(PROMPTS_DIR)),
        cache,
    )
    best, ledger = select_best(candidates, article_index(table), JudgeConfig(), llm, cache)
    ledger.check_balance()
    kept = {(row["article_id"], row["answer"]) for row in best.to_pylist()}
    assert kept == {(contested["id"], "Northern Games Federation"), (lone["id"], "Brennford")}
    assert ledger.rejected_by_reason == {"no_good_question": 2, "not_selected": 1}
    assert len(server.chat_bodies) == 2  # the lone article needed no call
    not_selected = next(r for r in ledger.rejects if r.reason == "not_selected")
    assert not_selected.related_id == next(
        row["question_id"] for row in best.to_pylist() if row["article_id"] == contested["id"]
    )
