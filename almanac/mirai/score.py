"""Grade forecasts for MIRAI-style queries: set precision/recall/F1 and class-level KL divergence.

Per query (then averaged over all queries, as MIRAI's macro averages):

- first level: the predicted roots (the dictionary's keys; a code under the wrong key makes the whole
  forecast malformed, so the roots of the listed codes are always among the keys) against the query's
  answer_roots; second level: the listed codes against the answers. Precision is 0 for an empty forecast,
  F1 is 0 when precision + recall is 0.
- KL divergence D(P || Q) = sum_i P(i) log(P(i) / Q(i)) over the binary (cooperation / conflict) and the
  four quad classes, where P and Q are the class frequencies of the true and the predicted first-level
  codes (each distinct root counts once, as in MIRAI's evaluator; the paper's text speaks of relations).
  Every class of both P and Q gets ``kl_epsilon`` added (MIRAI's evaluator uses 1e-10 the same way),
  so an empty or one-sided forecast costs about log(1 / epsilon) = 23.03 instead of infinity.

Missing and malformed forecasts are scored as empty ones and counted in the report.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.io import read_parquet, write_json
from almanac.core.params import load_params, parse_section
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
    as_raw_mapping,
    check_prediction,
    load_predictions,
)
from almanac.stats.markdown import markdown_table

KL_EPSILON = 1e-10
SET_METRICS = ("precision", "recall", "f1")


@dataclass(frozen=True)
class ScorerConfig:
    quad_mapping: str = "gdelt"  # gdelt (QuadClass) or mirai
    kl_epsilon: float = KL_EPSILON

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
    quad_mapping: str = "gdelt",
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
    malformed: Counter[str] = Counter()
    per_query = []
    for row in rows:
        if row["query_id"] in loaded.by_query:
            prediction, problem = check_prediction(loaded.by_query[row["query_id"]])
            if problem:
                malformed[problem] += 1
            state = "malformed" if problem else "empty" if prediction.empty else "scored"
        else:
            prediction, state = EMPTY, "missing"
        status[state] += 1
        scores = score_query(
            row["answers"], row["answer_roots"], prediction.roots, prediction.relations, config
        )
        per_query.append({"query_id": row["query_id"], "status": state, **scores})
    known = {row["query_id"] for row in rows}
    return {
        "queries": len(rows),
        "quad_mapping": config.quad_mapping,
        "kl_epsilon": config.kl_epsilon,
        "predictions": {
            **{state: status[state] for state in ("scored", "empty", "malformed", "missing")},
            "malformed_by_reason": dict(sorted(malformed.items())),
            "unknown_query_ids": len(set(loaded.by_query) - known),
            "unreadable_records": loaded.unreadable_records,
        },
        "mean": _means(per_query),
        "per_query": per_query,
    }


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

    counts = report["predictions"]
    rows = [
        [label, *(percent(mean[level][name]) for name in SET_METRICS)]
        for level, label in (("first_level", "first level"), ("second_level", "second level"))
    ]
    return "\n".join(
        [
            f"{report['queries']} queries: {counts['scored']} scored, {counts['empty']} empty, "
            f"{counts['malformed']} malformed, {counts['missing']} missing "
            f"(quad mapping {report['quad_mapping']}, KL epsilon {report['kl_epsilon']:g})",
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


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog, description="Score forecasts for MIRAI-style relation queries."
    )
    parser.add_argument(
        "--queries", required=True, help="a relation_split output, e.g. data/mirai/queries/2025-05.parquet"
    )
    parser.add_argument(
        "--predictions", required=True, help="JSONL of {query_id, prediction}, or a JSON object"
    )
    parser.add_argument(
        "--quad-mapping", choices=sorted(QUAD_MAPPINGS), help="default: params scorer.quad_mapping"
    )
    parser.add_argument("--kl-epsilon", type=float, help="default: params scorer.kl_epsilon or 1e-10")
    parser.add_argument(
        "--params", default="params.yaml", help="read the scorer section when the file exists"
    )
    parser.add_argument("--out", help="write the full JSON report here")
    args = parser.parse_args(argv)
    params = load_params(args.params) if Path(args.params).exists() else {}
    config = parse_section(ScorerConfig, params, "scorer")
    try:
        queries = read_parquet(args.queries)
        predictions = load_predictions(args.predictions)
    except (OSError, ValueError) as error:
        print(f"score: {error}", file=sys.stderr)
        return 1
    report = score_predictions(
        queries,
        predictions,
        args.quad_mapping or config.quad_mapping,
        args.kl_epsilon if args.kl_epsilon is not None else config.kl_epsilon,
    )
    if args.out:
        write_json(report, args.out)
    sys.stdout.write(report_markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
