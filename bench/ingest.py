"""Time ccnews_ingest per 1,000 WARC records: reading alone, full ingest serially, and on Ray.

The pages are the bundled sample's real-looking HTML, re-emitted under distinct URLs into per-record
gzipped WARC/1.0 files like CC-News. Run: ``python -m bench.ingest [--records 1000 --files 2]``.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TypeVar

from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from almanac.ccnews.filters import FilterConfig
from almanac.ccnews.ingest import FileTask, IngestConfig, ingest_file
from almanac.ccnews.records import RawPage
from almanac.ccnews.warc import read_warc
from almanac.core.io import write_json
from almanac.core.parallel import RayConfig, init_ray, parallel_map

SAMPLE = Path("data/raw/sample/ccnews")
T = TypeVar("T")
CONFIG = IngestConfig(filters=FilterConfig(domains=(), languages=("en",), min_words=100))


def sample_pages() -> list[RawPage]:
    pages: list[RawPage] = []
    for path in sorted(SAMPLE.rglob("*.warc.gz")):
        pages.extend(item for item in read_warc(path, path.name) if isinstance(item, RawPage))
    return pages


def write_warc(path: Path, pages: list[RawPage], records: int, salt: int) -> None:
    with open(path, "wb") as handle:
        writer = WARCWriter(handle, gzip=True, warc_version="1.0")
        for number in range(records):
            page = pages[number % len(pages)]
            headers = StatusAndHeaders(
                "200 OK", [("Content-Type", "text/html; charset=UTF-8")], protocol="HTTP/1.1"
            )
            url = f"{page.url}?copy={salt}-{number}"
            record = writer.create_warc_record(
                url, "response", payload=io.BytesIO(page.html), http_headers=headers
            )
            writer.write_record(record)


def read_only(path: Path) -> int:
    count = 0
    with open(path, "rb") as handle:
        for record in ArchiveIterator(handle):
            record.content_stream().read()
            count += 1
    return count


def timed(label: str, results: dict[str, float], fn: Callable[[], T]) -> T:
    started = time.perf_counter()
    value = fn()
    results[label] = time.perf_counter() - started
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1000, help="response records per WARC file")
    parser.add_argument("--files", type=int, default=2, help="files for the Ray comparison")
    parser.add_argument("--out", default="bench/results/ingest.json")
    args = parser.parse_args()
    pages = sample_pages()
    seconds: dict[str, float] = {}
    with TemporaryDirectory() as scratch:
        paths = [Path(scratch) / f"CC-NEWS-{index:05d}.warc.gz" for index in range(args.files)]
        for index, path in enumerate(paths):
            write_warc(path, pages, args.records, index)
        tasks = [FileTask(str(path), path.name, "warc", CONFIG) for path in paths]
        timed("read_only_1_file", seconds, lambda: read_only(paths[0]))
        rows, _ = timed("ingest_1_file_serial", seconds, lambda: ingest_file(tasks[0]))
        timed(
            "ingest_all_files_serial",
            seconds,
            lambda: parallel_map(ingest_file, tasks, RayConfig(executor="serial")),
        )
        timed("ray_start", seconds, lambda: init_ray(RayConfig()))
        timed(
            "ingest_all_files_ray",
            seconds,
            lambda: parallel_map(ingest_file, tasks, RayConfig(min_bytes=0)),
        )
    per_thousand = 1000 / args.records
    report = {
        "records_per_file": args.records,
        "files": args.files,
        "sample_pages": len(pages),
        "articles_out_per_file": len(rows),
        "seconds": {key: round(value, 3) for key, value in seconds.items()},
        "seconds_per_1000_records": {
            "read_only": round(seconds["read_only_1_file"] * per_thousand, 3),
            "ingest_serial": round(seconds["ingest_1_file_serial"] * per_thousand, 3),
            "ingest_ray": round(seconds["ingest_all_files_ray"] * per_thousand / args.files, 3),
        },
        "ray_speedup_vs_serial": round(
            seconds["ingest_all_files_serial"] / seconds["ingest_all_files_ray"], 2
        ),
    }
    write_json(report, args.out)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
