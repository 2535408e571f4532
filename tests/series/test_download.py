"""Series downloads against a loopback server: cache, retries, rate limit, the key kept out of everything."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from almanac.core.download import DownloadConfig, DownloadError
from almanac.series.download import SeriesDownloadConfig, SeriesRequest, download_series, request_urls
from tests.support.http_fixture_server import FixtureServer

FIXTURES = Path(__file__).parents[1] / "fixtures" / "series"
KEY = "k3y-0123456789abcdef"
RETRY = DownloadConfig(retries=3, backoff_initial_s=0.0, backoff_max_s=0.0, timeout_s=5.0)


def serve_root(tmp_path: Path) -> Path:
    root = tmp_path / "server"
    (root / "fred" / "series").mkdir(parents=True)
    shutil.copy(FIXTURES / "fred_CPIAUCSL.observations.json", root / "fred" / "series" / "observations")
    for code in ("M.USD.EUR.SP00.A", "M.GBP.EUR.SP00.A"):
        (root / "db" / "series" / "ECB" / "EXR").mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / "dbnomics_ECB_EXR.json", root / "db" / "series" / "ECB" / "EXR" / code)
    return root


def config(server: FixtureServer, interval: float = 0.0) -> SeriesDownloadConfig:
    return SeriesDownloadConfig(server.url("/fred"), server.url("/db"), "TEST_FRED_KEY", interval)


def test_fred_urls_ask_for_every_vintage_with_the_key() -> None:
    urls = request_urls(SeriesRequest("fred", "CPIAUCSL"), SeriesDownloadConfig(), KEY)
    assert urls["observations"].startswith(
        "https://api.stlouisfed.org/fred/series/observations?series_id=CPIAUCSL"
    )
    assert "realtime_start=1776-07-04" in urls["observations"] and f"api_key={KEY}" in urls["series"]
    db = request_urls(SeriesRequest("dbnomics", "ECB/EXR/M.USD.EUR.SP00.A"), SeriesDownloadConfig(), "")
    assert (
        db["series"]
        == "https://api.db.nomics.world/v22/series/ECB/EXR/M.USD.EUR.SP00.A?observations=1&format=json"
    )


def test_a_series_is_fetched_once_and_then_read_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_FRED_KEY", KEY)
    cache = tmp_path / "cache"
    with FixtureServer(serve_root(tmp_path)) as server:
        server.serve_body("/fred/series", (FIXTURES / "fred_CPIAUCSL.series.json").read_bytes())
        server.fail("/fred/series/observations", status=503, times=2)  # retried
        wanted = [SeriesRequest("fred", "CPIAUCSL"), SeriesRequest("dbnomics", "ECB/EXR/M.USD.EUR.SP00.A")]
        files, made = download_series(wanted, cache, config(server), RETRY, sleep=lambda s: None)
        assert made == 3 and server.count("/fred/series/observations") == 3
        again, made_again = download_series(wanted, cache, config(server), RETRY, sleep=lambda s: None)
    assert made_again == 0 and again == files
    assert (cache / "fred" / "CPIAUCSL.observations.json").read_bytes() == (
        FIXTURES / "fred_CPIAUCSL.observations.json"
    ).read_bytes()
    for path in cache.rglob("*"):  # the key is in no file name and no file
        assert KEY not in str(path) and (path.is_dir() or KEY.encode() not in path.read_bytes())


def test_no_key_stops_before_any_request_and_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEST_FRED_KEY", raising=False)
    with FixtureServer(serve_root(tmp_path)) as server:
        with pytest.raises(DownloadError, match="set TEST_FRED_KEY"):
            download_series([SeriesRequest("fred", "CPIAUCSL")], tmp_path / "c", config(server), RETRY)
        assert server.requests() == []


def test_a_failed_fred_request_names_the_series_not_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TEST_FRED_KEY", KEY)
    with FixtureServer(serve_root(tmp_path)) as server:
        server.fail("/fred/series/observations", status=400, times=10)  # e.g. FRED's "bad api_key"
        with pytest.raises(DownloadError) as raised:
            download_series([SeriesRequest("fred", "CPIAUCSL")], tmp_path / "c", config(server), RETRY)
    assert "CPIAUCSL" in str(raised.value) and KEY not in str(raised.value)
    assert not (tmp_path / "c" / "fred" / "CPIAUCSL.observations.json").exists()  # nothing half-written


def test_requests_are_spaced_by_the_rate_limit(tmp_path: Path) -> None:
    now = [100.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(round(seconds, 3))
        now[0] += seconds

    wanted = [
        SeriesRequest("dbnomics", f"ECB/EXR/{code}") for code in ("M.USD.EUR.SP00.A", "M.GBP.EUR.SP00.A")
    ]
    with FixtureServer(serve_root(tmp_path)) as server:
        _files, made = download_series(
            wanted, tmp_path / "c", config(server, 0.6), RETRY, sleep=sleep, clock=lambda: now[0]
        )
    assert made == 2 and slept == [0.6]  # the first request waits for nothing, the second 0.6 s
