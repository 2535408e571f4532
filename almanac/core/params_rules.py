"""How params.yaml is checked against ``almanac.core.params_schema``: :func:`validate_params`, run by every
``load_params``, the value checks of each kind of rule, and the rules that tie keys together.

Each rule reads what it needs, says nothing when a key it compares is absent (a test's small params
file), and returns the problem as one line naming the keys ("" when none).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from datetime import date
from typing import Any

from almanac.core.months import parse_month
from almanac.core.params_schema import SCHEMA, ParamsError, Rule


def validate_params(params: Mapping[str, Any], source: str = "params.yaml") -> None:
    """Every key the schema names (type and range), then every cross-field rule; ParamsError on the first."""
    for key, value in leaves(params):
        rule = rule_for(key)
        problem = check_value(value, rule) if rule is not None else ""
        if problem:
            raise ParamsError(f"{source}: {key} {problem}, got {value!r}"[:500])
    for check in CROSS_FIELD:
        problem = check(params)
        if problem:
            raise ParamsError(f"{source}: {problem}")


def _get(params: Mapping[str, Any], dotted: str) -> Any:
    value: Any = params
    for part in dotted.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _lsh_fits(section: str) -> Callable[[Mapping[str, Any]], str]:
    def check(params: Mapping[str, Any]) -> str:
        bands, rows, perms = (_get(params, f"{section}.{key}") for key in ("bands", "rows", "num_perm"))
        if None in (bands, rows, perms) or bands * rows <= perms:
            return ""
        return f"{section}.bands x {section}.rows ({bands} x {rows}) exceeds {section}.num_perm ({perms})"

    return check


def _ordered(section: str, low: str, high: str) -> Callable[[Mapping[str, Any]], str]:
    """``low <= high`` when both are set (numbers, or ISO days compared as text)."""

    def check(params: Mapping[str, Any]) -> str:
        first, second = _get(params, f"{section}.{low}"), _get(params, f"{section}.{high}")
        if first in (None, "") or second in (None, "") or first <= second:
            return ""
        return f"{section}.{low} ({first}) must not be above {section}.{high} ({second})"

    return check


def _event_windows(params: Mapping[str, Any]) -> str:
    names = ("train_end", "validation_start", "validation_end", "test_start", "test_end")
    days = [_get(params, f"event_tasks.split.{name}") for name in names]
    if None in days:
        return ""
    train_end, validation_start, validation_end, test_start, test_end = days
    if train_end < validation_start <= validation_end < test_start <= test_end:
        return ""
    return (
        "event_tasks.split: need train_end < validation_start <= validation_end < test_start <= test_end, "
        f"got {days}"
    )


# Lists that follow from `months` (almanac.core.params): kept by hand they would drift (docs/months.md).
DERIVED = {
    "ccnews_months": 'every month of `months` (ccnews_ingest.raw_dir: "" turns CC-News off)',
    "report_scopes": 'the months, then "all"',
    "foresight.split.train_months": "foresight.split.test_month_count and validation_month_count",
    "foresight.split.validation_months": "foresight.split.test_month_count and validation_month_count",
    "foresight.split.test_months": "foresight.split.test_month_count and validation_month_count",
}


def _derived_lists(params: Mapping[str, Any]) -> str:
    for key, source in DERIVED.items():
        if _get(params, key) is not None:
            return f"{key} is derived from `months`, not listed: remove it (it follows from {source})"
    return ""


def _level2_options(params: Mapping[str, Any]) -> str:
    correct = _get(params, "futurex.tiers.level2_min_correct")
    options = _get(params, "futurex.tiers.level2_options")
    if correct is None or options is None or correct < options:
        return ""
    return f"futurex.tiers.level2_min_correct ({correct}) must be below level2_options ({options})"


CROSS_FIELD: tuple[Callable[[Mapping[str, Any]], str], ...] = (
    _lsh_fits("dedup"),
    _lsh_fits("foresight.question_dedup"),
    _ordered("ccnews_ingest.filters", "min_publish_date", "max_publish_date"),
    _ordered("wcep_news", "backoff_initial_s", "backoff_max_s"),
    _ordered("gdelt_articles", "backoff_initial_s", "backoff_max_s"),
    _ordered("gdelt_download", "backoff_initial_s", "backoff_max_s"),
    _ordered("gdelt_articles.paragraph", "min_words", "max_words"),
    _ordered("gdelt_articles.document", "min_words", "max_words"),
    _event_windows,
    _level2_options,
    _derived_lists,
)


def leaves(params: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(dotted key, value) of every key, a mapping before its keys; a mapping whose rule takes it whole
    (``llm.roles.*.extra``, ``publish.licenses``) is not walked into."""
    for key, value in params.items():
        dotted = f"{prefix}{key}"
        yield dotted, value
        rule = rule_for(dotted)
        if isinstance(value, Mapping) and not (rule is not None and rule.kind == "map" and rule.whole):
            yield from leaves(value, f"{dotted}.")


