"""Dedup at scale: peak memory and time of the real stages at 1x and 10x input, and adding a month.

    .venv/bin/python -m bench.dedup_scale [--docs 20000] [--scale 10] [--months 5,9] [--million]
        [--sizes 1000000,10000000] [--workdir /tmp/almanac-bench-dedup] [--out bench/results/dedup_scale.json]

A synthetic CC-News crawl (``--months`` crawl months of ~600-word articles over a Zipf vocabulary; 4% of
the articles are lightly edited copies of an earlier one, 1% re-crawled exact copies, 2% published the
month before their crawl) is written as ingest Parquet files in a scratch project, and the real stages
run on it as child processes, one at a time: ``dedup_signatures@<month>`` for every crawl month, then
``dedup``. Each child's peak RSS comes from ``os.wait4`` (its own ``ru_maxrss``) and its CPU seconds from
the same rusage, so figures are per process and not disturbed by this driver.

Reported per scale and month count: wall seconds, CPU seconds and peak RSS of each stage; articles per
CPU second of signing and of dedup; then the cost of adding one crawl month to a build of N (sign it +
dedup probing the band index the build left) against a full rebuild (sign every month + dedup without
an index), whether the two give byte-identical outputs, and the goal 1.5 / N; also each stage
process's fixed start-up CPU (imports and params, measured alone) and the ratio without it; the load
average at the start and end of each size's run (a process's CPU seconds grow on a loaded machine too).
``--million`` adds one run at 1,000,000 articles (minutes; opt-in).
"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing
import os
import platform
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from almanac.core.ids import content_id
from almanac.core.io import PARQUET_COMPRESSION, read_json, write_json
from almanac.core.schemas import ARTICLE_SCHEMA

ROOT = Path(__file__).resolve().parents[1]
FIRST_MONTH = datetime(2024, 1, 1, tzinfo=UTC)
CHUNK = 5000  # articles generated and written at once


def month_names(count: int) -> list[str]:
    return [f"{2024 + (index // 12)}-{index % 12 + 1:02d}" for index in range(count)]


def _month_start(month: str) -> datetime:
    year, number = (int(part) for part in month.split("-"))
    return datetime(year, number, 1, tzinfo=UTC)


class Writer:
    """One ParquetWriter per (crawl month, publish month) ingest file, as ccnews_ingest lays them out."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.open: dict[tuple[str, str], pq.ParquetWriter] = {}

    def write(self, crawl: str, rows: dict[str, list[Any]]) -> None:
        self.write_table(crawl, pa.table(rows, schema=ARTICLE_SCHEMA))

    def write_table(self, crawl: str, table: pa.Table) -> None:
        for month in sorted(set(pa.compute.unique(table.column("publish_month")).to_pylist())):
            part = table.filter(pa.compute.equal(table.column("publish_month"), month))
            key = (crawl, month)
            if key not in self.open:
                path = self.root / "data" / "ingest" / crawl / "articles" / f"{month}.parquet"
                path.parent.mkdir(parents=True, exist_ok=True)
                self.open[key] = pq.ParquetWriter(path, ARTICLE_SCHEMA, compression=PARQUET_COMPRESSION)
            self.open[key].write_table(part)

    def close(self) -> None:
        for writer in self.open.values():
            writer.close()


