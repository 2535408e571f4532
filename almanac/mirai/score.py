"""Grade forecasts for MIRAI-style queries: set precision/recall/F1 and class-level KL divergence.

The definitions are the paper's (section 2.2, appendix D.4.2) as its authors' evaluation code computes
them, per query and then averaged over all queries (macro averages):

- first level: the predicted roots (the answer's valid keys) against the query's answer_roots; second
  level: the valid listed codes against the answers. Precision = hits / predicted (0 for an empty
  forecast), recall = hits / true, F1 = 2PR / (P + R) (0 when P + R is 0).
- KL divergence D(P || Q) = sum_i P(i) log(P(i) / Q(i)) over the binary (cooperation / conflict) and the
  four quad classes, where P and Q are the class frequencies of the true and the predicted first-level
  codes (each distinct root counts once, as in MIRAI's evaluator; the paper's text speaks of relations).
  Every class of both P and Q gets ``kl_epsilon`` added (MIRAI's evaluator uses 1e-10 the same way),
  so an empty or one-sided forecast costs about log(1 / epsilon) = 23.03 instead of infinity.
- quad classes: MIRAI's grouping (01-04, 05-08, 09-16, 17-20) by default, so scores compare with the
  paper's; ``quad_mapping: gdelt`` uses GDELT's QuadClass instead (see cameo.py).

How answers are read (as the authors' evaluator reads them: malformed items dropped, codes not in CAMEO
counted as invalid, unreadable answers scored as empty, an answer the evaluator would fail on, e.g. one
with an integer code, scored as empty) is in predictions.py. Missing and unreadable forecasts score as
empty ones; all are counted in the report. ``--baseline`` scores the frequency baseline of baseline.py
instead of a file.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.io import read_parquet, write_json
from almanac.core.layout import gdelt_quads
from almanac.core.markdown import markdown_table
from almanac.core.params import load_params, parse_section
from almanac.mirai.baseline import BaselineConfig, History, baseline_predictions, read_history
from almanac.mirai.cameo import (
    BINARY_CLASSES,
    QUAD_MAPPINGS,
    QUAD_NAMES,
    binary_class,
    check_mapping,
    quad_class,
)
from almanac.mirai.predictions import (
    EMPTY,
    PredictionFile,
    Reading,
    as_raw_mapping,
    load_predictions,
    read_answer,
)

KL_EPSILON = 1e-10
SET_METRICS = ("precision", "recall", "f1")
STATUSES = ("scored", "empty", "unreadable", "missing")
QUADS_FILE = gdelt_quads().as_posix()


@dataclass(frozen=True)
class ScorerConfig:
    quad_mapping: str = "mirai"  # mirai (the paper's grouping) or gdelt (QuadClass)
    kl_epsilon: float = KL_EPSILON
    baseline: BaselineConfig = field(default_factory=BaselineConfig)

    def __post_init__(self) -> None:
        check_mapping(self.quad_mapping)
        if not self.kl_epsilon > 0:
            raise ValueError("scorer.kl_epsilon must be > 0")


def set_scores(truth: frozenset[str] | set[str], predicted: frozenset[str] | set[str]) -> dict[str, float]:
    hits = len(truth & predicted)
    precision = hits / len(predicted) if predicted else 0.0
    recall = hits / len(truth) if truth else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def class_frequencies(
    roots: Sequence[str], classify: Callable[[str], object], labels: Sequence[object]
) -> list[float]:
    """Share of the roots in each class (all zeros when there are no roots)."""
    counts = Counter(classify(root) for root in roots)
    return [counts[label] / len(roots) if roots else 0.0 for label in labels]


def kl_divergence(truth: Sequence[float], predicted: Sequence[float], epsilon: float) -> float:
    return sum(
        (p + epsilon) * math.log((p + epsilon) / (q + epsilon)) for p, q in zip(truth, predicted, strict=True)
    )


def score_query(
    answers: Sequence[str],
    answer_roots: Sequence[str],
    roots: frozenset[str],
    relations: frozenset[str],
    config: ScorerConfig,
) -> dict[str, Any]:
    if not answers:
        raise ValueError("a query without answers cannot be scored")
    mapping = config.quad_mapping
    quads = sorted(QUAD_NAMES)
    truth_roots, predicted_roots = sorted(set(answer_roots)), sorted(roots)

    binary, quad = partial(binary_class, mapping=mapping), partial(quad_class, mapping=mapping)
    return {
        "first_level": set_scores(set(truth_roots), set(roots)),
        "second_level": set_scores(set(answers), set(relations)),
        "binary_kl": kl_divergence(
            class_frequencies(truth_roots, binary, BINARY_CLASSES),
            class_frequencies(predicted_roots, binary, BINARY_CLASSES),
            config.kl_epsilon,
        ),
        "quad_kl": kl_divergence(
            class_frequencies(truth_roots, quad, quads),
            class_frequencies(predicted_roots, quad, quads),
            config.kl_epsilon,
        ),
    }


def score_predictions(
    queries: pa.Table | Sequence[Mapping[str, Any]],
    predictions: Mapping[str, object] | PredictionFile,
    quad_mapping: str = "mirai",
    kl_epsilon: float = KL_EPSILON,
) -> dict[str, Any]:
    """Per-query scores and their means; ``predictions`` maps query_id -> raw forecast (or a loaded file)."""
    config = ScorerConfig(quad_mapping, kl_epsilon)
    loaded = as_raw_mapping(predictions)
    rows = (
        queries.select(["query_id", "answers", "answer_roots"]).to_pylist()
        if isinstance(queries, pa.Table)
        else [dict(row) for row in queries]
    )
    rows.sort(key=lambda row: row["query_id"])
    status: Counter[str] = Counter()
    unreadable: Counter[str] = Counter()
    dropped: Counter[str] = Counter()
    notes: Counter[str] = Counter()
    invalid = 0
    per_query = []
    for row in rows:
        missing = row["query_id"] not in loaded.by_query
        reading = Reading() if missing else read_answer(loaded.by_query[row["query_id"]])
        if reading.unreadable:
            unreadable[reading.unreadable] += 1
        dropped.update(reading.dropped)
        notes.update(reading.notes)
        invalid += len(reading.invalid_codes)
        prediction = reading.prediction if not reading.unreadable else EMPTY
        state = (
            "missing"
            if missing
            else "unreadable"
            if reading.unreadable
            else "empty"
            if prediction.empty
            else "scored"
        )
        status[state] += 1
        scores = score_query(
            row["answers"], row["answer_roots"], prediction.roots, prediction.relations, config
        )
        per_query.append(
            {
                "query_id": row["query_id"],
                "status": state,
                "dropped_items": sum(reading.dropped.values()),
                "invalid_codes": list(reading.invalid_codes),
                **scores,
            }
        )
    known = {row["query_id"] for row in rows}
    return {
        "queries": len(rows),
        "quad_mapping": config.quad_mapping,
        "kl_epsilon": config.kl_epsilon,
        "predictions": {
            **{state: status[state] for state in STATUSES},
            "unreadable_by_reason": dict(sorted(unreadable.items())),
            "dropped_items_by_reason": dict(sorted(dropped.items())),
            "read_as_the_authors_by_reason": dict(sorted(notes.items())),
            "invalid_codes": invalid,
            "unknown_query_ids": len(set(loaded.by_query) - known),
            "unreadable_records": loaded.unreadable_records,
        },
        "mean": _means(per_query),
        "per_query": per_query,
    }


def score_baseline(
    queries: pa.Table | Sequence[Mapping[str, Any]], history: History, config: ScorerConfig = ScorerConfig()
) -> dict[str, Any]:
    """The frequency baseline's forecasts for ``queries``, scored like any other forecasts."""
    forecasts = baseline_predictions(queries, history, config.baseline)
    report = score_predictions(queries, forecasts, config.quad_mapping, config.kl_epsilon)
    report["baseline"] = {**asdict(config.baseline), "skipped_quads": dict(sorted(history.skipped.items()))}
    return report


