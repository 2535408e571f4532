"""Peak memory of ccnews_ingest on the bombs and crash inputs of issue 24, with the params.yaml caps.

Each input is built in a temporary folder (streamed, never held whole: the 500 MB line is written to
disk, the 1 GiB line only as 1.1 MB of gzip) and ingested by ``ingest_file`` in a fresh subprocess,
which reports its own peak RSS (``ru_maxrss``) with the rows kept and the rejects. The domain filter is
emptied so that the good records around each bomb are kept. Run: ``python -m bench.ccnews_bombs``
(about a minute; needs ~0.6 GB of free space in the temp folder). ``--out FILE`` writes the table as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

from tests.support.bombs import (
    far_future_download,
    good_newsplease,
    header_lines_member,
    huge_int_line,
    nested_line,
    write_long_line_jsonl,
)
from tests.support.warc_factory import good_page, response_record, warc_bytes, write_newsplease

GIB = 1 << 30
CHILD = """
import json, resource, sys
from dataclasses import replace
from pathlib import Path
import yaml
from almanac.ccnews.ingest import FileTask, IngestConfig, file_kind, ingest_file
from almanac.core.params import parse_section
config = parse_section(IngestConfig, yaml.safe_load(open("params.yaml")), "ccnews_ingest")
config = replace(config, filters=replace(config.filters, domains=()))
path = Path(sys.argv[1])
rows, ledger = ingest_file(FileTask(str(path), path.name, file_kind(path.name), config))
ledger.check_balance()
print(json.dumps({
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "rows": len(rows),
    "rejects": [[r.reason, r.detail[:120]] for r in ledger.rejects],
}))
"""


def build(folder: Path) -> dict[str, Path]:
    cases: dict[str, Path] = {}

    def case(name: str, file_name: str) -> Path:
        cases[name] = folder / file_name
        return cases[name]

    write_newsplease(
        case("baseline: 2 good news-please lines", "good.jsonl"), [good_newsplease(1), good_newsplease(2)]
    )
    write_long_line_jsonl(case("1 GiB line in a .jsonl.gz", "gib.jsonl.gz"), GIB, after=1)
    write_long_line_jsonl(case("500 MB news-please line", "half.jsonl"), 500_000_000, after=1)
    write_newsplease(
        case("news-please line nested 100,000 deep", "nested.jsonl"),
        [nested_line(100_000), good_newsplease(1)],
    )
    write_newsplease(
        case("integer of 100,000 digits", "int.jsonl"), [huge_int_line(100_000), good_newsplease(1)]
    )
    write_newsplease(
        case("date_download 9999-12-31 23:00-05:00", "date.jsonl"),
        [far_future_download(1), good_newsplease(2)],
    )
    case("WARC of 100 MB of header lines", "headers.warc.gz").write_bytes(
        header_lines_member("https://www.testgazette.example/h", 100 << 20) + warc_bytes([good_page(1)])
    )
    case("charset hex/rot13/base64/zlib/undefined (HTTP + meta)", "labels.warc.gz").write_bytes(_labelled())
    fifo = case("FIFO named .warc.gz in the raw folder", "fifo.warc.gz")
    os.mkfifo(fifo)
    return cases


def _labelled() -> bytes:
    import io

    from warcio.warcwriter import WARCWriter

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.0")
    for number, label in enumerate(("hex", "rot13", "base64", "zlib", "undefined")):
        url, html = good_page(number)
        html = html.replace(b'<meta charset="utf-8">', f'<meta charset="{label}">'.encode())
        response_record(writer, url, html, f"text/html; charset={label}")
    return buffer.getvalue()


def measure(path: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True, timeout=600, check=False
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    table = {}
    with TemporaryDirectory(prefix="almanac-bombs-") as tmp:
        for name, path in build(Path(tmp)).items():
            size = path.stat().st_size if path.is_file() else 0
            result = {"file_bytes": size, **measure(path)}
            table[name] = result
            print(f"{name}: {json.dumps(result)}", flush=True)
    if args.out:
        args.out.write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
