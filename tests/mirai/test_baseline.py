"""The frequency baseline on a hand-built history, and `--baseline` on both command lines.

Window rule (baseline.py): for a query dated t the baseline reads only days d with
t - horizon_days - window_days < d <= t - horizon_days, so with horizon 1 the query day is never read.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from almanac.core.io import write_parquet
from almanac.mirai.baseline import (
    BaselineConfig,
    baseline_predictions,
    build_history,
    frequency_forecast,
    read_history,
    window,
)
from almanac.mirai.score import ScorerConfig, main, score_baseline
from tests.mirai.quads import quad, table

QUERY_DAY = date(2025, 5, 10)


def _row(day: str, subject: str, relation: str, obj: str) -> dict[str, Any]:
    return {"date": date.fromisoformat(day), "subject": subject, "relation": relation, "object": obj}


# USA -> CHN, query (2025-05-10, USA, ?, CHN). Days in the default window (365 days up to 2025-05-09):
#   042 on 05-09, 05-08, 05-01 -> 3 days; 036 on 05-08, 04-01 -> 2; 043 on 05-09 (twice: one day) -> 1;
#   057 on 05-01 -> 1
# Never to be read: 190 on the query day and 180 the day after (the future); 173 on three days just
# before the window opens (2024-05-07..09: window_days 365 starts at 2024-05-10); 111 the other way round
# (CHN -> USA) on three days.
HISTORY = [
    _row("2025-05-09", "USA", "042", "CHN"),
    _row("2025-05-08", "USA", "042", "CHN"),
    _row("2025-05-01", "USA", "042", "CHN"),
    _row("2025-05-08", "USA", "036", "CHN"),
    _row("2025-04-01", "USA", "036", "CHN"),
    _row("2025-05-09", "USA", "043", "CHN"),
    _row("2025-05-09", "USA", "043", "CHN"),
    _row("2025-05-01", "USA", "057", "CHN"),
    _row("2025-05-10", "USA", "190", "CHN"),
    _row("2025-05-11", "USA", "180", "CHN"),
    *(_row(f"2024-05-0{d}", "USA", "173", "CHN") for d in (7, 8, 9)),
    *(_row(f"2025-05-0{d}", "CHN", "111", "USA") for d in (7, 8, 9)),
]


def _forecast(**config: int) -> dict[str, list[str]]:
    return frequency_forecast(build_history(HISTORY), "USA", "CHN", QUERY_DAY, BaselineConfig(**config))


def test_window_ends_the_day_before_the_query_by_default() -> None:
    # horizon 1, 365 days: last = 05-10 - 1 = 2025-05-09, first = 2025-05-09 - 364 = 2024-05-10
    assert window(QUERY_DAY, BaselineConfig()) == (date(2024, 5, 10), date(2025, 5, 9))
    # horizon 7, 30 days: last = 05-03, first = 05-03 - 29 = 04-04
    assert window(QUERY_DAY, BaselineConfig(window_days=30, horizon_days=7)) == (
        date(2025, 4, 4),
        date(2025, 5, 3),
    )


def test_top_three_relations_of_the_pair() -> None:
    # 042 (3 days), 036 (2), then 043 and 057 tie on 1 day: 043 was seen later (05-09 vs 05-01)
    assert _forecast() == {"03": ["036"], "04": ["042", "043"]}


def test_nothing_on_or_after_the_query_day_is_read() -> None:
    # top_k large enough to list everything in the window: 190 (query day) and 180 (the day after) are
    # absent, as are 173 (before the window) and 111 (the other direction)
    forecast = _forecast(top_k=10)
    assert forecast == {"03": ["036"], "04": ["042", "043"], "05": ["057"]}
    assert "19" not in forecast and "18" not in forecast and "17" not in forecast and "11" not in forecast


def test_horizon_moves_the_cut_off_back() -> None:
    # horizon 2: last day 05-08, so 043 (05-09 only) drops out and 042 loses a day:
    # 042 2 days (05-08, 05-01), 036 2 (05-08, 04-01), 057 1 -> 036 and 042 tie on count and on the
    # last day (05-08): the lower code first; then 057
    assert _forecast(horizon_days=2) == {"03": ["036"], "04": ["042"], "05": ["057"]}


def test_window_boundaries() -> None:
    # window 8 days: 05-02..05-09 -> 042 2 days, 036 1, 043 1; 057 (05-01) is one day outside
    assert _forecast(window_days=8, top_k=10) == {"03": ["036"], "04": ["042", "043"]}
    # window 9 days: 05-01..05-09 -> 057 is on the first day and counts
    assert _forecast(window_days=9, top_k=10) == {"03": ["036"], "04": ["042", "043"], "05": ["057"]}
    # 400 days reach back to 2025-05-09 - 399 = 2024-04-05: 173's three days now count and tie with 042 on 3 days;
    # 042 was seen later (05-09 vs 2024-05-09) -> 042, 173, then 036 (2 days)
    assert _forecast(window_days=400) == {"03": ["036"], "04": ["042"], "17": ["173"]}


def test_pair_without_history_gets_the_empty_forecast() -> None:
    assert frequency_forecast(build_history(HISTORY), "USA", "RUS", QUERY_DAY, BaselineConfig()) == {}


def test_unusable_quad_rows_are_skipped_and_counted() -> None:
    rows = [
        _row("2025-05-09", "USA", "042", "CHN"),
        {"date": None, "subject": "USA", "relation": "042", "object": "CHN"},
        _row("2025-05-09", "", "042", "CHN"),
        _row("2025-05-09", "USA", "0421", "CHN"),  # a third-level code
        _row(
            "2025-05-09", "USA", "049", "CHN"
        ),  # well formed, not in CAMEO: the scorer would call it invalid
    ]
    history = build_history(rows)
    assert history.skipped == {"no_date": 1, "no_pair": 1, "not_a_relation_code": 1, "not_in_cameo": 1}
    assert history.by_pair == {("USA", "CHN"): [(date(2025, 5, 9), "042")]}


def test_config_rejects_a_horizon_that_reads_the_query_day() -> None:
    with pytest.raises(ValueError, match="horizon_days"):
        BaselineConfig(horizon_days=0)
    with pytest.raises(ValueError, match="top_k"):
        BaselineConfig(top_k=0)
    with pytest.raises(ValueError, match="window_days"):
        BaselineConfig(window_days=0)


def test_baseline_forecasts_are_scored_like_any_forecast() -> None:
    # q1 (2025-05-10, USA, CHN) truth {04: [042], 19: [190]}: forecast {03: [036], 04: [042, 043]}
    #   2nd: 1 hit of 3 predicted, 2 true -> P 1/3, R 1/2, F1 2 (1/6) / (5/6) = 2/5
    # q2 (2025-05-10, USA, RUS) truth {04: [042]}: no history -> empty, all 0
    # means: 2nd P 1/6, R 1/4, F1 1/5
    queries: list[dict[str, Any]] = [
        {"query_id": "q1", "date": QUERY_DAY, "subject": "USA", "object": "CHN", "answers": ["042", "190"]},
        {"query_id": "q2", "date": QUERY_DAY, "subject": "USA", "object": "RUS", "answers": ["042"]},
    ]
    for row in queries:
        row["answer_roots"] = sorted({code[:2] for code in row["answers"]})
    history = build_history(HISTORY)
    assert baseline_predictions(queries, history, BaselineConfig()) == {
        "q1": {"03": ["036"], "04": ["042", "043"]},
        "q2": {},
    }
    report = score_baseline(queries, history, ScorerConfig())
    assert report["mean"]["second_level"] == pytest.approx({"precision": 1 / 6, "recall": 1 / 4, "f1": 1 / 5})
    assert report["predictions"]["empty"] == 1 and report["predictions"]["invalid_codes"] == 0
    assert report["baseline"] == {"window_days": 365, "top_k": 3, "horizon_days": 1, "skipped_quads": {}}


def _files(tmp_path: Path) -> list[str]:
    """A two-query split and a quads.parquet history; the --queries/--quads options naming them."""
    from tests.mirai.test_score_inputs import _queries_file

    queries = tmp_path / "queries.parquet"
    _queries_file(queries)  # (2025-05-12, USA, CHN) answers 042 043; (2025-05-13, FRA, DEU) 042 051
    rows = [
        quad("2025-05-10", "USA", "042", "CHN", 150, ["u"]),
        quad("2025-05-11", "USA", "042", "CHN", 150, ["u"]),
        quad("2025-05-12", "USA", "043", "CHN", 150, ["u"]),  # the query day: must not be read
        quad("2025-05-01", "FRA", "051", "DEU", 150, ["u"]),
    ]
    write_parquet(table(rows), tmp_path / "quads.parquet")
    return ["--queries", str(queries), "--quads", str(tmp_path / "quads.parquet")]


def test_command_line_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # USA-CHN: 042 on 2 days before 05-12 (043 is on the query day) -> {04: [042]}: 2nd P 1, R 1/2
    # FRA-DEU: 051 -> {05: [051]}: 2nd P 1, R 1/2 -> means P 100.0, R 50.0, F1 66.7
    # (had the query day leaked, USA-CHN would also get 043 and its recall would be 1)
    out = tmp_path / "report.json"
    files = _files(tmp_path)
    assert main([*files, "--baseline", "--params", str(tmp_path / "none.yaml"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(
        "Frequency baseline: the 3 most frequent relations of the pair in the 365 days up to the query "
        "date minus 1 day(s)"
    )
    assert "| second level | 100.0 | 50.0 | 66.7 |" in printed
    report = json.loads(out.read_text())
    assert report["baseline"]["top_k"] == 3 and report["quad_mapping"] == "mirai"
    assert report["mean"]["second_level"]["recall"] == pytest.approx(0.5)
    # --baseline and --predictions exclude each other
    with pytest.raises(SystemExit):
        main([*files, "--baseline", "--predictions", str(out)])


def test_almanac_score_baseline_reads_params_and_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.cli import main as almanac_main

    files = _files(tmp_path)
    params = tmp_path / "p.yaml"
    # a 5-day window ending the day before: USA-CHN keeps 042 (05-10, 05-11); FRA-DEU's 051 (05-01) is
    # outside 05-08..05-12 -> empty: 2nd-level means P (1 + 0) / 2 = 50.0, R (1/2 + 0) / 2 = 25.0
    params.write_text("scorer:\n  baseline:\n    window_days: 5\n    top_k: 2\n    horizon_days: 1\n")
    out = tmp_path / "report.json"
    assert almanac_main(["--params", str(params), "score", *files, "--baseline", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "the 2 most frequent relations of the pair in the 5 days" in printed
    assert "| second level | 50.0 | 25.0 |" in printed
    assert json.loads(out.read_text())["predictions"]["empty"] == 1
    # an option after `score` overrides params: a 20-day window (FRA-DEU: 04-23..05-12) brings 051 back
    # -> P (1 + 1) / 2 = 100.0, R (1/2 + 1/2) / 2 = 50.0, F1 2/3
    assert almanac_main(["--params", str(params), "score", *files, "--baseline", "--window-days", "20"]) == 0
    assert "| second level | 100.0 | 50.0 | 66.7 |" in capsys.readouterr().out
    assert read_history(tmp_path / "quads.parquet").skipped == {}
