"""Downloads of FRED (ALFRED vintages) and DBnomics series into a raw cache, one JSON file per response.

Real endpoints and their limits: FRED asks for an API key (from the environment, ``api_key_env``; it is
never written to disk or into a message) and allows 120 requests a minute, so requests are spaced by
``min_interval_s``; DBnomics needs no key. Every request goes through :func:`almanac.core.download.
fetch_bytes` (retries with backoff, Retry-After, a size cap). A response already in the cache is not asked
again, so a rerun makes no request; the cache file is named by provider and series, never by the key.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

import requests

from almanac.core.download import DownloadConfig, DownloadError, fetch_bytes
from almanac.core.errors import declare_secret_env
from almanac.core.io import atomic_path

PROVIDERS = ("fred", "dbnomics")
# ALFRED's whole real-time range: every vintage of every observation.
ALL_VINTAGES = {"realtime_start": "1776-07-04", "realtime_end": "9999-12-31"}
_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class SeriesDownloadConfig:
    """params ``series.download``."""

    fred_base_url: str = "https://api.stlouisfed.org/fred"
    dbnomics_base_url: str = "https://api.db.nomics.world/v22"
    api_key_env: str = "FRED_API_KEY"
    min_interval_s: float = 0.6  # FRED: 120 requests a minute
    max_response_bytes: int = 50_000_000


@dataclass(frozen=True)
class SeriesRequest:
    provider: str  # fred | dbnomics
    series_id: str  # FRED id (CPIAUCSL) or DBnomics provider/dataset/series

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise ValueError(f"series provider must be one of {PROVIDERS}, got {self.provider!r}")
        if self.provider == "dbnomics" and self.series_id.count("/") != 2:
            raise ValueError(f"a DBnomics series id is provider/dataset/series, got {self.series_id!r}")


def cache_files(request: SeriesRequest, cache_dir: Path) -> dict[str, Path]:
    """The cache files of one series (FRED: observations and series metadata; DBnomics: the series)."""
    stem = _SAFE.sub("_", request.series_id)
    folder = cache_dir / request.provider
    if request.provider == "fred":
        return {
            "observations": folder / f"{stem}.observations.json",
            "series": folder / f"{stem}.series.json",
        }
    return {"series": folder / f"{stem}.json"}


def request_urls(request: SeriesRequest, config: SeriesDownloadConfig, api_key: str) -> dict[str, str]:
    if request.provider == "fred":
        base = config.fred_base_url.rstrip("/")
        common = {"series_id": request.series_id, "file_type": "json", "api_key": api_key}
        return {
            "observations": f"{base}/series/observations?{urlencode({**common, **ALL_VINTAGES})}",
            "series": f"{base}/series?{urlencode(common)}",
        }
    path = "/".join(quote(part, safe="") for part in request.series_id.split("/"))
    return {"series": f"{config.dbnomics_base_url.rstrip('/')}/series/{path}?observations=1&format=json"}


def download_series(
    wanted: Sequence[SeriesRequest],
    cache_dir: Path,
    config: SeriesDownloadConfig,
    retry: DownloadConfig,
    session: requests.Session | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[list[Path], int]:
    """Every wanted series' cache files (fetched when missing) and the number of requests made."""
    api_key = ""
    if any(request.provider == "fred" for request in wanted if not _cached(request, cache_dir)):
        declare_secret_env(config.api_key_env)
        api_key = os.environ.get(config.api_key_env, "")
        if not api_key:
            raise DownloadError(config.fred_base_url, f"FRED needs an API key: set {config.api_key_env}")
    limited = DownloadConfig(**{**retry.__dict__, "max_fetch_bytes": config.max_response_bytes})
    files: list[Path] = []
    made = 0
    last = float("-inf")
    for request in wanted:
        targets = cache_files(request, cache_dir)
        urls = request_urls(request, config, api_key)
        for name, path in targets.items():
            files.append(path)
            if path.is_file():
                continue
            wait = config.min_interval_s - (clock() - last)
            if wait > 0:
                sleep(wait)
            try:
                body = fetch_bytes(urls[name], limited, session, sleep=sleep)
            except DownloadError as error:
                reason = error.reason.replace(api_key, "***") if api_key else error.reason
                raise DownloadError(
                    f"{request.provider} series {request.series_id} ({name})", reason
                ) from None
            finally:
                last = clock()
                made += 1
            with atomic_path(path) as staging:
                staging.write_bytes(body)
    return files, made


def _cached(request: SeriesRequest, cache_dir: Path) -> bool:
    return all(path.is_file() for path in cache_files(request, cache_dir).values())
