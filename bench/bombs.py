"""Peak memory of the dump readers on size bombs, with default params (issue 24).

    .venv/bin/python -m bench.bombs [--case wiki_text ...] [--scale 1.0] [--out bench/results/bombs.json]

Each bomb is written to a temporary folder (never into the project) and read by the stage's own
function in a fresh subprocess, which reports its peak resident set size (``ru_maxrss``) and what the
reader made of the bomb. The bombs are those of issue 24:

* ``wiki_text``: a ``.xml.bz2`` of ~100 KB holding one article whose ``<text>`` is 200 MB of words,
  between two ordinary articles (``wiki_ingest``'s ``ingest_dump``);
* ``wcep_day_page``: the same with the 200 MB text in a ``Portal:Current events/<day>`` page
  (``wcep_ingest``);
* ``wcep_mds_line``: a ``.jsonl.gz`` of ~1 MB whose second line is 1 GiB (``wcep_ingest``, ``mds_files``);
* ``gdelt_line``: a GDELT export zip of ~400 KB whose second line is 400 MB (``gdelt_ingest``'s
  ``ingest_file``).

``--scale`` shrinks the bombs (0.1 = a tenth) for a quick run; the numbers in README are at 1.0.
"""

from __future__ import annotations

import argparse
import bz2
import gzip
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from almanac.core.io import write_json

_MIB = 1024 * 1024
_WORDS = b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "


def _page(page_id: int, title: str, namespace: int, text: bytes) -> bytes:
    return (
        (
            f"<page><title>{title}</title><ns>{namespace}</ns><id>{page_id}</id><revision><id>{page_id}0</id>"
            "<timestamp>2025-05-01T10:00:00Z</timestamp><model>wikitext</model><format>text/x-wiki</format>"
            '<text bytes="0" xml:space="preserve">'
        ).encode()
        + text
        + b"</text></revision></page>\n"
    )