def rule_for(key: str) -> Rule | None:
    if key in SCHEMA:
        return SCHEMA[key]
    parts = key.split(".")
    for pattern, rule in SCHEMA.items():
        names = pattern.split(".")
        wild = "*" in names and len(names) == len(parts)
        if wild and all(name in ("*", part) for name, part in zip(names, parts, strict=True)):
            return rule
    return None


def check_value(value: Any, rule: Rule) -> str:
    """What is wrong with ``value`` under ``rule`` ("" when nothing)."""
    kinds: dict[str, Callable[[Any, Rule], str]] = {
        "int": _check_number,
        "float": _check_number,
        "bool": _check_bool,
        "str": _check_str,
        "list": _check_list,
        "map": _check_map,
        "month": _check_month,
        "date": _check_date,
    }
    check = kinds.get(rule.kind)
    return check(value, rule) if check is not None else ""


def _check_bool(value: Any, rule: Rule) -> str:
    return "" if isinstance(value, bool) else "must be true or false"


def _check_number(value: Any, rule: Rule) -> str:
    integer = isinstance(value, int) and not isinstance(value, bool)
    if rule.kind == "int" and not integer:
        return "must be a whole number"
    if rule.kind == "float" and not (integer or isinstance(value, float)):
        return "must be a number"
    if rule.low is not None and value < rule.low:
        return f"must be >= {rule.low:g}"
    if rule.above is not None and value <= rule.above:
        return f"must be > {rule.above:g}"
    if rule.high is not None and value > rule.high:
        return f"must be <= {rule.high:g}"
    return ""


def _check_str(value: Any, rule: Rule) -> str:
    if not isinstance(value, str):
        return "must be a string"
    if rule.choices and value not in rule.choices:
        return f"must be one of {', '.join(rule.choices)}"
    if rule.nonempty and not value.strip():
        return "must not be empty"
    if rule.pattern and not re.fullmatch(rule.pattern, value):
        return "is not of the expected form"
    return ""


def _check_list(value: Any, rule: Rule) -> str:
    if not isinstance(value, list):
        return "must be a list"
    if rule.nonempty and not value:
        return "must not be empty"
    if rule.low is not None and not rule.low <= len(value) <= (rule.high or len(value)):
        return f"must hold {rule.low:g} items"
    for position, item in enumerate(value):
        problem = check_value(item, rule.item) if rule.item else ""
        if problem:
            return f"item {position} ({item!r}) {problem}"
    return ""


def _check_map(value: Any, rule: Rule) -> str:
    if value is None:
        return ""  # an empty section written as `key:` reads as None
    if not isinstance(value, Mapping):
        return "must be a mapping"
    for key, item in value.items():
        problem = check_value(item, rule.item) if rule.item else ""
        if problem:
            return f"entry {key!r} {problem}"
    return ""


def _check_month(value: Any, rule: Rule) -> str:
    try:
        parse_month(value if isinstance(value, str) else "")
    except ValueError:
        return "must be a month like 2025-05"
    return ""


def _check_date(value: Any, rule: Rule) -> str:
    if rule.pattern == "or-empty" and value == "":
        return ""
    try:  # exactly YYYY-MM-DD
        date.fromisoformat(value if isinstance(value, str) and len(value) == 10 else "")
    except ValueError:
        return 'must be a day like "2025-05-31"' + (' (or "")' if rule.pattern == "or-empty" else "")
    return ""
