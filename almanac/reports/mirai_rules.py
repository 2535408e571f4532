"""The MIRAI report's account of relation_split: which recipe built the queries, what each rule removed,
and how close each month's sample came to the uniform balance the paper asks for.

Reads relation_split's metrics (``reports/metrics/relation_split/<month>.json``): the ``rules`` steps
written by :func:`almanac.mirai.relation_split.build_month` and the ``balance`` summary of
:func:`almanac.mirai.balance.balance_summary`. The rule statements come from the one table of rules,
:data:`almanac.mirai.recipe.RULES`, so report, card and code cannot say different things.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import METRICS
from almanac.mirai.recipe import AUTHORS_DIFFERENCES, AUTHORS_SETTINGS, PAPER, RULES
from almanac.reports.model import Table

STAGE = "relation_split"
# The attributes MIRAI's authors balance, in the report's order (region is reported only when weighted).
BALANCED = ("date", "root", "continent", "country")
_RULES = {rule.reason: rule for rule in RULES}


def rules_section(
    months: Sequence[str], metrics: dict[str, Any], tables: list[Table], metrics_dir: Path = METRICS
) -> list[str]:
    """Add the rules and balance tables and ``metrics["recipe"|"rules"|"balance"]``; return card notes."""
    found = {month: metrics_dir / STAGE / f"{month}.json" for month in months}
    per_month = {month: read_json(path) for month, path in found.items() if path.is_file()}
    if not per_month:
        metrics.update({"recipe": None, "rules": None, "balance": None})
        return ["relation_split metrics are missing: the recipe and its rules cannot be reported."]
    recipes = sorted({str(month_metrics.get("recipe", "")) for month_metrics in per_month.values()})
    recipe = recipes[0] if len(recipes) == 1 else "mixed"
    steps = _summed_steps(per_month.values())
    metrics["recipe"] = recipe
    metrics["rules"] = steps
    metrics["balance"] = {month: m.get("balance") for month, m in sorted(per_month.items())}
    tables.append(_rules_table(recipe, steps))
    tables.append(_balance_table(per_month))
    return _notes(recipe, recipes, per_month)


def _summed_steps(months: Any) -> list[dict[str, Any]]:
    """The rule steps of every month added up, in the order relation_split applied them."""
    order: list[str] = []
    totals: dict[str, dict[str, Any]] = {}
    for month_metrics in months:
        for step in month_metrics.get("rules") or ():
            rule = str(step["rule"])
            if rule not in totals:
                order.append(rule)
                totals[rule] = {"rule": rule, "unit": step.get("unit", ""), "events_removed": 0}
                totals[rule].update(queries_removed=0, queries_left=0)
            for key in ("events_removed", "queries_removed", "queries_left"):
                totals[rule][key] += int(step.get(key) or 0)
    return [totals[rule] for rule in order]


def _rules_table(recipe: str, steps: Sequence[Mapping[str, Any]]) -> Table:
    rows = tuple(
        (
            step["rule"],
            step["unit"],
            _RULES[step["rule"]].params if step["rule"] in _RULES else "",
            step["events_removed"],
            step["queries_removed"],
            step["queries_left"],
        )
        for step in steps
    )
    return Table(
        f"MIRAI rules applied (recipe `{recipe}`)",
        ("Rule", "Checked on", "Params", "Events removed", "Queries removed", "Queries left"),
        rows,
        "In the order relation_split applies them, summed over the months; a query is a (date, subject, "
        "object) day-pair, an event one (date, subject, relation, object). Events removed by a threshold "
        "stop being test events; a day-pair is removed when none is left.",
    )


def _balance_table(per_month: Mapping[str, Mapping[str, Any]]) -> Table:
    rows = []
    for month, month_metrics in sorted(per_month.items()):
        balance = month_metrics.get("balance") or {}
        for attr in (*BALANCED, *sorted(set(balance) - set(BALANCED))):
            entry = balance.get(attr)
            if not entry or (attr not in BALANCED and not entry.get("weight")):
                continue
            values = entry["values"].values()
            achieved = [value["achieved"] for value in values]
            targets = sorted({value["target"] for value in values})
            rows.append(
                (
                    month,
                    attr,
                    entry["weight"],
                    entry["values_in_candidates"],
                    entry["values_in_sample"],
                    f"{targets[-1]:g}" if targets else "-",
                    f"{min(achieved):g}-{max(achieved):g}" if achieved else "-",
                    entry["deviation"],
                )
            )
    return Table(
        "Balance: achieved distribution next to the uniform target",
        (
            "Month",
            "Attribute",
            "Weight",
            "Values (candidates)",
            "Values (sample)",
            "Target per value",
            "Achieved per value",
            "Queries off target",
        ),
        tuple(rows),
        "A query with k countries or roots counts 1/k for each. The target spreads the sample as evenly "
        "as the candidates allow (a value with fewer candidates than the even share is taken whole); "
        "'queries off target' is half the summed |achieved - target| (0 = the target exactly).",
    )


def _notes(recipe: str, recipes: Sequence[str], per_month: Mapping[str, Mapping[str, Any]]) -> list[str]:
    if len(recipes) > 1:
        return [f"The months were built with different MIRAI recipes ({', '.join(recipes)}): rebuild them."]
    requested = sum(int(m.get("requested") or 0) for m in per_month.values())
    sampled = sum(int(m.get("sampled") or 0) for m in per_month.values())
    if recipe == PAPER:
        departures = _departures(per_month)
        built = "as the authors' released construction" if not departures else "NOT as the authors built it"
        lead = (
            f"Recipe `paper`: {built} (the paper, section 2.2, and where it is silent the authors' released "
            'code; README "MIRAI as its authors built it"): answers are the day-pair\'s events with article '
            "text, and a day-pair is a query only when it has an event with the test split's daily "
            "mentions and every such event has the news articles, counting those whose cleaned text "
            "survived."
            + (
                f" This build departs from the authors' settings: {'; '.join(departures)}."
                if departures
                else ""
            )
            + " Remaining differences: "
            + "; ".join(AUTHORS_DIFFERENCES)
            + "."
        )
    else:
        lead = (
            f"Recipe `{recipe}`: NOT the paper's test split: the mention and article thresholds are checked "
            "on the whole (date, subject, object) day-pair and articles are source URLs whether or not their "
            "text was obtained, for corpora without article text. Scores are not comparable with MIRAI's."
        )
    return [
        lead,
        *(f"Rule `{rule.reason}`: {rule.statement}" for rule in RULES if recipe in rule.recipes),
        f"{sampled} queries sampled of {requested} requested over {len(per_month)} month(s).",
    ]


def _departures(per_month: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The relation_split settings of any month that differ from the authors' (AUTHORS_SETTINGS)."""
    found: set[str] = set()
    for month_metrics in per_month.values():
        thresholds = month_metrics.get("thresholds") or {}
        actual = {
            "answers_need_text": thresholds.get("answers_need_text"),
            "admission": thresholds.get("admission"),
            "balance_weights": month_metrics.get("balance_weights"),
            "balance_actors": month_metrics.get("balance_actors"),
            "balance_objective": month_metrics.get("balance_objective"),
        }
        for name, value in actual.items():
            if value != AUTHORS_SETTINGS[name]:
                found.add(f"relation_split.{name} = {value!r} (authors: {AUTHORS_SETTINGS[name]!r})")
    return sorted(found)
