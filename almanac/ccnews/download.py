"""Download one month of CommonCrawl News WARC files, resumably and verifiably.

CC-News publishes, per month, ``crawl-data/CC-NEWS/<YYYY>/<MM>/warc.paths.gz``: a gzipped list of WARC
paths relative to the bucket root (``https://data.commoncrawl.org``). The files carry no published
checksums, so each download is checked by decompressing its gzip stream to the end, and its size and
sha256 go into ``<out>/<YYYY-MM>/MANIFEST.json``. A rerun skips files whose bytes still match the
manifest and fetches again (and verifies against the manifest) any that no longer do.

    python -m almanac.ccnews.download --month 2025-05 --out data/raw/ccnews [--max-files N]
"""

from __future__ import annotations

import argparse
import gzip
import logging
import re
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import requests

from almanac.core.download import DownloadConfig, DownloadError, DownloadResult, download_file, fetch_bytes
from almanac.core.io import read_json, write_json
from almanac.core.months import parse_month

DEFAULT_BASE_URL = "https://data.commoncrawl.org"
MANIFEST_NAME = "MANIFEST.json"
_GZIP_CHUNK = 1 << 20


def warc_paths_url(month: str, base_url: str = DEFAULT_BASE_URL) -> str:
    year, mon = parse_month(month)
    return f"{base_url.rstrip('/')}/crawl-data/CC-NEWS/{year:04d}/{mon:02d}/warc.paths.gz"


def list_warc_paths(
    month: str,
    base_url: str = DEFAULT_BASE_URL,
    config: DownloadConfig | None = None,
    session: requests.Session | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> list[str]:
    """The month's WARC paths, in listing order; any line that is not one of them is an error."""
    url = warc_paths_url(month, base_url)
    raw = fetch_bytes(url, config or DownloadConfig(), session, sleep=sleep)
    try:
        text = gzip.decompress(raw).decode("ascii")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as error:
        raise ValueError(f"{url}: not a gzipped ASCII path listing ({error})") from error
    year, mon = parse_month(month)
    pattern = re.compile(
        rf"^crawl-data/CC-NEWS/{year:04d}/{mon:02d}/CC-NEWS-{year:04d}{mon:02d}\d{{8}}-\d{{5}}\.warc\.gz$"
    )
    paths: list[str] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        path = line.strip()
        if not pattern.match(path):
            raise ValueError(f"{url}: line {number} is not a CC-NEWS WARC path of {month}: {line!r}")
        if path in seen:
            raise ValueError(f"{url}: line {number} repeats {path}")
        seen.add(path)
        paths.append(path)
    if not paths:
        raise ValueError(f"{url}: the listing is empty")
    return paths


def check_gzip_complete(path: Path) -> None:
    """Decompress every gzip member to the end; ValueError if the stream is cut short or corrupt."""
    try:
        with gzip.open(path, "rb") as stream:
            while stream.read(_GZIP_CHUNK):
                pass
    except (OSError, EOFError, zlib.error) as error:  # gzip.BadGzipFile is an OSError
        raise ValueError(f"{path.name}: incomplete or corrupt gzip stream ({error})") from error


def download_month(
    month: str,
    out_dir: Path,
    *,
    base_url: str = DEFAULT_BASE_URL,
    config: DownloadConfig | None = None,
    max_files: int | None = None,
    session: requests.Session | None = None,
    sleep: Callable[[float], None] = time.sleep,
    on_file: Callable[[DownloadResult], None] | None = None,
) -> list[DownloadResult]:
    """Fetch the month's WARCs (the first ``max_files`` of the listing) into ``out_dir/<month>/``.

    The manifest is rewritten after every file, so an interrupted run keeps what it finished.
    """
    config = config or DownloadConfig()
    if max_files is not None and max_files < 1:
        raise ValueError(f"max_files must be >= 1, got {max_files}")
    month_dir = Path(out_dir) / month
    manifest_path = month_dir / MANIFEST_NAME
    entries = _read_manifest(manifest_path)
    paths = list_warc_paths(month, base_url, config, session, sleep=sleep)[:max_files]
    results: list[DownloadResult] = []
    for relative in paths:
        url = f"{base_url.rstrip('/')}/{relative}"
        name = relative.rsplit("/", 1)[1]
        known = entries.get(name)
        result = download_file(
            url,
            month_dir / name,
            config,
            expected_sha256=known["sha256"] if known else None,
            expected_size=known["size"] if known else None,
            verify=check_gzip_complete,
            session=session,
            sleep=sleep,
        )
        if result.attempts:  # fetched now (a skipped file already has its entry)
            entries[name] = {"file": name, "size": result.size, "sha256": result.sha256, "url": url}
            _write_manifest(manifest_path, month, entries)
        results.append(result)
        if on_file is not None:
            on_file(result)
    return results


def _read_manifest(path: Path) -> dict[str, dict[str, Any]]:
    if not path.exists():
        return {}
    data = read_json(path)
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise ValueError(f"{path}: expected an object with a 'files' list")
    entries: dict[str, dict[str, Any]] = {}
    for index, entry in enumerate(files):
        if not (
            isinstance(entry, dict)
            and isinstance(entry.get("file"), str)
            and isinstance(entry.get("size"), int)
            and isinstance(entry.get("sha256"), str)
            and isinstance(entry.get("url"), str)
        ):
            raise ValueError(f"{path}: entry {index} needs file, size, sha256 and url: {entry!r}")
        entries[entry["file"]] = entry
    return entries


def _write_manifest(path: Path, month: str, entries: dict[str, dict[str, Any]]) -> None:
    # Entries whose file has since been deleted are dropped: the manifest describes what is on disk.
    files = [entries[name] for name in sorted(entries) if (path.parent / name).exists()]
    write_json({"month": month, "files": files}, path)


def _month(text: str) -> str:
    """``--month`` as ``YYYY-MM`` before it names a folder (``../../x`` would name one outside ``--out``)."""
    try:
        parse_month(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Download one month of CommonCrawl News WARC files.")
    parser.add_argument("--month", required=True, type=_month, help="crawl month, YYYY-MM")
    parser.add_argument("--out", required=True, type=Path, help="root directory; files go to <out>/<month>/")
    parser.add_argument("--max-files", type=int, default=None, help="only the first N files of the listing")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL)
    parser.add_argument("--retries", type=int, default=DownloadConfig.retries)
    parser.add_argument("--timeout-s", type=float, default=DownloadConfig.timeout_s)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    config = DownloadConfig(retries=args.retries, timeout_s=args.timeout_s)
    totals = {"files": 0, "bytes": 0, "fetched": 0}

    def report(result: DownloadResult) -> None:
        how = (
            "skipped (matches manifest)"
            if result.attempts == 0
            else f"fetched in {result.attempts} attempt(s)"
        )
        if result.resumed:
            how += ", resumed"
        print(f"{result.path.name}  {result.size} bytes  sha256={result.sha256[:16]}  {how}", flush=True)
        totals["files"] += 1
        totals["bytes"] += result.size
        totals["fetched"] += result.attempts > 0

    try:
        download_month(
            args.month,
            args.out,
            base_url=args.base_url,
            config=config,
            max_files=args.max_files,
            on_file=report,
        )
    except (DownloadError, ValueError, OSError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{args.month}: {totals['files']} files ({totals['fetched']} fetched), {totals['bytes']} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
