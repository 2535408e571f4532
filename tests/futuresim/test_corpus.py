"""Corpus export: day folders of JSONL, bounded chunks in any script, and a byte-stable index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from almanac.core.rejects import StageLedger
from almanac.futuresim.corpus import CorpusConfig, export_articles, write_day_folders
from almanac.futuresim.tokens import MAX_TOKEN_CHARS, chunk_spans, token_spans
from tests.futuresim.helpers import article, chunks_of, index_of


def test_tokens_are_words_and_single_cjk_characters() -> None:
    text = "The 東京 office, opened。 Tokyo"
    assert [text[a:b] for a, b in token_spans(text)] == ["The", "東", "京", "office,", "opened", "Tokyo"]


def test_chunks_hold_chunk_tokens_tokens_and_keep_the_text_between_them() -> None:
    text = "one two  three\nfour five six seven"
    spans = chunk_spans(text, 3)
    assert [text[a:b] for a, b in spans] == ["one two  three", "four five six", "seven"]


def test_a_chinese_article_without_spaces_chunks_to_bounded_size() -> None:
    text = "北京市政府宣布新的交通计划。" * 200  # 2,800 characters, not one space
    chunks = chunks_of([article("zh", "2025-05-02", text)], chunk_tokens=512)
    # 13 Han characters a sentence (the full stop separates): 2,600 tokens -> 5 chunks of 512 and one of 40.
    assert chunks.column("token_count").to_pylist() == [512] * 5 + [40]
    assert max(len(t) for t in chunks.column("text").to_pylist()) <= 512 * 2  # a char and maybe a stop


def test_a_script_without_spaces_that_is_not_cjk_is_still_bounded() -> None:
    text = "ก" * 100_000  # Thai letters, no space: one "word" of 100,000 characters
    chunks = chunks_of([article("th", "2025-05-02", text)], chunk_tokens=4)
    assert max(len(t) for t in chunks.column("text").to_pylist()) == 4 * MAX_TOKEN_CHARS
    assert "".join(chunks.column("text").to_pylist()) == text


def test_chunk_rows_carry_ids_dates_and_ordinals() -> None:
    chunks = chunks_of([article("a", "2025-05-02", "w " * 5, precision="upper_bound")], chunk_tokens=2)
    rows = chunks.to_pylist()
    assert [row["ordinal"] for row in rows] == [0, 1, 2]
    assert [row["token_count"] for row in rows] == [2, 2, 1]
    assert {str(row["available_date"]) for row in rows} == {"2025-05-02"}
    assert {row["date_precision"] for row in rows} == {"upper_bound"}
    assert len({row["chunk_id"] for row in rows}) == 3


def test_articles_without_a_known_precision_or_a_token_are_rejected_with_reasons() -> None:
    ledger = StageLedger("futuresim_corpus")
    exported, _ = export_articles(
        [article("ok", "2025-05-02", "fine"), article("odd", "2025-05-02", "x", precision="month"),
         article("blank", "2025-05-02", "   ")],
        CorpusConfig(),
        ledger,
    )  # fmt: skip
    assert [item.record["id"] for item in exported] == ["ok"]
    assert ledger.rejected_by_reason == {"date_precision_unknown": 1, "no_text_tokens": 1}


def test_day_folders_hold_sorted_json_lines_by_available_day(tmp_path: Path) -> None:
    articles = [
        article("b", "2025-05-03", "later"),
        article("a", "2025-05-03", "same day"),
        article("c", "2025-05-01", "first", precision="upper_bound"),
    ]
    exported, _ = export_articles(articles, CorpusConfig(), StageLedger("futuresim_corpus"))
    write_day_folders(exported, tmp_path / "2025-05")
    files = sorted(path.relative_to(tmp_path).as_posix() for path in tmp_path.rglob("*.jsonl"))
    assert files == ["2025-05/01/articles.jsonl", "2025-05/03/articles.jsonl"]
    lines = (tmp_path / "2025-05/03/articles.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["id"] for r in records] == ["a", "b"]
    assert set(records[0]) == {
        "id", "url", "source", "title", "publish_date", "date_precision", "available_date", "text"
    }  # fmt: skip
    assert records[0]["publish_date"] == "2025-05-03T00:00:00Z"
    assert lines[0] == json.dumps(records[0], sort_keys=True, ensure_ascii=False)


def test_the_index_is_byte_identical_when_rebuilt(tmp_path: Path) -> None:
    articles = [
        article(f"a{i}", f"2025-05-{i + 1:02d}", f"story {i} about harbours " * 40) for i in range(12)
    ]
    first, second = index_of(articles, tmp_path / "one", 64), index_of(articles, tmp_path / "two", 64)

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
        }

    assert files(first) == files(second)
    assert any(name.endswith(".idx") for name in files(first))


def test_chunk_tokens_must_be_positive() -> None:
    with pytest.raises(ValueError, match="chunk_tokens"):
        CorpusConfig(chunk_tokens=0)