def _means(per_query: list[dict[str, Any]]) -> dict[str, Any]:
    count = len(per_query)

    def mean(values: list[float]) -> float | None:
        return sum(values) / count if count else None

    return {
        **{
            level: {name: mean([q[level][name] for q in per_query]) for name in SET_METRICS}
            for level in ("first_level", "second_level")
        },
        "binary_kl": mean([q["binary_kl"] for q in per_query]),
        "quad_kl": mean([q["quad_kl"] for q in per_query]),
    }


def report_markdown(report: dict[str, Any]) -> str:
    mean = report["mean"]

    def percent(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    def number(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    def reasons(counts: Mapping[str, int]) -> str:
        return f" ({', '.join(f'{reason} {n}' for reason, n in counts.items())})" if counts else ""

    counts = report["predictions"]
    dropped = sum(counts["dropped_items_by_reason"].values())
    rows = [
        [label, *(percent(mean[level][name]) for name in SET_METRICS)]
        for level, label in (("first_level", "first level"), ("second_level", "second level"))
    ]
    baseline = report.get("baseline")
    title = (
        [
            f"Frequency baseline: the {baseline['top_k']} most frequent relations of the pair in the "
            f"{baseline['window_days']} days up to the query date minus {baseline['horizon_days']} day(s)"
            f"{reasons(baseline['skipped_quads'])}",
            "",
        ]
        if baseline
        else []
    )
    return "\n".join(
        [
            *title,
            f"{report['queries']} queries (quad mapping {report['quad_mapping']}, "
            f"KL epsilon {report['kl_epsilon']:g}); unreadable answers and missing ones score as empty, "
            "dropped items and invalid codes (not in CAMEO) are left out of the answers they were in",
            "",
            markdown_table(
                ["scored", "empty", "unreadable", "missing", "dropped items", "invalid"],
                [
                    [
                        counts["scored"],
                        counts["empty"],
                        f"{counts['unreadable']}{reasons(counts['unreadable_by_reason'])}",
                        counts["missing"],
                        f"{dropped}{reasons(counts['dropped_items_by_reason'])}",
                        counts["invalid_codes"],
                    ]
                ],
            ),
            *(
                [
                    "",
                    "Read as MIRAI's evaluator reads them (key kept, last copy of a repeated key kept):"
                    f"{reasons(counts['read_as_the_authors_by_reason'])}",
                ]
                if counts.get("read_as_the_authors_by_reason")
                else []
            ),
            "",
            markdown_table(["relations", "precision %", "recall %", "F1 %"], rows),
            "",
            markdown_table(
                ["binary KL", f"quad KL ({report['quad_mapping']})"],
                [[number(mean["binary_kl"]), number(mean["quad_kl"])]],
            ),
            "",
        ]
    )


def _parser(prog: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Score forecasts for MIRAI-style relation queries."
    )
    parser.add_argument(
        "--queries", required=True, help="a relation_split output, e.g. data/mirai/queries/2025-05.parquet"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--predictions", help="JSONL of {query_id, prediction}, or a JSON object")
    source.add_argument(
        "--baseline", action="store_true", help="score the frequency baseline (see --quads, --top-k)"
    )
    parser.add_argument("--quads", default=QUADS_FILE, help=f"baseline history (default {QUADS_FILE})")
    parser.add_argument("--window-days", type=int, help="default: params scorer.baseline.window_days")
    parser.add_argument("--top-k", type=int, help="default: params scorer.baseline.top_k")
    parser.add_argument("--horizon-days", type=int, help="default: params scorer.baseline.horizon_days")
    parser.add_argument(
        "--quad-mapping", choices=sorted(QUAD_MAPPINGS), help="default: params scorer.quad_mapping"
    )
    parser.add_argument("--kl-epsilon", type=float, help="default: params scorer.kl_epsilon or 1e-10")
    parser.add_argument(
        "--params", default="params.yaml", help="read the scorer section when the file exists"
    )
    parser.add_argument("--out", help="write the full JSON report here")
    return parser


def _config(args: argparse.Namespace) -> ScorerConfig:
    params = load_params(args.params) if Path(args.params).exists() else {}
    config = parse_section(ScorerConfig, params, "scorer")
    options = {"window_days": args.window_days, "top_k": args.top_k, "horizon_days": args.horizon_days}
    return replace(
        config,
        quad_mapping=args.quad_mapping or config.quad_mapping,
        kl_epsilon=args.kl_epsilon if args.kl_epsilon is not None else config.kl_epsilon,
        baseline=replace(config.baseline, **{k: v for k, v in options.items() if v is not None}),
    )


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = _parser(prog).parse_args(argv)
    try:
        config = _config(args)
        queries = read_parquet(args.queries)
        if args.baseline:
            report = score_baseline(queries, read_history(args.quads), config)
        else:
            predictions = load_predictions(args.predictions)
            report = score_predictions(queries, predictions, config.quad_mapping, config.kl_epsilon)
    except (OSError, ValueError) as error:
        print(f"score: {error}", file=sys.stderr)
        return 1
    if args.out:
        write_json(report, args.out)
    sys.stdout.write(report_markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
