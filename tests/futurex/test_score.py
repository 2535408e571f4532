"""`almanac score futurex`: predictions of every level scored with the paper's formulas, by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from almanac.core.io import write_parquet
from almanac.futurex.schema import TIER_SCHEMA
from almanac.futurex.score import main, report_markdown, score_rows
from tests.futurex.events import OFFLINE, ROOT, event


def tier_row(level: int, question_id: str, **fields: Any) -> dict[str, Any]:
    row = {**event(question_id), "question_id": question_id, "level": level, "options": [], "aliases": []}
    row.update(fields)
    return row


ROWS = [
    tier_row(1, "l1a", options=["Brennford Rovers", "Kessling United"]),
    tier_row(1, "l1b", options=["Brennford Rovers", "Kessling United"]),
    tier_row(2, "l2", answers=["036 b", "042 a"], options=["010 c", "036 b", "042 a", "190 d"]),
    tier_row(3, "l3a", answers=["Marco Bellandi"], aliases=["Bellandi"]),
    tier_row(3, "l3b", answers=["Marco Bellandi"], aliases=["Bellandi"]),
    tier_row(4, "l4", answers=["100"], value=100.0, unit="count", sigma=10.0),
]
PREDICTIONS = {
    "l1a": "Kessling United",  # 1
    "l1b": "Brennford Rovers",  # 0
    "l2": ["042", "010 c"],  # the code alone names "042 a": P 1/2, R 1/2, F1 1/2
    "l3a": "bellandi",  # an alias, folded: 1
    "l3b": 7,  # not a name: unreadable, 0
    # l4 missing: scores 0 in its tier's mean, and is counted
}


def params(tmp_path: Path) -> dict[str, Any]:
    return {
        "llm": {
            "cache_path": str(tmp_path / "llm.sqlite"),
            "prompts_dir": str(ROOT / "prompts"),
            "roles": {"validator": dict(OFFLINE)},
        }
    }


def test_every_level_by_hand(tmp_path: Path) -> None:
    report = score_rows(ROWS, PREDICTIONS, params(tmp_path))
    assert report["scores"] == {
        "l1a": 1.0,
        "l1b": 0.0,
        "l2": pytest.approx(0.5),
        "l3a": 1.0,
        "l3b": 0.0,
        "l4": 0.0,
    }
    levels = report["levels"]
    assert [levels[str(n)]["mean"] for n in (1, 2, 3, 4)] == [0.5, pytest.approx(0.5), 0.5, 0.0]
    assert levels["3"]["unreadable"] == 1 and levels["4"]["missing"] == 1
    # The missing L4 prediction scores 0: 0.05 + 0.1 + 0.15 + 0.4 * 0 = 0.3 (not 0.5, as when dropped).
    assert report["overall"] == pytest.approx(0.3)
    assert report["comparable_with_paper"] is True
    assert report["judge"]["backend"] == "offline"
    report = score_rows(ROWS, {**PREDICTIONS, "l4": 95.0}, params(tmp_path))
    # L4 = 1 - (5/10)^2 = 0.75; overall 0.05 + 0.1 + 0.15 + 0.4 * 0.75 = 0.6.
    assert report["scores"]["l4"] == pytest.approx(0.75)
    assert report["overall"] == pytest.approx(0.6)


def test_an_absent_tier_counts_zero_and_the_present_tiers_score_stands_beside(tmp_path: Path) -> None:
    no_level4 = [row for row in ROWS if row["level"] != 4]
    report = score_rows(no_level4, PREDICTIONS, params(tmp_path))
    # Full: 0.05 + 0.1 + 0.15 + 0.4 * 0 = 0.3; over the tiers present: 0.3 / 0.6 = 0.5, reported beside.
    assert report["overall"] == pytest.approx(0.3)
    assert report["overall_tiers_present"]["score"] == pytest.approx(0.5)
    assert report["comparable_with_paper"] is False
    text = report_markdown(report)
    assert "0.3000" in text and "Over the tiers present only" in text and "0.5000" in text


def test_fifteen_level3_names_score_no_more_than_one_right_name(tmp_path: Path) -> None:
    row = tier_row(3, "l3", answers=["Marco Bellandi"], aliases=["Bellandi"])
    others = [f"Player {letter}" for letter in "ABCDEFGHIJKLMN"]  # 14 wrong names
    predictions = {
        "right_fifth": [*others[:4], "Marco Bellandi", *others[4:]],
        "right_first": ["Marco Bellandi", *others],
        "one_right": ["Marco Bellandi"],
    }
    scores = {
        name: score_rows([row], {"l3": prediction}, params(tmp_path))["scores"]["l3"]
        for name, prediction in predictions.items()
    }
    # k = 1: a list is cut to its first name. Fifth of 15: "Player A" alone, 0 (uncut: 0.8 * 1/1 = 0.8).
    assert scores == {"right_fifth": 0.0, "right_first": 1.0, "one_right": 1.0}
    assert max(scores["right_fifth"], scores["right_first"]) <= scores["one_right"]


def test_the_command_reads_tier_files_and_a_predictions_file(tmp_path: Path) -> None:
    tiers = tmp_path / "tiers"
    for level in (1, 2, 3, 4):
        rows = [
            {**row, "tier": "x", "distractor_sources": [], "volatility": None, "sigma_source": None}
            for row in ROWS
            if row["level"] == level
        ]
        write_parquet(pa.Table.from_pylist(rows, schema=TIER_SCHEMA), tiers / f"level{level}.parquet")
    (tmp_path / "params.yaml").write_text(json.dumps(params(tmp_path)))
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "\n".join(json.dumps({"question_id": k, "prediction": v}) for k, v in PREDICTIONS.items())
    )
    out = tmp_path / "report.json"
    args = ["--params", str(tmp_path / "params.yaml"), "--tiers", str(tiers), "--out", str(out)]
    assert main([*args, "--predictions", str(preds)]) == 0
    assert json.loads(out.read_text())["overall"] == pytest.approx(0.3)
    assert main([*args, "--baseline"]) == 0
    baseline = json.loads(out.read_text())
    assert baseline["levels"]["4"]["scored"] == 1 and baseline["scores"]["l4"] == 0.0
    (tmp_path / "bad.jsonl").write_text("not json\n")
    assert main([*args, "--predictions", str(tmp_path / "bad.jsonl")]) == 1
