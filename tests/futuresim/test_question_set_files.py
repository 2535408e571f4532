"""The FutureSim question set on disk: written by split with its evidence, read back by `almanac check`."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from almanac.check.run import check_style
from almanac.cli import main
from almanac.core.layout import articles_dir, futuresim_questions_dir
from almanac.futuresim.asking import evidence_table
from almanac.futuresim.questions import read_evidence, read_set, write_set
from tests.futuresim.test_question_filters import question

PARAMS = {  # April train, May validation, no test month
    "months": ["2025-04", "2025-05"],
    "foresight": {"split": {"test_month_count": 0, "validation_month_count": 1}},
}


def _set_up(root: Path, cap: date) -> None:
    row = {
        **question("q1", resolution=date(2025, 5, 12)),
        "resolution_date_original": date(2025, 5, 20),
        "repair_moves": 1,
        "repair_model": "offline:m",
        "answerability_model": "offline:m",
    }
    shown = {
        "question_id": "q1",
        "check": "repair_1",
        "cap_date": cap,
        "rank": 0,
        "chunk_id": "a1:0",
        "article_id": "a1",
        "publish_date": date(2025, 5, 12),
    }
    write_set([row], evidence_table([shown]), root / futuresim_questions_dir())
    # The corpus as dedup writes it: the checker dates each searched article by its day and precision.
    corpus = pa.table(
        {"id": ["a1"], "publish_date": [datetime(2025, 5, 12, tzinfo=UTC)], "date_precision": ["day"]}
    )
    (root / articles_dir()).mkdir(parents=True)
    pq.write_table(corpus, root / articles_dir() / "2025-05.parquet")


def test_every_split_file_is_written_and_the_checker_reads_them(tmp_path: Path) -> None:
    _set_up(tmp_path, date(2025, 5, 20))
    folder = tmp_path / futuresim_questions_dir()
    assert sorted(path.name for path in folder.iterdir()) == [
        "evidence.parquet", "test.parquet", "train.parquet", "validation.parquet"
    ]  # fmt: skip
    assert [row["question_id"] for row in read_set(folder)] == ["q1"] and len(read_evidence(folder)) == 1
    report = check_style("futuresim", "all", PARAMS, tmp_path)
    assert report.ok and report.rows == 1, report.lines()


def test_the_checker_fails_a_set_whose_search_saw_past_its_cap(tmp_path: Path) -> None:
    _set_up(tmp_path, date(2025, 5, 11))  # the chunk of 05-12 was shown by a search capped at 05-11
    report = check_style("futuresim", "all", PARAMS, tmp_path)
    assert [result.name for result in report.violated] == ["evidence_not_after_cap"]


@pytest.mark.parametrize(("cap", "status"), [(date(2025, 5, 20), 0), (date(2025, 5, 11), 1)])
def test_almanac_check_futuresim_exits_by_the_invariants(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cap: date,
    status: int,
) -> None:
    _set_up(tmp_path, cap)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(PARAMS))
    monkeypatch.chdir(tmp_path)
    assert main(["check", "futuresim"]) == status
    out = capsys.readouterr().out
    assert out.startswith("futuresim all: 1 released rows")
    assert ("FAIL  evidence_not_after_cap" in out) == bool(status)
