"""The recipe switch and the RULES table: every row points at real code and real params."""

from __future__ import annotations

import importlib
from dataclasses import fields

import pytest

from almanac.core.params import parse_section
from almanac.mirai.recipe import PAPER, RECIPES, RELAXED, RULES, MiraiConfig, Rule, rules_of
from almanac.mirai.relation_split import RelationSplitConfig

SECTIONS = {"relation_split": RelationSplitConfig, "mirai": MiraiConfig}


def test_paper_is_the_default_and_both_recipes_parse() -> None:
    assert MiraiConfig().recipe == "paper"
    assert parse_section(MiraiConfig, {"mirai": {"recipe": "relaxed"}}, "mirai").recipe == "relaxed"
    assert parse_section(MiraiConfig, {}, "mirai").recipe == "paper"


@pytest.mark.parametrize("recipe", ["Paper", "group", ""])
def test_an_unknown_recipe_is_refused_with_the_choices(recipe: str) -> None:
    with pytest.raises(ValueError, match=f"mirai.recipe must be one of paper, relaxed, got {recipe!r}"):
        MiraiConfig(recipe)


def test_each_rule_has_its_own_reason() -> None:
    reasons = [rule.reason for rule in RULES]
    assert len(reasons) == len(set(reasons))


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.reason)
def test_each_rule_names_a_function_that_exists(rule: Rule) -> None:
    module, _, name = rule.where.rpartition(".")
    assert callable(getattr(importlib.import_module(module), name))


def _param_names(text: str) -> list[tuple[str, str]]:
    """``"relation_split.a, b"`` -> [(relation_split, a), (relation_split, b)]: a bare name keeps the section."""
    if text == "-":
        return []
    names: list[tuple[str, str]] = []
    section = ""
    for item in (part.strip() for part in text.split(",")):
        if "." in item:
            section, item = item.split(".", 1)
        assert section, f"{text!r}: {item!r} has no section"
        names.append((section, item))
    return names


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.reason)
def test_each_rule_names_params_that_exist(rule: Rule) -> None:
    for section, name in _param_names(rule.params):
        assert section in SECTIONS, section
        assert name in {f.name for f in fields(SECTIONS[section])}, f"{section}.{name}"


def test_param_names_are_read_as_written() -> None:
    assert _param_names("relation_split.queries_per_month, seed, balance_weights") == [
        ("relation_split", "queries_per_month"),
        ("relation_split", "seed"),
        ("relation_split", "balance_weights"),
    ]


def test_each_recipe_applies_its_rules_in_order() -> None:
    assert [rule.reason for rule in rules_of(PAPER)] == [
        "invalid_quad",
        "event_without_text",
        "event_too_few_mentions",
        "event_too_few_articles",
        "not_sampled",
    ]
    assert [rule.reason for rule in rules_of(RELAXED)] == [
        "invalid_quad",
        "group_too_few_mentions",
        "group_too_few_urls",
        "not_sampled",
    ]
    assert rules_of("other") == ()
    for rule in RULES:
        assert set(rule.recipes) <= set(RECIPES) and rule.recipes
        assert rule.unit in ("event", "group")
        assert rule.statement.strip()
    # the threshold rules are checked on what their name says
    assert all(rule.unit == "event" for rule in RULES if rule.reason.startswith("event_"))
    assert all(rule.unit == "group" for rule in RULES if rule.reason.startswith("group_"))
