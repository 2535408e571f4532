"""run_task with a remote model (the loopback server): parsing, the repair round, rejects, reruns."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.foresight.llm_tasks.qgen import qgen_item
from almanac.foresight.llm_tasks.questions import GeneratedQuestion
from almanac.foresight.llm_tasks.validate import validate_item
from almanac.llm.cache import LLMCache
from almanac.llm.tasks import MALFORMED, run_task
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.llm.test_parsing import QUESTION
from tests.support.llm_server import LLMTestServer, Reply

Serve = Callable[..., LLMTestServer]
ARTICLE = ("Ajax names coach", "Ajax hired John Heitinga as head coach on Monday.", "2025-06-04")


def article_items(*names: str) -> list[Any]:
    return [
        qgen_item(name, ARTICLE[0] + " " + name, ARTICLE[1], ARTICLE[2], "sport.example", 2) for name in names
    ]


def test_malformed_answer_is_repaired_once(serve: Serve, cache: LLMCache) -> None:
    def script(body: dict[str, Any], seen: int) -> Reply:
        roles = [message["role"] for message in body["messages"]]
        if "assistant" not in roles:  # the first answer forgets the answer tag
            return Reply(text=QUESTION.replace("<answer>John Heitinga</answer>", ""))
        return Reply(text="Sorry about that.\n" + QUESTION)

    server = serve(script)
    ledger = StageLedger("qgen")
    [result] = run_task(remote_role(server), "qgen", article_items("good"), cache, ledger, PROMPTS_DIR)
    assert result.ok and result.repaired and result.value is not None
    assert result.value[0].answer == "John Heitinga"
    assert result.prompt_version == "2+repair1"
    repair_body = server.chat_bodies[1]
    assert repair_body["messages"][-2]["role"] == "assistant"
    assert "missing <answer>" in repair_body["messages"][-1]["content"]  # the parse error is quoted
    assert ledger.extra["llm"]["generator.repaired"] == 1

    again = run_task(remote_role(server), "qgen", article_items("good"), cache, None, PROMPTS_DIR)
    assert again[0].ok and server.chat_requests == 2  # both rounds come from the cache


def test_still_malformed_after_repair_is_rejected_with_raw_text(serve: Serve, cache: LLMCache) -> None:
    server = serve(lambda body, seen: Reply(text="I think the answer is probably Heitinga."))
    ledger = StageLedger("qgen")
    ledger.items_in = 1
    [result] = run_task(remote_role(server), "qgen", article_items("bad"), cache, ledger, PROMPTS_DIR)
    assert not result.ok and result.error == MALFORMED and result.value is None
    assert result.raw_text == "I think the answer is probably Heitinga."
    assert server.chat_requests == 2  # one answer, one repair, no more
    result.reject_into(ledger, source="article:bad")
    [row] = ledger.rejects_table().to_pylist()
    assert row["reason"] == MALFORMED and "probably Heitinga" in row["detail"]
    assert ledger.extra["llm"]["generator.malformed"] == 1


def test_transport_failure_is_not_sent_to_repair(serve: Serve, cache: LLMCache) -> None:
    server = serve(lambda body, seen: Reply(status=503))
    [result] = run_task(
        remote_role(server, max_retries=1, max_failed_share=1.0),
        "qgen",
        article_items("down"),
        cache,
        None,
        PROMPTS_DIR,
    )
    assert result.error == "llm_retries_exhausted" and server.chat_requests == 2


def test_validator_verdicts_route_per_item(serve: Serve, cache: LLMCache) -> None:
    answers = {
        "Who will Ajax hire": "<reasons>Clear.</reasons><failed_criteria>none</failed_criteria><verdict>valid</verdict>",
        "Who did Ajax hire": "Past tense. <failed_criteria>forward_looking</failed_criteria><verdict>invalid</verdict>",
    }

    def script(body: dict[str, Any], seen: int) -> Reply:
        prompt = body["messages"][-1]["content"]
        return Reply(
            text=next(text for start, text in answers.items() if f"Question title: {start}" in prompt)
        )

    server = serve(script)
    base = dict(
        background="b",
        resolution_criteria="r",
        answer="John Heitinga",
        answer_type="string (name)",
        question_start_date="2025-05-28",
        resolution_date="2025-06-04",
    )
    good = GeneratedQuestion(question_title="Who will Ajax hire by June 4, 2025?", **base)
    past = GeneratedQuestion(question_title="Who did Ajax hire?", **base)
    items = [validate_item("q-good", good, *ARTICLE), validate_item("q-past", past, *ARTICLE)]
    role = remote_role(server, name="validator")
    results = run_task(role, "validate", items, cache, None, PROMPTS_DIR)
    verdicts = [(r.item_id, r.value) for r in results if r.value is not None]
    assert [(item_id, verdict.valid) for item_id, verdict in verdicts] == [
        ("q-good", True),
        ("q-past", False),
    ]
    assert verdicts[1][1].failed_criteria == ("forward_looking",)