def make_crawl(root: Path, docs: int, months: list[str], seed: int, first_serial: int = 0) -> None:
    """``docs`` articles split evenly over the crawl ``months``; see the module docstring for the mix."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("etaoinshrdlcumwfgypbvkjxqz"))
    vocabulary = sorted(
        {"".join(letters[rng.integers(0, 26, int(rng.integers(2, 11)))]) for _ in range(50_000)}
    )
    cumulative = np.cumsum(1.0 / (np.arange(len(vocabulary)) + 2.7) ** 1.07)
    cumulative /= cumulative[-1]
    recent: list[tuple[str, str]] = []  # (url, text) of earlier articles, to copy from
    writer = Writer(root)
    per_month = docs // len(months)
    serial = first_serial
    for crawl in months:
        start = _month_start(crawl)
        for low in range(0, per_month, CHUNK):
            rows: dict[str, list[Any]] = {name: [] for name in ARTICLE_SCHEMA.names}
            for _ in range(min(CHUNK, per_month - low)):
                serial += 1
                kind = rng.random()
                if kind < 0.01 and recent:  # the same article crawled again
                    url, text = recent[int(rng.integers(len(recent)))]
                else:
                    url = f"https://site{serial % 997}.example/{serial}"
                    words = itemgetter(*np.searchsorted(cumulative, rng.random(int(rng.integers(450, 751)))))(
                        vocabulary
                    )
                    if kind < 0.05 and recent:  # a syndicated copy: ~3% of words replaced
                        words = recent[int(rng.integers(len(recent)))][1].split(" ")
                        for index in rng.integers(0, len(words), max(1, len(words) // 33)):
                            words[index] = vocabulary[int(rng.integers(len(vocabulary)))]
                    text = " ".join(words)
                    if rng.random() < 0.05:
                        recent.append((url, text))
                        recent = recent[-2000:]
                earlier = rng.random() < 0.02
                published = start - timedelta(days=1 + int(rng.integers(0, 20))) if earlier else start
                published += timedelta(days=int(rng.integers(0, 28)), seconds=int(rng.integers(0, 86400)))
                _append(rows, url, text, published, crawl, serial)
            writer.write(crawl, rows)
    writer.close()


def _crawl_month(task: tuple[Path, int, str, int, int]) -> None:
    root, docs, month, seed, first_serial = task
    make_crawl(root, docs, [month], seed, first_serial)


def make_crawl_parallel(root: Path, docs: int, months: list[str], seed: int, processes: int) -> None:
    """``docs`` articles as :func:`make_crawl` makes them, each crawl month generated by its own process
    (streamed: ``CHUNK`` articles at a time, so memory does not grow with ``docs``). Copies come from
    the same crawl month only, and each month has its own seed and serial numbers."""
    per_month = docs // len(months)
    tasks = [
        (root, per_month, month, seed * 1000 + index, index * per_month) for index, month in enumerate(months)
    ]
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pool.map(_crawl_month, tasks)


def _append(
    rows: dict[str, list[Any]], url: str, text: str, published: datetime, crawl: str, serial: int
) -> None:
    values = {
        "id": content_id(url, text),
        "url": url,
        "source_domain": url.split("/")[2],
        "title": None,
        "text": text,
        "publish_date": published,
        "publish_month": published.strftime("%Y-%m"),
        "date_source": "html_meta",
        "date_precision": "day",
        "language": "en",
        "word_count": text.count(" ") + 1,
        "crawl_date": None,
        "source_format": "warc",
        "source_file": f"CC-NEWS-{crawl}.warc.gz",
        "source_offset": serial,
        "charset": None,
        "truncated": False,
    }
    for name, value in values.items():
        rows[name].append(value)


def write_params(root: Path, months: list[str]) -> None:
    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["months"] = months
    params["ray"]["executor"] = "serial"
    params["progress"] = False
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


@dataclass(frozen=True)
class Run:
    seconds: float
    cpu_seconds: float
    peak_rss_mb: float


def run_stage(root: Path, module: str, *args: str) -> Run:
    """One stage as a child process; its own peak RSS and CPU time from ``os.wait4``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", f"stages.{module}", *args],
        cwd=root,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise RuntimeError(f"stages.{module} {' '.join(args)} failed:\n{errors[-3000:]}")
    return Run(
        round(time.perf_counter() - started, 2),
        round(usage.ru_utime + usage.ru_stime, 2),
        round(usage.ru_maxrss / 1024, 1),  # KiB on Linux
    )


def startup_cpu(root: Path, module: str) -> float:
    """CPU seconds a stage process spends before its first article: the interpreter, the stage's
    imports, pandas (pyarrow imports it at the first array it builds from Python objects) and the params
    parse. The least of two runs, so that the fixed part of a run can be told from its per-article part."""
    code = f"import stages.{module}, pandas; from almanac.core.params import load_params; load_params()"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    figures = []
    for _ in range(2):
        child = subprocess.Popen([sys.executable, "-c", code], cwd=root, env=env)
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise RuntimeError(f"start-up probe of stages.{module} failed")
        figures.append(usage.ru_utime + usage.ru_stime)
    return round(min(figures), 2)


def output_digests(root: Path) -> dict[str, str]:
    """Digests of every dedup output file (corpus, rejects, band index)."""
    found = {}
    for folder in ("data/articles", "data/dedup/index", "data/dedup/rejects.parquet"):
        base = root / folder
        for path in [base] if base.is_file() else sorted(base.rglob("*")):
            if path.is_file():
                found[path.relative_to(root).as_posix()] = hashlib.blake2b(path.read_bytes()).hexdigest()
    return found


