"""``almanac import openforesight``: released records -> split files, with every bad record a reject."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from almanac import cli
from almanac.core.ids import content_id
from almanac.core.schemas import REJECT_SCHEMA
from almanac.foresight.release_import import html_to_text, import_openforesight, question_from_record
from almanac.foresight.schema import RELEASED_COLUMNS

FIXTURE = Path(__file__).parent / "fixtures" / "openforesight" / "released_sample.jsonl"


def _good(**changes: object) -> dict[str, object]:
    record: dict[str, object] = {
        "question_title": "Who will open the new bridge by June 3, 2025?",
        "background": "Question Start Date: 12th May 2025. A new bridge is nearly finished.",
        "resolution_criteria": "Source of truth: the city.",
        "answer": "Lena Ortiz",
        "answer_type": "String (Name)",
        "url": "https://city.example/bridge",
        "article_title": "Ortiz opens bridge",
        "article_publish_date": "2025-06-02",
        "resolution_date": "2025-06-02",
    }
    record.update(changes)
    return record


def _rows(folder: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in sorted((folder / "splits").rglob("*.parquet")):
        rows += pq.read_table(path).to_pylist()
    return rows


def test_fixture_imports_good_rows_and_rejects_each_bad_one_with_its_reason(tmp_path: Path) -> None:
    result = import_openforesight(FIXTURE, tmp_path, "test")
    # 11 lines: one blank (no record), 4 good, 6 bad.
    assert (result.ledger.items_in, result.imported, result.ledger.rejected) == (10, 4, 6)
    rejects = pq.read_table(tmp_path / "rejects" / "test.parquet")
    assert rejects.schema.equals(REJECT_SCHEMA)
    by_line = dict(
        zip(rejects.column("source").to_pylist(), rejects.column("reason").to_pylist(), strict=True)
    )
    assert by_line == {
        "released_sample.jsonl:4": "resolution_date_unknown",
        "released_sample.jsonl:5": "answer_missing",
        "released_sample.jsonl:6": "malformed_json",
        "released_sample.jsonl:7": "article_publish_date_unknown",
        "released_sample.jsonl:8": "duplicate_question",  # line 1 again, URL differs only by utm_source
        "released_sample.jsonl:9": "not_an_object",
    }
    assert sorted(p.name for p in (tmp_path / "splits" / "test").iterdir()) == [
        "2025-05.parquet",
        "2025-06.parquet",
        "2025-07.parquet",
    ]
    rows = {row["answer"]: row for row in _rows(tmp_path)}
    assert set(rows) == {"Dana Whitcombe", "Ines Marlowe", "Kestrel Bay", "Portugal"}
    assert set(next(iter(rows.values()))) == set(RELEASED_COLUMNS)
    # Three spellings of a person type, one canonical type.
    assert {rows[a]["answer_type"] for a in ("Dana Whitcombe", "Ines Marlowe", "Kestrel Bay")} == {
        "string (name)"
    }
    assert rows["Portugal"]["answer_type"] == "string (location)"
    assert rows["Portugal"]["answer_class"] == "country"
    # No start-date field: read from the background line; "" counts as absent too.
    assert rows["Ines Marlowe"]["question_start_date"] == date(2025, 1, 10)
    assert rows["Portugal"]["question_start_date"] == date(2025, 5, 2)
    # "July 2025" resolves on the month's last day.
    assert rows["Kestrel Bay"]["resolution_date"] == date(2025, 7, 31)
    # A timestamp counts by its (UTC) day.
    assert rows["Portugal"]["article_publish_date"].date() == date(2025, 6, 5)
    assert rows["Dana Whitcombe"]["resolution_criteria"] == (
        "Source of Truth: the city's election office results page.\n"
        "Resolution Date: May 12, 2025.\n"
        "Accepted Answer Format: full name of the winner & nothing else."
    )
    assert rows["Ines Marlowe"]["news_source"] == "sports.example.org"  # no news_source: the URL's host
    assert rows["Dana Whitcombe"]["news_source"] == "Meridian Herald"
    assert {row["split"] for row in rows.values()} == {"test"}
    assert result.summary().startswith("imported 4 of 10 records into 3 split file(s)")
    assert "malformed_json 1" in result.summary()
    metrics = json.loads((tmp_path / "metrics" / "test.json").read_text())
    assert metrics["items_in"] == metrics["items_out"] + sum(metrics["rejected_by_reason"].values())


def test_question_id_is_the_project_content_hash_of_article_title_and_answer() -> None:
    row = question_from_record(_good())
    # Without article text the article id is the hash of the canonical URL (scheme, host, path).
    article_id = content_id("https://city.example/bridge")
    assert row["article_id"] == article_id
    assert row["question_id"] == content_id(
        article_id, "Who will open the new bridge by June 3, 2025?", "Lena Ortiz"
    )
    # A record that carries the project's article id (a published Almanac release) keeps it.
    kept = question_from_record(_good(article_id="abc123"))
    assert kept["question_id"] == content_id(
        "abc123", "Who will open the new bridge by June 3, 2025?", "Lena Ortiz"
    )


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"resolution_date": "unknown"}, "resolution_date_unknown"),
        ({"resolution_date": "soon"}, "resolution_date_unparseable"),
        ({"article_publish_date": "June 2025"}, "article_publish_date_unparseable"),  # not one day
        (
            {"background": "No start line here.", "question_start_date": "UNKNOWN"},
            "question_start_date_unknown",
        ),
        ({"question_start_date": "next week"}, "question_start_date_unparseable"),
        ({"question_title": "   "}, "question_title_missing"),
        ({"url": None}, "url_missing"),
    ],
)
def test_bad_fields_reject_with_a_reason(changes: dict[str, object], reason: str) -> None:
    from almanac.foresight.release_import import ImportReject

    with pytest.raises(ImportReject) as caught:
        question_from_record(_good(**changes))
    assert caught.value.reason == reason


def test_resolution_date_field_missing_is_its_own_reason() -> None:
    from almanac.foresight.release_import import ImportReject

    record = _good()
    del record["resolution_date"]
    with pytest.raises(ImportReject, match="no resolution_date") as caught:
        question_from_record(record)
    assert caught.value.reason == "resolution_date_missing"


def test_year_only_start_date_counts_from_its_first_day() -> None:
    row = question_from_record(_good(question_start_date="2025"))
    assert row["question_start_date"] == date(2025, 1, 1)
    assert row["resolution_date"] == date(2025, 6, 2)


def test_html_to_text_keeps_plain_text_and_joins_a_split_answer() -> None:
    plain = "Source of truth:  the city.\nResolution date: June 3, 2025."
    assert html_to_text(plain) == plain  # no tags: unchanged, spacing included
    # A tag inside the answer would hide it from a whole-word scan; as text it reads "Bob Dylan".
    assert html_to_text("<ul><li>Winner: <b>Bob</b> Dylan &amp; co</li><li>Date: 2016</li></ul>") == (
        "Winner: Bob Dylan & co\nDate: 2016"
    )
    assert html_to_text("Will x < 5 hold?") == "Will x < 5 hold?"  # "<" without a tag name is text


def test_reimport_is_byte_identical_and_an_empty_import_clears_old_split_files(tmp_path: Path) -> None:
    import_openforesight(FIXTURE, tmp_path / "a", "train")
    import_openforesight(FIXTURE, tmp_path / "b", "train")
    for name in ("splits/train/2025-05.parquet", "questions/train.parquet", "rejects/train.parquet"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{broken\n", encoding="utf-8")
    result = import_openforesight(bad, tmp_path / "a", "train")
    assert result.imported == 0 and result.ledger.rejected_by_reason == {"malformed_json": 1}
    assert not (tmp_path / "a" / "splits" / "train").exists()


def test_cli_import_prints_a_summary_and_rejects_an_unknown_split(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "imported"
    assert (
        cli.main(["import", "openforesight", str(FIXTURE), "--out", str(out), "--split", "validation"]) == 0
    )
    assert capsys.readouterr().out.startswith("imported 4 of 10 records")
    assert len(_rows(out)) == 4 and {row["split"] for row in _rows(out)} == {"validation"}
    assert cli.main(["import", "openforesight", str(FIXTURE), "--out", str(out), "--split", "dev"]) == 1
    assert "--split must be one of" in capsys.readouterr().err
