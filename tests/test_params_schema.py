"""params.yaml is validated whole at load: one line naming the key, per kind of bad value (issue 24)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from almanac import cli
from almanac.core.params import checked_month, load_params, parse_section
from almanac.core.params_rules import leaves, rule_for, validate_params
from almanac.core.params_schema import ParamsError

ROOT = Path(__file__).resolve().parents[1]
SHIPPED: dict[str, Any] = yaml.safe_load((ROOT / "params.yaml").read_text())


def test_the_shipped_params_pass() -> None:
    loaded = load_params(ROOT / "params.yaml")
    # The split's month counts become the lists they give (tests/test_months.py); all else is as written.
    split = loaded["foresight"]["split"]
    assert [split.pop(f"{name}_months") for name in ("train", "validation", "test")] == [
        ["2025-04"],
        ["2025-05"],
        ["2025-06"],
    ]
    shipped = copy.deepcopy(SHIPPED)
    for name in ("test_month_count", "validation_month_count"):
        del shipped["foresight"]["split"][name]
    assert loaded == shipped


def test_the_schema_names_every_key_of_the_shipped_params() -> None:
    # A mapping may go without a rule (it is walked into); every other value needs one.
    missing = [key for key, value in leaves(SHIPPED) if rule_for(key) is None and not isinstance(value, dict)]
    assert missing == []


def test_the_commented_out_llm_role_examples_pass() -> None:
    # The roles params.yaml documents in comments (OpenAI, vLLM, Ollama) must be accepted when enabled.
    roles = {
        "generator": {"backend": "openai", "model": "gpt-4.1-mini", "api_key_env": "OPENAI_API_KEY",
                      "temperature": 0.0, "max_tokens": 4096, "max_concurrency": 32,
                      "requests_per_minute": 3000, "tokens_per_minute": 2000000, "timeout_s": 120,
                      "max_retries": 5, "price_per_1m_input": 0.40, "price_per_1m_output": 1.60, "batch": False},
        "validator": {"backend": "openai", "base_url": "http://127.0.0.1:8000/v1", "model": "Qwen/Qwen3-32B",
                      "api_key_env": "", "max_concurrency": 64,
                      "extra": {"chat_template_kwargs": {"enable_thinking": False}, "top_p": 0.95}},
    }  # fmt: skip
    validate_params({**SHIPPED, "llm": {**SHIPPED["llm"], "roles": roles}})


def _with(dotted: str, value: Any) -> dict[str, Any]:
    params = copy.deepcopy(SHIPPED)
    *parents, last = dotted.split(".")
    section = params
    for name in parents:
        section = section.setdefault(name, {})
    section[last] = value
    return params


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("foresight.qgen.questions_per_article", 0, "must be >= 1"),  # a count where 0 makes no sense
        ("ccnews_ingest.filters.min_words", -5, "must be >= 0"),  # below the range
        ("ccnews_ingest.filters.min_words", True, "must be a whole number"),  # YAML true is no number
        ("wiki_ingest.min_words", "200", "must be a whole number"),  # a quoted number
        ("dedup.threshold", 0, "must be > 0"),  # an open bound
        ("foresight.leakage.scan.fuzzy_threshold", 150.0, "must be <= 100"),  # above the range
        ("wcep_news.timeout_s", "20s", "must be a number"),
        ("wcep_news.fetch", "yes", "must be true or false"),
        ("ray.executor", "threads", "must be one of ray, serial"),  # a choice
        ("wiki_ingest.raw_dir", "", "must not be empty"),
        ("months", ["2025-13"], "item 0 ('2025-13') must be a month like 2025-05"),
        ("months", "2025-05", "must be a list"),
        ("months", [], "must not be empty"),
        ("event_tasks.split.test_end", "2025-07", 'must be a day like "2025-05-31"'),
        ("ccnews_ingest.filters.min_publish_date", "yesterday", 'must be a day like "2025-05-31" (or "")'),
        ("relation_split.horizons_days", [1, 0], "item 1 (0) must be >= 1"),
        ("relation_split.balance_weights", {"date": -1.0}, "entry 'date' must be >= 0"),
        ("publish.licenses", ["mit"], "must be a mapping"),
        ("publish.hub_token_env", "hf_abc123 pasted", "is not of the expected form"),  # a token, not a name
        ("llm.roles.generator.max_tokens", 0, "must be >= 1"),  # every role, by pattern
        ("llm.roles.judge2.temperature", 5, "must be <= 2"),
        ("futurex.score.weights", [0.5, 0.5], "must hold 4 items"),
        ("futurex.tiers.level1_options", 4, "must be <= 3"),
        ("llm.roles.generator.api_key_env", "sk-abc pasted", "is not of the expected form"),
    ],
)
def test_each_kind_of_bad_value_is_one_line_naming_the_key(key: str, value: Any, message: str) -> None:
    with pytest.raises(ParamsError) as raised:
        validate_params(_with(key, value))
    line = str(raised.value)
    assert line == f"params.yaml: {key} {message}, got {value!r}"


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"dedup.bands": 30}, r"dedup.bands x dedup.rows \(30 x 4\) exceeds dedup.num_perm \(112\)"),
        ({"foresight.question_dedup.rows": 5}, r"foresight.question_dedup.bands x .* exceeds"),
        (
            {"ccnews_ingest.filters.min_publish_date": "2025-06-01",
             "ccnews_ingest.filters.max_publish_date": "2025-05-01"},
            r"min_publish_date \(2025-06-01\) must not be above .*max_publish_date \(2025-05-01\)",
        ),
        ({"wcep_news.backoff_initial_s": 60.0}, r"wcep_news.backoff_initial_s \(60.0\) must not be above"),
        ({"event_tasks.split.validation_start": "2025-03-10"}, r"event_tasks.split: need train_end <"),
        ({"foresight.split.test_months": ["2025-05"]}, r"foresight.split.test_months is derived from `months`"),
        ({"futurex.tiers.level2_options": 2}, r"level2_min_correct \(2\) must be below level2_options \(2\)"),
    ],
)  # fmt: skip
def test_cross_field_rules(changes: dict[str, Any], message: str) -> None:
    params = copy.deepcopy(SHIPPED)
    for key, value in changes.items():
        params = _with_in(params, key, value)
    with pytest.raises(ParamsError, match=message) as raised:
        validate_params(params)
    assert "\n" not in str(raised.value)


def _with_in(params: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    *parents, last = dotted.split(".")
    section = params
    for name in parents:
        section = section[name]
    section[last] = value
    return params


def test_a_small_params_file_checks_only_what_it_has(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("months: ['2025-05']\ndedup: {threshold: 0.5}\n")
    assert load_params(tmp_path / "p.yaml") == {"months": ["2025-05"], "dedup": {"threshold": 0.5}}


def test_not_yaml_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("months: [2025-05\nray: {")
    with pytest.raises(ParamsError, match=r"p.yaml: not valid YAML: ") as raised:
        load_params(tmp_path / "p.yaml")
    assert "\n" not in str(raised.value)


def test_parse_section_refuses_true_for_a_number() -> None:
    from almanac.core.parallel import RayConfig

    with pytest.raises(ParamsError, match=r"ray.num_cpus must be int, got True"):
        parse_section(RayConfig, {"ray": {"num_cpus": True}}, "ray")


@pytest.mark.parametrize("month", ["../../x", "2025-5", "2025-13", "all", "2025-05/.."])
def test_checked_month(month: str) -> None:
    if month == "all":
        assert checked_month(month, SHIPPED) == "all"
        with pytest.raises(ParamsError):
            checked_month(month, SHIPPED, allow_all=False)
        return
    with pytest.raises(ParamsError, match="month must look like 2025-05"):
        checked_month(month, SHIPPED)


def test_a_month_outside_params_is_refused() -> None:
    assert checked_month("2025-05", SHIPPED) == "2025-05"
    with pytest.raises(ParamsError, match=r"--month 2024-01 is not in params.yaml months"):
        checked_month("2024-01", SHIPPED)
    assert checked_month("2024-01", None) == "2024-01"  # no params to hold it to (check --splits)


def test_the_cli_names_the_bad_key_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "params.yaml").read_text().replace("min_words: 100", "min_words: -5"))
    assert cli.main(["--params", str(bad), "status"]) == 1
    assert capsys.readouterr().err == (
        f"almanac status: {bad}: ccnews_ingest.filters.min_words must be >= 0, got -5\n"
    )