SCRATCH_MARK = ".almanac-bench-scratch"  # written first in every scratch project this bench makes


def remove_scratch(root: Path) -> None:
    """Remove a scratch project this bench made (it holds the mark); refuse any other existing folder."""
    if root.is_symlink() or (root.exists() and not (root / SCRATCH_MARK).is_file()):
        raise SystemExit(f"bench.dedup_scale: {root} exists and was not made by this bench; not removing it")
    shutil.rmtree(root, ignore_errors=True)


def bench_scale(workdir: Path, docs: int, months: list[str], seed: int, processes: int = 1) -> dict[str, Any]:
    """One size; ``processes`` > 1 generates the crawl months in parallel (the 1M and 10M runs)."""
    root = workdir / f"docs-{docs}-months-{len(months)}-seed-{seed}"
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    if not (root / "generated").exists():  # a kept scratch project (--keep) is reused as it is
        remove_scratch(root)
        root.mkdir(parents=True)
        (root / SCRATCH_MARK).write_text("made by bench.dedup_scale\n")
        if processes > 1:
            make_crawl_parallel(root, docs, months, seed, processes)
        else:
            make_crawl(root, docs, months, seed)
        (root / "generated").write_text("")
    generated = round(time.perf_counter() - started, 1)
    ingest_mb = sum(path.stat().st_size for path in (root / "data" / "ingest").rglob("*.parquet")) / 2**20
    # Built with every month but the last, then the last month is added: signing it + dedup (which
    # probes the band index the first build left) is the incremental cost; signing every month + dedup
    # without an index is a full rebuild, whose outputs must be the incremental run's bytes.
    write_params(root, months[:-1])
    signs = {month: run_stage(root, "dedup_signatures", "--month", month) for month in months[:-1]}
    before = run_stage(root, "dedup")
    write_params(root, months)
    signs[months[-1]] = run_stage(root, "dedup_signatures", "--month", months[-1])
    dedup = run_stage(root, "dedup")
    mode = read_json(root / "metrics" / "timings" / "dedup.json")["run"]  # incremental: 1 unless it fell back
    added = output_digests(root)
    for folder in ("data/dedup/index", "data/articles"):
        shutil.rmtree(root / folder)
    rebuilt = run_stage(root, "dedup")
    identical = output_digests(root) == added
    metrics = read_json(root / "reports" / "metrics" / "dedup.json")
    sign_cpu = sum(run.cpu_seconds for run in signs.values())
    sign_wall = sum(run.seconds for run in signs.values())
    full_seconds = sign_wall + rebuilt.seconds
    full_cpu = sign_cpu + rebuilt.cpu_seconds
    incremental_seconds = signs[months[-1]].seconds + dedup.seconds
    incremental_cpu = signs[months[-1]].cpu_seconds + dedup.cpu_seconds
    # Each process pays a fixed start-up; a full rebuild runs N + 2 of them (N + 1 signings, dedup),
    # adding a month 2. Without them the ratio is the per-article work's alone.
    sign_start, dedup_start = startup_cpu(root, "dedup_signatures"), startup_cpu(root, "dedup")
    fixed_full, fixed_added = len(months) * sign_start + dedup_start, sign_start + dedup_start
    sig_mb = (
        sum(path.stat().st_size for path in (root / "data" / "dedup" / "signatures").glob("*.parquet"))
        / 2**20
    )
    index_mb = sum(path.stat().st_size for path in (root / "data" / "dedup" / "index").rglob("*")) / 2**20
    return {
        "articles": metrics["items_in"],
        "crawl_months": len(months),
        "generate_seconds": generated,
        "ingest_parquet_mb": round(ingest_mb, 1),
        "signature_parquet_mb": round(sig_mb, 1),
        "sign": {
            "seconds": round(sign_wall, 2),
            "cpu_seconds": round(sign_cpu, 2),
            "peak_rss_mb": max(run.peak_rss_mb for run in signs.values()),
            "articles_per_cpu_second": round(metrics["items_in"] / sign_cpu, 1),
        },
        "band_index_mb": round(index_mb, 1),
        "dedup": {
            **rebuilt.__dict__,
            "articles_per_cpu_second": round(metrics["items_in"] / rebuilt.cpu_seconds, 1),
            "previous_months_only": before.__dict__,
            "incremental": {**dedup.__dict__, **mode},
        },
        "peak_rss_mb": max(
            rebuilt.peak_rss_mb, dedup.peak_rss_mb, *(run.peak_rss_mb for run in signs.values())
        ),
        "full_rebuild_seconds": round(full_seconds, 2),
        "full_rebuild_cpu_seconds": round(full_cpu, 2),
        "add_one_month_seconds": round(incremental_seconds, 2),
        "add_one_month_cpu_seconds": round(incremental_cpu, 2),
        "add_month_over_full_rebuild": round(incremental_seconds / full_seconds, 3),
        "add_month_cpu_over_full_rebuild": round(incremental_cpu / full_cpu, 3),
        "startup_cpu_seconds": {"dedup_signatures": sign_start, "dedup": dedup_start},
        "add_month_cpu_over_full_rebuild_without_startup": round(
            (incremental_cpu - fixed_added) / (full_cpu - fixed_full), 3
        ),
        "add_month_cpu_goal": round(1.5 / (len(months) - 1), 3),  # 1.5 / N, N = months before the added one
        "outputs_identical_to_full_rebuild": identical,
        "load_average_1m": {"start": round(load_before, 1), "end": round(os.getloadavg()[0], 1)},
        "dedup_metrics": {
            key: metrics[key] for key in ("items_out", "rejected_by_reason", "candidate_pairs")
        },
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=20_000, help="articles at 1x")
    parser.add_argument("--scale", type=int, default=10, help="the large run has docs * scale articles")
    parser.add_argument(
        "--months", default="5,9", help="crawl months, comma-separated runs (the last month is the one added)"
    )
    parser.add_argument(
        "--million", action="store_true", help="also run 1,000,000 articles (opt-in: minutes)"
    )
    parser.add_argument(
        "--sizes",
        default="",
        help="comma-separated sizes (e.g. 1000000,10000000) run instead of docs and docs * scale, "
        "their crawl months generated in parallel processes",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/almanac-bench-dedup"))
    parser.add_argument("--keep", action="store_true", help="keep (and next time reuse) the scratch projects")
    parser.add_argument("--out", type=Path, default=Path("bench/results/dedup_scale.json"))
    args = parser.parse_args(argv)
    counts = [int(count) for count in str(args.months).split(",")]
    sizes = [args.docs, args.docs * args.scale] + ([1_000_000] if args.million else [])
    parallel = bool(args.sizes)
    if args.sizes:
        sizes = [int(size) for size in args.sizes.split(",")]
    runs: dict[str, Any] = {}
    ratios: dict[str, Any] = {}
    for count in counts:
        months = month_names(count)
        processes = min(len(months), os.cpu_count() or 1) if parallel else 1
        for docs in sizes:
            key = f"{docs}/{count - 1}+1 months"
            runs[key] = bench_scale(args.workdir, docs, months, args.seed, processes)
            print(f"{docs:>9,} articles, {count - 1}+1 crawl months: {runs[key]}", flush=True)
            if not args.keep:
                remove_scratch(args.workdir / f"docs-{docs}-months-{count}-seed-{args.seed}")
        small, large = runs[f"{sizes[0]}/{count - 1}+1 months"], runs[f"{sizes[-1]}/{count - 1}+1 months"]
        ratios[f"{count - 1}+1 months"] = {
            "input": round(large["articles"] / small["articles"], 2),
            "peak_rss": round(large["peak_rss_mb"] / small["peak_rss_mb"], 2),
            "dedup_peak_rss": round(large["dedup"]["peak_rss_mb"] / small["dedup"]["peak_rss_mb"], 2),
            "full_rebuild_time": round(large["full_rebuild_seconds"] / small["full_rebuild_seconds"], 2),
        }
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": runs,
        "ratios_large_over_small": ratios,
        "goals": {
            "peak_rss_ratio_max": 1.3,
            "time_ratio_max": 11,
            "million_peak_rss_mb_max": 8192,
            "ten_million_peak_rss_mb_max": 2048,
            "add_month_cpu_over_full_rebuild_max": "1.5 / N (N crawl months before the added one)",
        },
    }
    write_json(report, args.out)
    print(yaml.safe_dump(report["ratios_large_over_small"], sort_keys=False))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
