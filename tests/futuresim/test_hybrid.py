"""Hybrid search (BM25 + dense vectors from the loopback /v1/embeddings): capped like BM25 alone."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.cli import main
from almanac.futuresim.dense import DENSE_FILE, Embedder, embedder_from_params, write_dense
from almanac.futuresim.index import BACKEND, IndexManifest, build_index
from almanac.futuresim.search import FutureLeakError, search_chunks
from tests.futuresim.helpers import article, chunks_of
from tests.llm.conftest import remote_role
from tests.support.llm_server import LLMTestServer

ARTICLES = [
    article("lexical", "2025-05-01", "Doha ceasefire talks"),
    article("both", "2025-05-02", "Ceasefire in Doha holds"),
    article("future", "2025-05-20", "Doha ceasefire collapses"),  # the best match, after the cap
]


@pytest.fixture(scope="module")
def server() -> Iterator[LLMTestServer]:
    with LLMTestServer() as running:
        yield running


@pytest.fixture(scope="module")
def embedder(server: LLMTestServer, tmp_path_factory: pytest.TempPathFactory) -> Embedder:
    cache = tmp_path_factory.mktemp("cache") / "llm.sqlite"
    return Embedder(remote_role(server, name="embedder", model="test-embed"), str(cache))


@pytest.fixture(scope="module")
def index(embedder: Embedder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hybrid") / "index"
    chunks = chunks_of(ARTICLES)

    def dense(ordered: pa.Table, folder: Path) -> None:
        write_dense(ordered, folder, embedder, None)

    manifest = IndexManifest(BACKEND, "almanac-words-v1", 512, chunks.num_rows, (), embedder.model)
    build_index(chunks, root, manifest, dense)
    return root


def test_hybrid_hits_name_both_backends_and_never_pass_the_cap(index: Path, embedder: Embedder) -> None:
    assert (index / DENSE_FILE).is_file()
    hits = search_chunks(index, "doha ceasefire", None, "2025-05-19", k=10, embed=embedder.embed_query)
    assert {hit.article_id for hit in hits} == {"lexical", "both"}
    assert {hit.backend for hit in hits} == {f"hybrid:{BACKEND}+dense:test-embed"}
    assert all(hit.available_date.isoformat() <= "2025-05-19" for hit in hits)
    later = search_chunks(index, "doha ceasefire", None, "2025-05-20", k=10, embed=embedder.embed_query)
    assert "future" in {hit.article_id for hit in later}


def test_a_dense_only_match_comes_back_capped_too(index: Path, embedder: Embedder) -> None:
    # No query term is in the index, so BM25 finds nothing; the dense side still ranks chunks by the
    # hashed words, and only those available by the cap.
    hits = search_chunks(index, "zzz", None, "2025-05-01", k=10, embed=embedder.embed_query)
    assert [hit.article_id for hit in hits] == ["lexical"]
    assert search_chunks(index, "zzz", None, "2025-05-01", k=10) == []  # BM25 alone: nothing


def test_without_an_embed_function_search_is_bm25(index: Path) -> None:
    hits = search_chunks(index, "doha", None, "2025-05-31", k=10)
    assert {hit.backend for hit in hits} == {BACKEND}


def test_the_embedder_role_is_used_only_when_it_names_an_endpoint(server: LLMTestServer) -> None:
    offline = {"llm": {"roles": {"embedder": {"backend": "offline"}}}}
    assert embedder_from_params(offline) is None
    assert embedder_from_params({"llm": {"roles": {}}}) is None
    remote = {"llm": {"roles": {"embedder": {"backend": "openai", "base_url": server.url, "model": "e"}}}}
    found = embedder_from_params(remote)
    assert found is not None and found.model == "e"


def test_almanac_search_goes_hybrid_when_params_name_an_embedder(
    index: Path, server: LLMTestServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    params = tmp_path / "params.yaml"
    role = f"{{backend: openai, base_url: '{server.url}', model: test-embed, max_retries: 0}}"
    params.write_text(f"llm:\n  cache_path: {tmp_path / 'llm.sqlite'}\n  roles:\n    embedder: {role}\n")
    argv = ["--params", str(params), "search", "doha ceasefire", "--to", "2025-05-19", "--index", str(index)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"via hybrid:{BACKEND}+dense:test-embed" in out and "/future" not in out


def test_vectors_claiming_an_earlier_day_than_the_index_raise_instead_of_leaking(
    index: Path, embedder: Embedder, tmp_path: Path
) -> None:
    tampered = tmp_path / "index"
    shutil.copytree(index, tampered)
    table = pq.read_table(tampered / DENSE_FILE)
    early = pa.array([20250101] * table.num_rows, pa.int32())
    pq.write_table(table.set_column(1, "available_day", early), tampered / DENSE_FILE)
    with pytest.raises(FutureLeakError, match="disagree"):
        search_chunks(tampered, "doha ceasefire", None, "2025-05-01", k=3, embed=embedder.embed_query)
