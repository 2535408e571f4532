"""`almanac search`: the date cap from the command line, text and JSON output, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from almanac.cli import main
from tests.futuresim.helpers import article, index_of


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    articles = [
        article("known", "2025-05-10", "Harbour strike ends after talks"),
        article("future", "2025-05-11", "Harbour strike resumes"),
    ]
    return index_of(articles, tmp_path_factory.mktemp("cli") / "index")


def test_text_output_names_backend_and_leaves_out_the_day_after(
    index: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "harbour strike", "--to", "2025-05-10", "--index", str(index)]) == 0
    out = capsys.readouterr().out
    assert "https://news.example/known" in out and "/future" not in out
    assert "via bm25:tantivy-" in out
    assert out.endswith("search: 1 chunk(s) available ... to 2025-05-10\n")


def test_json_output_one_object_per_hit(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["search", "strike", "--from", "2025-05-01", "--to", "2025-05-11", "-k", "5", "--json"]
    assert main([*argv, "--index", str(index)]) == 0
    hits = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(hit["article_id"] for hit in hits) == ["future", "known"]
    assert {hit["available_date"] for hit in hits} == {"2025-05-10", "2025-05-11"}


def test_to_is_required_and_a_missing_index_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["search", "strike"])
    assert "the following arguments are required: --to" in capsys.readouterr().err
    assert main(["search", "strike", "--to", "2025-05-10", "--index", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("almanac search: no FutureSim index in ") and err.count("\n") == 1