def _dump_with_huge_page(path: Path, size: int, namespace: int, title: str) -> None:
    """A bz2 dump: an ordinary page, one whose text is ``size`` bytes of words, another ordinary page.

    The text is one compressed MiB repeated: bz2 streams laid back to back are one file to ``bz2.open``
    (multistream), and compressing 200 MB of repeated words once would take minutes.
    """
    head = (
        b'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/"><siteinfo><sitename>W</sitename>'
        b"<dbname>bombwiki</dbname></siteinfo>\n"
    )
    ordinary = _WORDS * 40  # 480 words: kept by wiki_ingest (min_words 200)
    day = b"== Armed conflicts and attacks ==\n* A thing happened. [https://a.example/x (Example)]\n"
    normal = day if namespace == 100 else ordinary
    opening = _page(2, _title(title, 3), namespace, b"")
    block = bz2.compress(_WORDS * (_MIB // len(_WORDS)), 9)
    with open(path, "wb") as out:
        out.write(bz2.compress(head + _page(1, _title(title, 2), namespace, normal)))
        out.write(bz2.compress(opening[: opening.index(b"</text>")]))
        for _ in range(size // (_MIB // len(_WORDS) * len(_WORDS)) + 1):
            out.write(block)
        closing = b"</text></revision></page>\n" + _page(3, _title(title, 4), namespace, normal)
        out.write(bz2.compress(closing + b"</mediawiki>\n"))


def _title(title: str, day: int) -> str:
    return title.format(day=day)


def _mds_with_huge_line(path: Path, size: int) -> None:
    """A ``.jsonl.gz`` whose second line holds ``size`` bytes (gzip members back to back: one file)."""
    good = json.dumps({"date": "2025-05-05", "summary": "An election is held.", "category": "Politics"})
    block = gzip.compress(_WORDS * (_MIB // len(_WORDS)), 9)
    with open(path, "wb") as out:
        out.write(gzip.compress(good.encode() + b"\n" + b'{"date": "2025-05-06", "summary": "'))
        for _ in range(size // (_MIB // len(_WORDS) * len(_WORDS)) + 1):
            out.write(block)
        out.write(gzip.compress(b'"}\n' + good.replace("05-05", "05-07").encode() + b"\n"))


def _gdelt_with_huge_line(path: Path, size: int) -> None:
    from tests.gdelt.test_ingest import v2_fields  # a valid GDELT 2.0 row

    row = "\t".join(v2_fields()).encode()
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open("20250512011500.export.CSV", "w") as member,
    ):
        member.write(row + b"\n")
        block = b"x" * _MIB
        written = 0
        while written < size:
            member.write(block)
            written += len(block)
        member.write(b"\n" + row.replace(b"1234567", b"1234568", 1) + b"\n")


def _case_wiki(folder: Path, scale: float) -> tuple[Path, str]:
    path = folder / "bomb.xml.bz2"
    _dump_with_huge_page(path, int(200 * 1000 * 1000 * scale), 0, "Article {day}")
    code = (
        "from almanac.wiki.ingest import DumpTask, ingest_dump\n"
        f"rows, ledger = ingest_dump(DumpTask({str(path)!r}, 'bomb.xml.bz2', 200))\n"
        "result = {'rows': len(rows), 'rejects': [(r.reason, r.detail) for r in ledger.rejects]}\n"
    )
    return path, code


def _case_wcep_day(folder: Path, scale: float) -> tuple[Path, str]:
    path = folder / "bomb.xml.bz2"
    _dump_with_huge_page(path, int(200 * 1000 * 1000 * scale), 100, "Portal:Current events/2025 May {day}")
    code = (
        "from almanac.wcep.ingest import WcepIngestConfig, ingest_wcep\n"
        f"rows, ledger = ingest_wcep(WcepIngestConfig(dump_dir={str(folder)!r}))\n"
        "result = {'rows': len(rows), 'rejects': [(r.reason, r.detail) for r in ledger.rejects]}\n"
    )
    return path, code


def _case_wcep_mds(folder: Path, scale: float) -> tuple[Path, str]:
    path = folder / "bomb.jsonl.gz"
    _mds_with_huge_line(path, int(1024 * _MIB * scale))
    code = (
        "from almanac.wcep.ingest import WcepIngestConfig, ingest_wcep\n"
        f"rows, ledger = ingest_wcep(WcepIngestConfig(dump_dir='', mds_files=({str(path)!r},)))\n"
        "result = {'rows': len(rows), 'rejects': [(r.reason, r.detail) for r in ledger.rejects]}\n"
    )
    return path, code


def _case_gdelt(folder: Path, scale: float) -> tuple[Path, str]:
    path = folder / "20250512011500.export.CSV.zip"
    _gdelt_with_huge_line(path, int(400 * 1000 * 1000 * scale))
    code = (
        "from almanac.gdelt.ingest import FileTask, ingest_file\n"
        f"r = ingest_file(FileTask({str(path)!r}, {path.name!r}, 'export'))\n"
        "result = {'rows': r.events.num_rows, 'rejects': [(x.reason, x.detail) for x in r.ledger.rejects]}\n"
    )
    return path, code


CASES: dict[str, Callable[[Path, float], tuple[Path, str]]] = {
    "wiki_text": _case_wiki,
    "wcep_day_page": _case_wcep_day,
    "wcep_mds_line": _case_wcep_mds,
    "gdelt_line": _case_gdelt,
}
_REPORT = (
    "import json, resource\n"
    "result['peak_rss_mb'] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n"
)


def run_case(name: str, scale: float) -> dict[str, Any]:
    with TemporaryDirectory(prefix="almanac-bomb-") as folder:
        path, code = CASES[name](Path(folder), scale)
        size_on_disk = path.stat().st_size
        done = subprocess.run(
            [sys.executable, "-c", code + _REPORT + "print(json.dumps(result))"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parents[1],
        )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return {"case": name, "file_bytes": size_on_disk, **result}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="default: every case")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    results = [run_case(name, args.scale) for name in args.case or list(CASES)]
    for result in results:
        print(json.dumps(result))
    if args.out is not None:
        write_json({"scale": args.scale, "cases": results}, args.out)


if __name__ == "__main__":
    main()
