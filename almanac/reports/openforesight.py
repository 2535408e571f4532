"""The OpenForesight report: statistics of the released question splits, leakage and dedup rates, funnel.

Split statistics come from the released Parquet files (DuckDB over Arrow, see ``openforesight_stats``);
the funnel, leakage-editor and dedup numbers from the stages' metrics JSON files. The two are partitioned
differently: split files by the month a question resolves in, the per-month stages by the month its
article was published in, so for one month they describe overlapping but different sets of questions.
The report says so in its notes rather than pretending they chain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from almanac.foresight.recipe import RECIPE
from almanac.foresight.split import SPLITS
from almanac.reports import openforesight_stats as stats
from almanac.reports.authorship import (
    QUESTION_ROLES,
    authorship_statement,
    example_question,
    models_in_rows,
    role_authors,
)
from almanac.reports.distributions import SUMMARY_KEYS
from almanac.reports.funnel import (
    FunnelStep,
    funnel_metrics,
    funnel_series,
    funnel_steps,
    funnel_table,
    llm_usage,
    rejects_table,
)
from almanac.reports.model import FigureKind, Panel, Report, Series, Table
from almanac.reports.openforesight_rates import dedup_metrics, leakage_metrics, yield_metrics
from almanac.reports.scope import ReportScope
from almanac.reports.styles import get_style, read_split_tables
from almanac.reports.summary import style_summary

STYLE = "openforesight"
SERIES = ("split_counts", "answer_types", "sources", "question_length", "answer_length", "horizon", "funnel")
PANELS = (
    Panel("1_overview", "OpenForesight: funnel and questions per split", ("funnel", "split_counts")),
    Panel("2_content", "OpenForesight: answer types and news sources", ("answer_types", "sources")),
    Panel(
        "3_distributions",
        "OpenForesight: question and answer length, horizon",
        ("question_length", "answer_length", "horizon"),
    ),
)
# The Table-1 stages, from the recipe; qgen reads articles and hands on those that gave a question.
# Whole-dataset steps say so in their label, since the funnel figure puts them next to one month's steps.
FUNNEL = tuple(
    FunnelStep(
        step.stage,
        step.label if step.per_month else f"{step.label}, all months",
        step.unit,
        step.per_month,
        step.produces,  # qgen: the questions it made, beside the articles it read
    )
    for step in RECIPE.funnel()
)


def build_report(scope: ReportScope) -> Report:
    months = list(scope.months)
    tables = read_split_tables(get_style(STYLE), scope.months)
    con = stats.connect(stats.questions_table(tables))

    by_split_month = stats.split_month_counts(con)
    by_source = stats.counts(con, "news_source")
    by_class = stats.counts(con, f"coalesce(answer_class, '{stats.NO_CLASS}')")
    total = sum(n for _, _, n in by_split_month)
    split_totals = _split_totals(by_split_month)
    month_totals = {month: 0 for month in months}
    for _, month, n in by_split_month:
        month_totals[month] = month_totals.get(month, 0) + n
    distributions = {
        "question_words": stats.summary(con, stats.word_count("question_title")),
        "answer_words": stats.summary(con, stats.word_count("answer")),
        "horizon_days": stats.summary(con, stats.HORIZON_DAYS),
    }
    histograms = {
        "question_length": stats.histogram(con, stats.word_count("question_title"), stats.WORD_WIDTHS),
        "answer_length": stats.histogram(con, stats.word_count("answer"), stats.WORD_WIDTHS),
        "horizon": stats.histogram(con, stats.HORIZON_DAYS, stats.DAY_WIDTHS),
    }
    leakage = leakage_metrics(months, stats.flagged_leaks(con), total)
    dedup = dedup_metrics()
    steps = funnel_steps(FUNNEL, months)
    question_yield = yield_metrics(months)

    metrics: dict[str, Any] = {
        "questions": total,
        "by_split": split_totals,
        "by_month": dict(sorted(month_totals.items())),
        "by_split_month": _nested(by_split_month),
        "by_source": dict(by_source),
        "by_answer_class": dict(by_class),
        **distributions,
        "leakage": leakage,
        "dedup": dedup,
        "yield": question_yield,
        "funnel": funnel_metrics(steps),
        "llm": llm_usage(steps),
    }
    report_tables = (
        _split_month_table(by_split_month, sorted(month_totals)),
        _share_table("Questions per news source", "Source", by_source, total),
        _share_table("Questions per answer type", "Answer class", by_class, total),
        _distribution_table(distributions),
        _rates_table(leakage, dedup, total, months),
        _yield_table(question_yield),
        funnel_table(steps),
        rejects_table(steps),
    )
    series = (
        _bars("split_counts", "Questions per split", "split", list(split_totals.items())),
        _bars("answer_types", "Questions per answer type", "answer_class", by_class, "barh"),
        _bars("sources", "Questions per news source", "news_source", by_source, "barh"),
        _bars("question_length", "Question title length", "words", histograms["question_length"]),
        _bars("answer_length", "Answer length", "words", histograms["answer_length"]),
        _bars("horizon", "Horizon (resolution date - start date)", "days", histograms["horizon"]),
        funnel_series(steps),
    )
    assert tuple(s.name for s in series) == SERIES
    authors = role_authors(scope.params, QUESTION_ROLES, models_in_rows(tables))
    return Report(
        STYLE,
        scope.months,
        metrics,
        series,
        report_tables,
        _notes(months, scope.params),
        summary=(
            style_summary(STYLE, metrics["by_split_month"], metrics, "questions") if scope.whole else None
        ),
        panels=PANELS if scope.whole else (),
        authorship=authorship_statement(authors),
        example=example_question(tables),
    )


def _split_totals(rows: Sequence[tuple[str, str, int]]) -> dict[str, int]:
    totals = dict.fromkeys(SPLITS, 0)
    for split, _, n in rows:
        totals[split] = totals.get(split, 0) + n
    extra = sorted(set(totals) - set(SPLITS))
    return {split: totals[split] for split in (*SPLITS, *extra)}


def _nested(rows: Sequence[tuple[str, str, int]]) -> dict[str, dict[str, int]]:
    nested: dict[str, dict[str, int]] = {}
    for split, month, n in rows:
        nested.setdefault(split, {})[month] = n
    return nested


def _bars(
    name: str,
    title: str,
    x: str,
    rows: Sequence[tuple[str, int]],
    kind: FigureKind = "bar",
) -> Series:
    return Series(
        name,
        title,
        x,
        "questions",
        tuple({x: label, "questions": n} for label, n in rows),
        kind=kind,
        x_label=x.replace("_", " "),
        y_label="questions",
    )


def _split_month_table(rows: Sequence[tuple[str, str, int]], months: Sequence[str]) -> Table:
    grid = {(split, month): n for split, month, n in rows}
    columns = sorted(set(months) | {month for _, month, _ in rows})
    lines = [
        (split, *(grid.get((split, m), 0) for m in columns), sum(grid.get((split, m), 0) for m in columns))
        for split in _split_totals(rows)
    ]
    column_totals = (sum(n for _, month, n in rows if month == m) for m in columns)
    lines.append(("Total", *column_totals, sum(n for _, _, n in rows)))
    return Table(
        "Questions per split and resolution month",
        ("Split", *columns, "Total"),
        tuple(lines),
        "Released questions, by the month their resolution date falls in (how the split files are named).",
    )


def _share_table(title: str, header: str, rows: Sequence[tuple[str, int]], total: int) -> Table:
    return Table(
        title,
        (header, "Questions", "Share"),
        tuple((label, n, f"{n / total:.1%}") for label, n in rows),
    )


def _distribution_table(distributions: Mapping[str, Mapping[str, Any]]) -> Table:
    names = {"question_words": "Question title (words)", "answer_words": "Answer (words)"}
    names["horizon_days"] = "Horizon (days from start to resolution date)"
    return Table(
        "Lengths and horizon",
        ("Measure", "Count", "Mean", "Median", "P90", "Max"),
        tuple(
            (names[key], *("-" if values[k] is None else values[k] for k in SUMMARY_KEYS))
            for key, values in distributions.items()
        ),
        "Over the released questions; the percentile is interpolated.",
    )


def _rates_table(
    leakage: Mapping[str, Any], dedup: Mapping[str, Any], questions: int, months: Sequence[str]
) -> Table:
    released = f"questions resolving in {', '.join(months)}"
    published = f"articles published in {', '.join(months)}"
    split_checked, editor_checked = leakage["cross_question_checked"], leakage["editor_checked"]
    rows: list[tuple[str, str, int, int]] = [
        ("Flagged cross-question leak (released)", released, leakage["flagged_in_splits"], questions),
        ("Cross-question leaks found at split", "all months", leakage["cross_question_found"], split_checked),
        (
            "Dropped for cross-question leakage",
            "all months",
            leakage["cross_question_dropped"],
            split_checked,
        ),
        (
            "Rewritten by the leakage editor (editor role)",
            published,
            leakage["editor_edited"],
            editor_checked,
        ),
        ("Dropped by the leakage re-scan", published, leakage["rescan_dropped"], editor_checked),
        *(
            (f"Dropped by the re-scan: {kind} match", published, n, editor_checked)
            for kind, n in leakage["rescan_dropped_by_kind"].items()
        ),
        (
            "Near-duplicate questions dropped",
            "all months",
            dedup["question_duplicates"],
            dedup["question_checked"],
        ),
        (
            "Corpus articles: exact duplicates",
            "all months",
            dedup["corpus_exact_duplicates"],
            dedup["corpus_checked"],
        ),
        (
            "Corpus articles: near duplicates",
            "all months",
            dedup["corpus_near_duplicates"],
            dedup["corpus_checked"],
        ),
    ]
    return Table(
        "Leakage and dedup",
        ("Measure", "Scope", "Count", "Out of", "Rate"),
        tuple(
            (measure, where, n, base, f"{n / base:.1%}" if base else "-") for measure, where, n, base in rows
        ),
        "Rates of the whole-dataset stages are over every month, whatever month this report is for.",
    )


def _yield_table(question_yield: Mapping[str, Any]) -> Table:
    return Table(
        "Question yield of the per-month stages",
        ("Articles read", "Questions generated", "Left after date checks", "Kept"),
        (
            (
                question_yield["articles"],
                question_yield["generated"],
                question_yield["after_dates"],
                f"{question_yield['kept_rate']:.1%}",
            ),
        ),
        "By article publish month, before the whole-dataset question dedup and split.",
    )


def _notes(months: Sequence[str], params: Mapping[str, Any]) -> tuple[str, ...]:
    shown = ", ".join(months)
    mode = ((params.get("foresight") or {}).get("split") or {}).get("cross_question_leakage", "drop")
    leak_note = (
        "cross-question leaks are dropped at split time, so no released question is flagged"
        if mode == "drop"
        else "cross-question leaks are kept and flagged (cross_question_leak = true)"
    )
    return (
        f"Split counts, lengths, horizons and leak flags cover questions resolving in {shown} (split files "
        f"are named by resolution month); the per-month funnel steps, the question yield and the leakage "
        f"editor counts cover questions from articles published in {shown}. The two sets overlap but "
        "need not match: a question on a late-month article can resolve in the next month.",
        "Whole-dataset steps, counted over every month: question dedup and the final split in the funnel, "
        "and the cross-question leak, question dedup and corpus dedup rates.",
        f"Cross-question leakage mode: {mode}; {leak_note}.",
    )
