"""The scorer on bad answers and input files, and its command line (natural logs; epsilon = 1e-10)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from almanac.core.io import write_parquet
from almanac.core.schemas import table_from_rows
from almanac.mirai.predictions import Prediction, load_predictions, parse_predictions, read_answer
from almanac.mirai.relation_split import QUERY_SCHEMA, Group, query_row
from almanac.mirai.score import main, report_markdown, score_predictions
from tests.mirai.quads import REGIONS
from tests.mirai.score_cases import HALF_MISSING, LN_1E10, _query


# truth {04: [042, 043]}; each forecast is {"04": ["042"]} plus one malformed item, which is dropped while
# the rest is scored as if it were alone: 1st level {04} vs {04} -> 1, 1, 1; 2nd level {042} of
# {042, 043} -> P 1, R 1/2, F1 2/3; quad and binary KL 0 (04 on both sides).
@pytest.mark.parametrize(
    ("forecast", "reason", "count"),
    [
        ({"04": ["042"], "4": ["043"]}, "bad_root_key", 1),  # not two digits: 043 goes with it
        ({"04": ["042"], "21": ["043"]}, "bad_root_key", 1),  # no root 21
        ({"04": ["042"], "043": []}, "bad_root_key", 1),  # a second-level code as a key
        ({"04": ["042", "036"]}, "wrong_root", 1),  # 036 is under 03: neither 036 nor 03 is predicted
        ({"04": ["042", "0431"]}, "bad_code", 1),  # a third-level (4-digit) code
        ({"04": ["042", "43", ["043"]]}, "bad_code", 2),  # too short, and a list inside the list
        ({"04": ["042"], "99": [43, None]}, "bad_root_key", 1),  # a bad key's value is never looked at
    ],
)
def test_malformed_item_is_dropped_and_the_rest_scored(forecast: object, reason: str, count: int) -> None:
    report = score_predictions([_query("q", ["042", "043"])], {"q": forecast})
    result = report["per_query"][0]
    assert result["status"] == "scored"
    assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["quad_kl"] == pytest.approx(0.0, abs=1e-12)
    assert result["binary_kl"] == pytest.approx(0.0, abs=1e-12)
    assert result["dropped_items"] == count
    assert report["predictions"]["dropped_items_by_reason"] == {reason: count}
    assert report["predictions"]["invalid_codes"] == 0 and report["predictions"]["unreadable"] == 0


def test_every_kind_dropped_in_one_answer_is_counted_by_reason() -> None:
    # one answer with one item of each kind, plus the good 04: [042]
    forecast = {"04": ["042", "036", "0431", "049"], "4": [], "03": "036", "10": ["109"]}
    report = score_predictions([_query("q", ["042", "043"])], {"q": forecast})
    result = report["per_query"][0]
    # 10 is a valid root whose only code (109) is not in CAMEO, and 03's value is a string: both roots
    # stay predicted (MIRAI kept every valid key) -> 1st level {03, 04, 10} vs {04}: P 1/3, R 1,
    # F1 2 * 1/3 / (4/3) = 1/2; 2nd level {042}: 1, 1/2, 2/3
    assert result["first_level"] == pytest.approx({"precision": 1 / 3, "recall": 1.0, "f1": 0.5})
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["invalid_codes"] == ["049", "109"]
    assert report["predictions"]["dropped_items_by_reason"] == {
        "bad_code": 1,
        "bad_root_key": 1,
        "wrong_root": 1,
    }
    assert report["predictions"]["read_as_the_authors_by_reason"] == {"not_a_list": 1}
    assert report["predictions"]["invalid_codes"] == 2


def test_invalid_code_is_counted_never_a_false_positive() -> None:
    # truth {04: [042, 043]}, forecast {04: [042, 049]}: 049 is three digits under its own root but not
    # a CAMEO code. Dropped and counted invalid: 2nd level {042} -> P 1 (not 1/2), R 1/2, F1 2/3.
    report = score_predictions([_query("q", ["042", "043"])], {"q": {"04": ["042", "049"]}})
    result = report["per_query"][0]
    assert result["status"] == "scored" and result["invalid_codes"] == ["049"]
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    counts = report["predictions"]
    assert (counts["invalid_codes"], counts["dropped_items_by_reason"], counts["scored"]) == (1, {}, 1)
    assert "| 1 | 0 | 0 | 0 | 0 | 1 |" in report_markdown(report)  # scored ... dropped items, invalid
    # Only invalid codes: the root key is still a first-level forecast; the second level predicts nothing
    # -> P 0 (empty predicted set), R 0.
    alone = score_predictions([_query("q", ["042"])], {"q": {"04": ["049"]}})["per_query"][0]
    assert alone["first_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    assert alone["second_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


@pytest.mark.parametrize(
    ("forecast", "reason"),
    [
        (["042"], "not_a_dict"),
        ('["042"]', "not_a_dict"),
        (42, "not_a_dict"),
        (None, "not_a_dict"),
        ("Final Answer: 04 042", "unparseable"),
        ("{'04': ['042'", "unparseable"),
        ("__import__('os').getcwd()", "unparseable"),  # only literals are read, never code
        ("[" * 5000 + "]" * 5000, "unparseable"),  # deeper than the parser's stack: counted, no crash
    ],
)
def test_unreadable_answers_score_as_empty(forecast: object, reason: str) -> None:
    # truth {04: [042]} scored as an empty forecast: 0s and binary KL ln(1e10)
    report = score_predictions([_query("q", ["042"])], {"q": forecast})
    result = report["per_query"][0]
    assert result["status"] == "unreadable"
    assert result["second_level"] == result["first_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert result["binary_kl"] == pytest.approx(LN_1E10, abs=1e-6)
    assert report["predictions"]["unreadable_by_reason"] == {reason: 1}


def test_answer_text_is_read_as_a_python_literal_like_the_authors_eval() -> None:
    # MIRAI's evaluator eval()-ed the answer text, so single quotes read and a repeated key keeps its
    # last copy (what eval of a dict display does); JSON's null is no Python name: eval fails, all lost.
    assert read_answer('{"04": ["042"]}').prediction == Prediction(frozenset({"04"}), frozenset({"042"}))
    assert read_answer("{'04': ['042']}").prediction == Prediction(frozenset({"04"}), frozenset({"042"}))
    repeated = read_answer("{'04': ['042'], '03': ['036'], '03': []}")
    assert repeated.prediction == Prediction(frozenset({"03", "04"}), frozenset({"042"}))
    assert repeated.dropped == {} and repeated.notes == {"repeated_key": 1}
    assert read_answer("{4: ['042'], '04': ['043']}").dropped == {"bad_root_key": 1}
    assert read_answer('{"04": ["042"], "99": null}').unreadable == "unparseable"


def test_file_formats_duplicates_and_unreadable_lines() -> None:
    lines = [
        json.dumps({"query_id": "a", "prediction": {"04": ["042"]}}),
        "not json at all",
        json.dumps({"query_id": "b", "prediction": {"04": ["042"]}}),
        json.dumps({"query_id": "b", "prediction": {"19": ["190"]}}),  # b twice: ambiguous
        '{"query_id": "c", "prediction": {"04": ["042"], "04": ["043"]}}',  # a repeated key, nothing else
        json.dumps({"query_id": "zz", "prediction": {}}),  # not a query of this split
        json.dumps({"prediction": {}}),  # no query id
        "",
    ]
    loaded = parse_predictions("\n".join(lines))
    assert loaded.unreadable_records == 2
    queries = [_query(q, ["042"]) for q in ("a", "b", "c", "d")]
    report = score_predictions(queries, loaded)
    status = {q["query_id"]: q["status"] for q in report["per_query"]}
    # c's only key is repeated: the last copy (043) is kept -> scored, first level right, second wrong
    assert status == {"a": "scored", "b": "unreadable", "c": "scored", "d": "missing"}
    assert report["predictions"] == {
        "scored": 2,
        "empty": 0,
        "unreadable": 1,
        "missing": 1,
        "unreadable_by_reason": {"duplicate_query_id": 1},
        "dropped_items_by_reason": {},
        "read_as_the_authors_by_reason": {"repeated_key": 1},
        "invalid_codes": 0,
        "unknown_query_ids": 1,
        "unreadable_records": 2,
    }
    # means over all four queries: only a is right at the second level (F1 1) -> 1/4; KL is 0 for a and
    # c (root 04 on both sides), ~ln(1e10) for the empty b and d
    assert report["mean"]["second_level"]["f1"] == pytest.approx(0.25)
    assert report["mean"]["binary_kl"] == pytest.approx(2 * LN_1E10 / 4, abs=1e-6)


def test_a_line_nested_too_deeply_is_an_unreadable_record() -> None:
    deep = json.dumps({"query_id": "b", "prediction": {"04": ["042"]}})[:-1] + ', "x": ' + "[" * 5000
    text = json.dumps({"query_id": "a", "prediction": {"04": ["042"]}}) + "\n" + deep + "]" * 5000 + "}\n"
    loaded = parse_predictions(text)
    assert loaded.by_query == {"a": {"04": ["042"]}} and loaded.unreadable_records == 1


def test_json_object_and_json_list_forms_read_the_same() -> None:
    as_object = parse_predictions(json.dumps({"a": {"04": ["042"]}, "b": {}}))
    as_list = parse_predictions(
        json.dumps([{"query_id": "a", "prediction": {"04": ["042"]}}, {"query_id": "b", "prediction": {}}])
    )
    one_line = parse_predictions(json.dumps({"query_id": "a", "prediction": {"04": ["042"]}}))
    assert as_object.by_query == as_list.by_query == {"a": {"04": ["042"]}, "b": {}}
    assert one_line.by_query == {"a": {"04": ["042"]}}
    repeated = parse_predictions('{"a": {}, "a": {"04": ["042"]}}')
    assert score_predictions([_query("a", ["042"])], repeated)["predictions"]["unreadable_by_reason"] == {
        "duplicate_query_id": 1
    }


def _queries_file(path: Path) -> None:
    groups = [
        Group(date(2025, 5, 12), "USA", "CHN", {"042", "043"}, 150, {"u1", "u2", "u3", "u4", "u5"}),
        Group(date(2025, 5, 13), "FRA", "DEU", {"042", "051"}, 150, {"u1", "u2", "u3", "u4", "u5"}),
    ]
    rows = [query_row(g, "2025-05", REGIONS, (1, 7, 30, 90)) for g in groups]
    write_parquet(table_from_rows(sorted(rows, key=lambda r: r["query_id"]), QUERY_SCHEMA), path)


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = tmp_path / "queries.parquet"
    _queries_file(queries)
    from almanac.core.ids import content_id

    usa, fra = content_id("2025-05-12", "USA", "CHN"), content_id("2025-05-13", "FRA", "DEU")
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(
        json.dumps({"query_id": usa, "prediction": {"04": ["042"], "03": ["036"]}})
        + "\n"
        + json.dumps({"query_id": fra, "prediction": {"04": ["042"]}})
        + "\n"
    )
    out = tmp_path / "report.json"
    args = [
        "--queries",
        str(queries),
        "--predictions",
        str(predictions),
        "--params",
        str(tmp_path / "none.yaml"),
    ]
    assert main([*args, "--out", str(out)]) == 0  # no params file: the default mapping, mirai
    report = json.loads(out.read_text())
    # USA-CHN is the brief example (second-level F1 1/2, quad KL 0); FRA-DEU is the root-05 case
    # (second-level F1 2/3, mirai quad KL 10.8197783) -> means 7/12 and 5.4098892
    assert report["quad_mapping"] == "mirai" and report["queries"] == 2
    assert report["mean"]["second_level"]["f1"] == pytest.approx(7 / 12)
    assert report["mean"]["quad_kl"] == pytest.approx(HALF_MISSING / 2, abs=1e-6)
    table = capsys.readouterr().out
    assert "2 queries (quad mapping mirai, KL epsilon 1e-10)" in table
    assert "| 2 | 0 | 0 | 0 | 0 | 0 |" in table  # scored, empty, unreadable, missing, dropped, invalid
    assert "| second level | 75.0 | 50.0 | 58.3 |" in table  # P (1/2 + 1)/2, R (1/2 + 1/2)/2, F1 7/12
    assert "| 0.000 | 5.410 |" in table
    assert main([*args, "--quad-mapping", "gdelt"]) == 0  # gdelt: the root-05 case costs nothing
    assert "| 0.000 | 0.000 |" in capsys.readouterr().out


def _gdelt_mapping_files(tmp_path: Path) -> tuple[list[str], Path]:
    """(--queries/--predictions options with no predictions, a params file choosing the gdelt mapping)."""
    queries = tmp_path / "queries.parquet"
    _queries_file(queries)
    (tmp_path / "p.yaml").write_text("scorer:\n  quad_mapping: gdelt\n")
    (tmp_path / "preds.json").write_text("{}")
    return ["--queries", str(queries), "--predictions", str(tmp_path / "preds.json")], tmp_path / "p.yaml"


def test_command_line_reads_the_mapping_from_params(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, params = _gdelt_mapping_files(tmp_path)
    assert main([*files, "--params", str(params)]) == 0
    assert "quad mapping gdelt" in capsys.readouterr().out
    assert load_predictions(tmp_path / "preds.json").by_query == {}


def test_command_line_missing_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "--queries",
                str(tmp_path / "nope.parquet"),
                "--predictions",
                str(tmp_path / "x.jsonl"),
                "--params",
                str(tmp_path / "none.yaml"),
            ]
        )
        == 1
    )
    assert "nope.parquet" in capsys.readouterr().err


def test_almanac_score_passes_the_global_params_and_its_own_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.cli import main as almanac_main

    files, params = _gdelt_mapping_files(tmp_path)
    # The global --params reaches the scorer ...
    assert almanac_main(["--params", str(params), "score", *files]) == 0
    assert "quad mapping gdelt" in capsys.readouterr().out
    # ... and an option after `score` overrides it.
    assert almanac_main(["--params", str(params), "score", *files, "--quad-mapping", "mirai"]) == 0
    assert "quad mapping mirai" in capsys.readouterr().out
    # Other commands still reject options they do not know.
    with pytest.raises(SystemExit):
        almanac_main(["status", *files])


def test_almanac_score_names_its_two_scorers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from almanac.cli import main as almanac_main

    assert almanac_main(["score", "--help"]) == 0
    listing = capsys.readouterr().out
    assert "almanac score {mirai,futurex}" in listing
    assert "\n  mirai " in listing and "\n  futurex " in listing
    assert almanac_main(["score"]) == 2  # no scorer named: the listing, on stderr
    assert "mirai" in capsys.readouterr().err
    files, params = _gdelt_mapping_files(tmp_path)
    assert almanac_main(["--params", str(params), "score", "mirai", *files]) == 0
    assert "quad mapping gdelt" in capsys.readouterr().out
    with pytest.raises(SystemExit):  # each scorer's own --help
        almanac_main(["score", "mirai", "--help"])
    assert "--predictions" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        almanac_main(["score", "futurex", "--help"])
    assert "almanac score futurex" in capsys.readouterr().out
