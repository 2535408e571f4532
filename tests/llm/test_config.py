"""Role configuration from params.yaml and prompt templates."""

from __future__ import annotations

import importlib
import logging
import pkgutil
from pathlib import Path

import pytest
import yaml

import almanac
from almanac.llm.config import LLMConfigError, RoleConfig, parse_llm_config
from almanac.llm.prompts import PromptError, load_prompt, parse_template
from almanac.llm.registry import registered
from tests.llm.conftest import PROMPTS_DIR

PARAMS = """
llm:
  cache_path: data/cache/llm.sqlite
  roles:
    generator: {backend: openai, base_url: "http://127.0.0.1:8000/v1", model: qwen, api_key_env: VLLM_KEY,
                temperature: 1, extra: {top_p: 0.95}, price_per_1m_input: 0.5}
    validator: {backend: openai, base_url: "http://127.0.0.1:8000/v1/", model: qwen}
    editor: {}
"""


def test_roles_parse_with_defaults_and_warn_on_self_preference(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        config = parse_llm_config(yaml.safe_load(PARAMS))
    generator = config.role("generator")
    assert (
        generator.name == "generator" and generator.temperature == 1.0 and generator.extra == {"top_p": 0.95}
    )
    assert config.role("editor").backend == "offline"
    assert "self-preference" in caplog.text  # same model at the same server (trailing slash ignored)
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        parse_llm_config(yaml.safe_load(PARAMS.replace("model: qwen}", "model: llama}")))
    assert "self-preference" not in caplog.text


@pytest.mark.parametrize(
    ("roles", "message"),
    [
        ("generator: {backend: anthropic}", "backend must be one of"),
        ("generator: {temprature: 0.2}", "unknown keys"),
        ("generator: {api_key_env: sk-live-abc123}", "environment variable name"),
        ("generator: {max_concurrency: 0}", "max_concurrency"),
    ],
)
def test_bad_role_settings_are_errors(roles: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_llm_config(yaml.safe_load(f"llm:\n  roles:\n    {roles}\n"))


def test_missing_key_variable_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ALMANAC_NOT_SET", raising=False)
    role = RoleConfig(backend="openai", api_key_env="ALMANAC_NOT_SET", name="validator")
    with pytest.raises(LLMConfigError, match="ALMANAC_NOT_SET is not set"):
        role.api_key()
    with pytest.raises(LLMConfigError, match="no role 'judge'"):
        parse_llm_config({}).role("judge")


def import_every_task() -> list[str]:
    """Import every module of every ``almanac/<domain>/llm_tasks`` package, found on disk, not listed.

    Tasks register when their module is imported, so the registry holds what this process imported so
    far: a test that listed domains by hand saw a new domain's tasks only when another test had run first.
    """
    imported = []
    for folder in sorted(Path(almanac.__file__).parent.glob("*/llm_tasks")):
        package = importlib.import_module(f"almanac.{folder.parent.name}.llm_tasks")
        imported.append(package.__name__)
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
            imported.append(module.name)
    return imported


def test_every_task_has_a_versioned_template_using_known_variables() -> None:
    domains = {name.split(".")[1] for name in import_every_task()}
    assert {"foresight", "events", "futuresim", "futurex"} <= domains
    tasks = registered()
    files = {path.stem for path in Path(PROMPTS_DIR).glob("*.md")}
    assert files == {*tasks, "repair"}  # a prompt without its task, or a task without its prompt
    for name, task in tasks.items():
        assert task.name == name and (Path(PROMPTS_DIR) / task.prompt_file).is_file()
    for task in [*tasks, "repair"]:
        template = load_prompt(task, PROMPTS_DIR)
        assert template.version and len(template.content_hash) == 16
        assert template.sections[-1][0] == "user"
    qgen = load_prompt("qgen", PROMPTS_DIR)
    assert qgen.variables == {"article_title", "article_text", "publish_date", "source", "n_questions"}


def test_template_rendering_is_strict(tmp_path: Path) -> None:
    text = "---\nversion: 3\n---\n@@ system\nYou help.\n@@ user\nSay {{ word }} twice.\n"
    template = parse_template("demo", text)
    assert template.render({"word": "hi"}) == (("system", "You help."), ("user", "Say hi twice."))
    with pytest.raises(PromptError, match="missing variables"):
        template.render({})
    with pytest.raises(PromptError, match="unknown"):
        template.render({"word": "hi", "other": "x"})
    with pytest.raises(PromptError, match="version"):
        parse_template("demo", "@@ user\nhello\n")
    (tmp_path / "demo.md").write_text(text)
    first = load_prompt("demo", tmp_path)
    (tmp_path / "demo.md").write_text(text.replace("twice", "three times"))
    second = load_prompt("demo", tmp_path)
    assert first.version == second.version and first.content_hash != second.content_hash


def test_max_failed_share_comes_from_the_section_unless_a_role_sets_its_own() -> None:
    params = yaml.safe_load(PARAMS)
    assert parse_llm_config(params).role("editor").max_failed_share == 0.02  # the default
    params["llm"]["max_failed_share"] = 0.1
    params["llm"]["roles"]["validator"]["max_failed_share"] = 0
    config = parse_llm_config(params)
    assert (config.role("generator").max_failed_share, config.role("validator").max_failed_share) == (
        0.1,
        0.0,
    )
    params["llm"]["max_failed_share"] = 1.5
    with pytest.raises(LLMConfigError, match="max_failed_share must be within"):
        parse_llm_config(params)
