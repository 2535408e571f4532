"""Text extraction: speed and agreement of extractors on the same pages (``python -m bench.extraction``).

Pages: every HTML response record of the repo's sample CC-News WARC files (data/raw/sample/ccnews) and
of the real WARC samples in /work/shared/realdata/warc (skipped with a one-line reason when absent),
read with the ingest stage's own WARC reader and decoded as it decodes them. Extractors:

- ``trafilatura_default``: ``trafilatura.extract`` with its defaults, the reference;
- ``trafilatura_fast``: the same with ``fast=True`` (no fallback extractors);
- ``almanac``: what ``ccnews_ingest`` runs (``almanac.ccnews.extract.extract_article``: bare
  extraction without comments or tables, plus our date finder);
- ``resiliparse``: ``resiliparse.extract.html2text.extract_plain_text(main_content=True)``, when the
  optional ``bench`` extra is installed (``pip install -e '.[bench]'``); skipped with a line otherwise.

Per extractor and page set: pages per second per core (pages / process CPU seconds, one thread, so a
loaded machine changes it less than wall time), and token F1 against the reference's text (tokens are
lower-cased words; a page both leave empty counts 1, one empty and one not 0), averaged over pages.
Results go to bench/results/extraction.json.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import trafilatura

from almanac.ccnews.extract import extract_article
from almanac.ccnews.records import RawPage
from almanac.ccnews.warc import read_warc
from almanac.core.io import write_json

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data/raw/sample/ccnews"
REALDATA = Path("/work/shared/realdata/warc")
RESULTS = Path("bench/results/extraction.json")
REPEATS = 3  # each extractor passes over the pages this many times; CPU time is the sum

Extractor = Callable[[str, str], str]


def pages_in(folder: Path) -> list[tuple[str, str]]:
    """(url, html) of every HTML response record of the WARC files under ``folder``."""
    pages = []
    for path in sorted(folder.rglob("*.warc.gz")):
        for item in read_warc(path, path.name):
            if isinstance(item, RawPage) and b"<" in item.html[:4096]:
                pages.append((item.url, item.html.decode(item.charset or "utf-8", errors="replace")))
    return pages


def default_mode(html: str, url: str) -> str:
    return trafilatura.extract(html, url=url) or ""


def fast_mode(html: str, url: str) -> str:
    return trafilatura.extract(html, url=url, fast=True) or ""


def almanac_mode(html: str, url: str) -> str:
    found = extract_article(html, url)
    return found.text if found is not None else ""


def resiliparse_mode() -> Extractor | None:
    try:
        from resiliparse.extract.html2text import extract_plain_text
    except ImportError:
        return None

    def extract(html: str, url: str) -> str:
        return str(extract_plain_text(html, main_content=True))

    return extract


def token_f1(found: str, reference: str) -> float:
    mine, theirs = Counter(found.lower().split()), Counter(reference.lower().split())
    if not mine and not theirs:
        return 1.0
    common = sum((mine & theirs).values())
    if not common:
        return 0.0
    precision, recall = common / sum(mine.values()), common / sum(theirs.values())
    return 2 * precision * recall / (precision + recall)


def measure(extract: Extractor, pages: list[tuple[str, str]], reference: list[str]) -> dict[str, Any]:
    texts: list[str] = []
    cpu = time.process_time()
    for _ in range(REPEATS):
        texts = [extract(html, url) for url, html in pages]
    seconds = time.process_time() - cpu
    f1 = [token_f1(text, ref) for text, ref in zip(texts, reference, strict=True)]
    return {
        "pages_per_s_per_core": round(REPEATS * len(pages) / seconds, 1) if seconds else None,
        "token_f1_vs_default": round(sum(f1) / len(f1), 3),
        "pages_f1_below_0_8": sum(value < 0.8 for value in f1),
        "empty_pages": sum(not text.strip() for text in texts),
    }


def bench_set(name: str, pages: list[tuple[str, str]], extractors: dict[str, Extractor]) -> dict[str, Any]:
    reference = [default_mode(html, url) for url, html in pages]
    result: dict[str, Any] = {"pages": len(pages)}
    for label, extract in extractors.items():
        result[label] = measure(extract, pages, reference)
        print(f"{name}: {label}: {result[label]}", flush=True)
    return result


def main() -> None:
    extractors: dict[str, Extractor] = {
        "trafilatura_default": default_mode,
        "trafilatura_fast": fast_mode,
        "almanac": almanac_mode,
    }
    other = resiliparse_mode()
    report: dict[str, Any] = {"repeats": REPEATS}
    if other is None:
        print("resiliparse: skipped (not installed; pip install -e '.[bench]')")
        report["resiliparse"] = "not installed"
    else:
        extractors["resiliparse"] = other
    report["sample"] = bench_set("sample", pages_in(SAMPLE), extractors)
    if REALDATA.is_dir() and any(REALDATA.rglob("*.warc.gz")):
        report["realdata"] = bench_set("realdata", pages_in(REALDATA), extractors)
    else:
        print(f"realdata: skipped ({REALDATA} absent or holds no .warc.gz)")
        report["realdata"] = "absent"
    write_json(report, RESULTS)
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
