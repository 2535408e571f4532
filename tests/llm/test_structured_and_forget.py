"""Structured outputs (a task's schema sent as response_format, in the cache key, its JSON read back as
tags) and ``almanac llm forget-failures`` (cached failures cleared by stage and reason)."""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from almanac.cli import main
from almanac.foresight.llm_tasks.validate import VALIDATE
from almanac.llm.cache import CachedFailure, LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.parsing import ParseError, json_as_tags, one_tag
from almanac.llm.registry import Task, TaskItem, reply_schema, text_field
from almanac.llm.tasks import build_requests, run_task
from tests.llm.conftest import remote_role, with_fields
from tests.support.llm_server import LLMTestServer, Reply

Serve = Callable[..., LLMTestServer]
SCHEMA = reply_schema(reasons=text_field(), verdict=text_field("yes", "no"))


def parse_verdict(text: str, variables: Mapping[str, str]) -> str:
    return one_tag(text, "verdict")


DEMO = Task(
    "structured_demo",
    item=lambda: TaskItem("x", {}),
    parse=parse_verdict,
    offline=lambda v, m: "",
    schema=SCHEMA,
)


def demo_prompts(tmp_path: Path) -> Path:
    (tmp_path / "structured_demo.md").write_text("---\nversion: 1\n---\n@@ user\nIs {{ word }} a word?\n")
    (tmp_path / "repair.md").write_text("---\nversion: 1\n---\n@@ user\nFix it: {{ problem }}\n")
    return tmp_path


def test_a_role_with_structured_outputs_sends_the_schema_and_reads_the_json_back(
    serve: Serve, cache: LLMCache, tmp_path: Path
) -> None:
    bodies: list[dict[str, Any]] = []

    def script(body: dict[str, Any], seen: int) -> Reply:
        bodies.append(body)
        if "response_format" in body:
            return Reply(text='{"reasons": "it is in the dictionary", "verdict": "yes"}')
        return Reply(text="<reasons>it is</reasons><verdict>no</verdict>")

    server = serve(script)
    prompts = demo_prompts(tmp_path)
    items = [TaskItem("w1", {"word": "apple"})]
    structured = remote_role(server, structured_outputs=True)
    [result] = run_task(structured, DEMO, items, cache, None, prompts)
    assert result.ok and result.value == "yes"
    assert bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "structured_demo",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "reasons": {"type": "string"},
                    "verdict": {"type": "string", "enum": ["yes", "no"]},
                },
                "required": ["reasons", "verdict"],
                "additionalProperties": False,
            },
        },
    }
    # The same task for a role without it: tagged text, and another cache key (not the JSON answer).
    [plain] = run_task(with_fields(structured, structured_outputs=False), DEMO, items, cache, None, prompts)
    assert plain.ok and plain.value == "no" and "response_format" not in bodies[1]
    assert len(bodies) == 2


def test_the_schema_is_part_of_the_request_key_and_the_offline_keys_do_not_change(tmp_path: Path) -> None:
    prompts = demo_prompts(tmp_path)
    [request] = build_requests(DEMO, [TaskItem("w1", {"word": "apple"})], prompts)
    assert request.schema == SCHEMA
    role = remote_role("http://127.0.0.1:9/v1", structured_outputs=True)
    other = dataclasses.replace(request, schema=reply_schema(verdict=text_field("yes", "no")))
    assert request.key(role) != other.key(role)  # another schema, another answer
    assert request.key(with_fields(role, structured_outputs=False)) == other.key(
        with_fields(role, structured_outputs=False)
    )
    offline = RoleConfig()
    assert request.key(offline) == request.key(with_fields(offline, structured_outputs=True))
    assert VALIDATE.schema is not None and "verdict" in VALIDATE.schema["properties"]


def test_json_replies_read_as_the_tags_the_parsers_know() -> None:
    text = (
        '```json\n{"edited": {"leak_found": true, "background": "B"}, "items": ["a", "b"], "none": null}\n```'
    )
    assert json_as_tags(text) == (
        "<edited><leak_found>yes</leak_found>\n<background>B</background></edited>\n"
        "<items>a</items>\n<items>b</items>\n<none></none>"
    )
    with pytest.raises(ParseError, match="expected a JSON object"):
        json_as_tags("[1, 2]")
    with pytest.raises(ParseError, match="no JSON object"):
        json_as_tags("<verdict>yes</verdict>")


def failure(reason: str) -> CachedFailure:
    return CachedFailure(reason, "detail")


def test_forget_failures_by_stage_and_reason_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cache_path = tmp_path / "cache" / "llm.sqlite"
    with LLMCache(cache_path) as cache:
        cache.put_failure("k1", "e", "qgen", "1", failure("llm_truncated"), "foresight_qgen")
        cache.put_failure("k2", "e", "qgen", "1", failure("llm_empty_response"), "foresight_qgen")
        cache.put_failure("k3", "e", "validate", "1", failure("llm_truncated"), "foresight_validate")
        cache.put_failure("k4", "e", "validate", "1", failure("llm_truncated"), "foresight_qgen_extra")
    params = tmp_path / "params.yaml"
    params.write_text(yaml.safe_dump({"llm": {"cache_path": str(cache_path)}}))
    argv = ["--params", str(params), "llm", "forget-failures"]
    assert main([*argv, "--stage", "foresight_qgen", "--reason", "llm_truncated"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"forgot 1 cached failure(s) of stage foresight_qgen, reason llm_truncated in {cache_path};"
    )
    assert out.endswith("\n3 cached failure(s) left\n")
    with LLMCache(cache_path) as cache:
        assert sorted(cache.failure_counts()) == [
            ("foresight_qgen", "llm_empty_response"),
            ("foresight_qgen_extra", "llm_truncated"),  # another stage, not a prefix match
            ("foresight_validate", "llm_truncated"),
        ]
    assert main([*argv, "--reason", "llm_truncated"]) == 0
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-2].startswith("forgot 1 cached failure(s) in ")
    with LLMCache(cache_path) as cache:
        assert cache.failure_count() == 0
    params.write_text(yaml.safe_dump({"llm": {"cache_path": str(tmp_path / "none.sqlite")}}))
    assert main(argv) == 0 and "nothing to forget" in capsys.readouterr().out
    assert not (tmp_path / "none.sqlite").exists()


def test_a_cache_from_before_failures_named_their_stage_is_read_and_extended(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as old:
        old.execute(
            "CREATE TABLE failures (key TEXT PRIMARY KEY, endpoint TEXT NOT NULL, task TEXT NOT NULL, "
            "prompt_version TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL, created REAL NOT NULL)"
        )
        old.execute("INSERT INTO failures VALUES ('k0', 'e', 'qgen', '1', 'llm_empty_response', 'd', 0)")
    with LLMCache(path) as cache:
        cache.put_failure("k1", "e", "qgen", "1", failure("llm_truncated"), "foresight_qgen")
        assert cache.get_failures(["k0", "k1"]) == {
            "k0": CachedFailure("llm_empty_response", "d"),
            "k1": failure("llm_truncated"),
        }
        assert cache.failure_counts() == {
            ("", "llm_empty_response"): 1,
            ("foresight_qgen", "llm_truncated"): 1,
        }
        assert cache.forget_failures(stage="foresight_qgen") == 1
    with LLMCache(path) as again:  # opening it twice migrates once
        assert again.failure_count() == 1
