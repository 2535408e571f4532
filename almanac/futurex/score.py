"""``almanac score futurex``: score predictions (or a floor baseline) against the four tiers.

Predictions: one JSON line per question, ``{"question_id": "...", "prediction": P}``: Level 1 an option
(text), Level 2 a list of options (texts, or CAMEO codes alone), Level 3 a string (or a list, for a
ranking), Level 4 a number. A prediction of the wrong type scores 0 (``unreadable``). A question with
no prediction scores 0 and counts in its tier's mean (``missing``): FutureX's appendix F lets a live
pipeline's missing predictions fall out, but on a fixed set skipping the hard questions would then pay.
A Level-3 list longer than the truth is cut to its first k items (equation 1 scores k predicted items).
The overall score weighs all four tiers (an absent tier 0); the mean over the tiers present is reported
beside it (``overall_tiers_present``), never instead.
Level 3 is judged by the ``futurex.score.judge_role`` role through the LLM layer (cache, retries); the
offline backend matches normalised text or an alias. The report names the judge's backend and model.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import almanac.futurex.llm_tasks  # noqa: F401 (registers the judge task)
from almanac.core.io import read_parquet, write_json
from almanac.core.params import load_params
from almanac.core.rejects import StageLedger
from almanac.futurex.config import parse_futurex
from almanac.futurex.llm_tasks.answer_judge import ANSWER_JUDGE, judge_item
from almanac.futurex.metrics import (
    clipped_score,
    exact_match,
    f1_score,
    limit_prediction,
    overall_present,
    overall_score,
    ranking_score,
)
from almanac.futurex.schema import LEVELS, TIER_NAMES
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.llm.tasks import run_task

Row = Mapping[str, Any]


def read_tiers(folder: Path) -> list[dict[str, Any]]:
    files = [folder / f"level{level}.parquet" for level in LEVELS]
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise ValueError(f"no tier files {missing}: run `dvc repro futurex_tiers` first")
    return [row for path in files for row in read_parquet(path).to_pylist()]


def load_predictions(path: Path) -> dict[str, Any]:
    predictions: dict[str, Any] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            predictions[str(record["question_id"])] = record.get("prediction")
        except (json.JSONDecodeError, KeyError, TypeError) as error:
            raise ValueError(
                f"{path}:{number}: not a {{'question_id', 'prediction'}} JSON line ({error})"
            ) from error
    return predictions


def baseline_prediction(row: Row) -> Any:
    """A floor: the first option (L1), every option (L2), no name (L3), zero (L4)."""
    return {1: (row["options"] or [""])[0], 2: list(row["options"]), 3: "", 4: 0.0}[int(row["level"])]


def _option_key(option: str) -> str:
    return option.split()[0] if option.split() else option


def _choice_score(row: Row, prediction: Any) -> float | None:
    level = int(row["level"])
    if level == 1:
        return exact_match(row["answers"][0], prediction) if isinstance(prediction, str) else None
    if not isinstance(prediction, list) or not all(isinstance(item, str) for item in prediction):
        return None
    # A Level-2 option may be named by its code alone ("042" for "042 Make a visit").
    keys = {_option_key(option): option for option in row["options"]}
    chosen = {str(keys.get(_option_key(item), item)) for item in prediction}
    return f1_score(row["answers"], chosen)


def score_rows(
    rows: Sequence[Row],
    predictions: Mapping[str, Any],
    params: Mapping[str, Any],
    cache_path: Path | None = None,
) -> dict[str, Any]:
    config = parse_futurex(params).score
    llm = parse_llm_config(params)
    role = llm.role(config.judge_role)
    scores: dict[str, float] = {}
    counts = {level: {"questions": 0, "scored": 0, "missing": 0, "unreadable": 0} for level in LEVELS}
    open_rows: list[tuple[Row, list[str]]] = []
    for row in rows:
        level, question_id = int(row["level"]), str(row["question_id"])
        counts[level]["questions"] += 1
        if question_id not in predictions:
            counts[level]["missing"] += 1
            scores[question_id] = 0.0  # counts in the tier mean: no prediction is a wrong one
            continue
        prediction = predictions[question_id]
        score: float | None
        if level in (1, 2):
            score = _choice_score(row, prediction)
        elif level == 4:
            valid = isinstance(prediction, int | float) and not isinstance(prediction, bool)
            score = (
                clipped_score(float(row["value"]), float(prediction), float(row["sigma"])) if valid else None
            )
        else:
            items = [prediction] if isinstance(prediction, str) else prediction
            if isinstance(items, list) and all(isinstance(item, str) for item in items):
                open_rows.append((row, items))
                continue
            score = None
        if score is None:
            counts[level]["unreadable"] += 1
            score = 0.0
        scores[question_id] = score
        counts[level]["scored"] += 1
    scores.update(_judge_open(open_rows, role, llm, cache_path))
    counts[3]["scored"] += len(open_rows)
    means: dict[int, float | None] = {}
    for level in LEVELS:
        level_scores = [
            scores[str(row["question_id"])]
            for row in rows
            if int(row["level"]) == level and str(row["question_id"]) in scores
        ]
        means[level] = sum(level_scores) / len(level_scores) if level_scores else None
    present, used = overall_present(means, config.weights)
    return {
        "levels": {
            str(level): {"tier": TIER_NAMES[level], **counts[level], "mean": means[level]} for level in LEVELS
        },
        "weights": list(config.weights),
        "overall": overall_score(means, config.weights),
        "overall_tiers_present": {
            "score": present,
            "weights_used": {str(level): weight for level, weight in used.items()},
        },
        "comparable_with_paper": len(used) == len(LEVELS),
        "judge": {"role": config.judge_role, "backend": role.backend, "model": role.model},
        "scores": dict(sorted(scores.items())),
    }


def _judge_open(
    open_rows: Sequence[tuple[Row, list[str]]], role: Any, llm: Any, cache_path: Path | None
) -> dict[str, float]:
    """Judge every (true item, predicted item) pair once, then apply equation 1 with the verdicts."""
    items, keys = [], []
    for row, predicted in open_rows:
        for i, gold in enumerate(row["answers"]):
            for j, guess in enumerate(limit_prediction(predicted, len(row["answers"]))):
                keys.append((str(row["question_id"]), gold, guess))
                items.append(
                    judge_item(f"{row['question_id']}:{i}:{j}", row["question"], gold, row["aliases"], guess)
                )
    if not items:
        return {}
    ledger = StageLedger("futurex_score")
    with LLMCache(cache_path or llm.cache_path) as cache:
        results = run_task(role, ANSWER_JUDGE, items, cache, ledger, llm.prompts_dir)
    verdicts = {key: bool(result.ok and result.value) for key, result in zip(keys, results, strict=True)}
    scores: dict[str, float] = {}
    for row, predicted in open_rows:
        question_id = str(row["question_id"])

        def same(gold: str, guess: str, question_id: str = question_id) -> bool:
            return verdicts[(question_id, gold, guess)]

        scores[question_id] = ranking_score(list(row["answers"]), predicted, same)
    return scores


def report_markdown(report: Mapping[str, Any]) -> str:
    lines = [
        "| level | tier | questions | scored | missing | unreadable | mean |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for level, entry in report["levels"].items():
        mean = "-" if entry["mean"] is None else f"{entry['mean']:.4f}"
        lines.append(
            f"| {level} | {entry['tier']} | {entry['questions']} | {entry['scored']} | {entry['missing']} "
            f"| {entry['unreadable']} | {mean} |"
        )
    judge = report["judge"]
    weights = ", ".join(f"L{level} {weight:.2f}" for level, weight in enumerate(report["weights"], 1))
    lines += [
        "",
        f"Overall (FutureX weights {weights}; a tier with no question counts 0): {report['overall']:.4f}",
    ]
    if not report["comparable_with_paper"]:
        present = report["overall_tiers_present"]
        used = ", ".join(f"L{level} {weight:.4f}" for level, weight in present["weights_used"].items())
        score = "-" if present["score"] is None else f"{present['score']:.4f}"
        lines.append(f"Over the tiers present only (weights {used}; not comparable with FutureX's): {score}")
    lines += [
        f"Level-3 judge: role {judge['role']}, backend {judge['backend']}, model {judge['model']}",
        "",
    ]
    return "\n".join(lines)


def _parser(prog: str | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument(
        "--tiers", type=Path, default=Path("data/futurex/tiers"), help="folder of level<N>.parquet"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--predictions", type=Path, help="JSONL: one {question_id, prediction} a line")
    source.add_argument("--baseline", action="store_true", help="score the floor baseline instead")
    parser.add_argument("--out", type=Path, help="write the report JSON here")
    return parser


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    args = _parser(prog).parse_args(argv)
    try:
        params = load_params(args.params)
        rows = read_tiers(args.tiers)
        if args.baseline:
            predictions = {str(row["question_id"]): baseline_prediction(row) for row in rows}
        else:
            predictions = load_predictions(args.predictions)
        report = score_rows(rows, predictions, params)
    except (OSError, ValueError) as error:
        print(f"score futurex: {error}", file=sys.stderr)
        return 1
    if args.out:
        write_json(report, args.out)
    sys.stdout.write(report_markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
