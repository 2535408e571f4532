"""Dedup benchmark: MinHash signature throughput against datasketch, and LSH recall on planted pairs.

    .venv/bin/python -m bench.dedup [--docs 20000] [--seed 0] [--out bench/results/dedup.json]
    .venv/bin/python -m bench.dedup --versus-datatrove 200000 --datatrove-python DT/bin/python [--repeats 3]
    .venv/bin/python -m bench.dedup --stage-cpu 100000 [--repeats 3] [--code DIR ...]

``--versus-datatrove N`` is the side-by-side run instead (bench/dedup_versus.py): the same synthetic
crawl of N articles through Almanac's stages and through datatrove's MinHash pipeline, in turn.
``--stage-cpu N`` measures the ``dedup`` stage process's CPU seconds on a signed crawl of N articles
(full rebuilds; ``--code`` compares checkouts in turn; bench/dedup_cpu.py).

The corpus is synthetic: ~600-word documents over a Zipf-distributed vocabulary (some accented
words, typographic quotes and dashes in most documents, as in real news), plus near-duplicates
made by substituting, deleting or inserting short spans of words until a set share of the words
has changed. Every method starts from raw text, so shingling or tokenizing is inside every timing.
All timings run in this one process on one core.
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import xxhash
from datasketch import MinHash

from almanac.core.io import write_json
from almanac.core.parallel import RayConfig
from almanac.core.params import load_params
from almanac.dedup import banding
from almanac.dedup.lsh import band_candidate_probability, candidate_pairs, optimal_bands_rows
from almanac.dedup.minhash import MinHashConfig, jaccard, shingles, signatures

EDIT_LEVELS = (0.01, 0.02, 0.05, 0.10, 0.20, 0.40)
DEFAULTS: dict[str, Any] = {"bands": 28, "rows": 4, "threshold": 0.6, "num_perm": 112, "ngram": 5, "seed": 1}
ACCENTED = "éèüöñçåø"


def make_vocabulary(rng: np.random.Generator, size: int) -> list[str]:
    words: dict[str, None] = {}  # insertion-ordered set: deterministic by seed
    letters = np.array(list("etaoinshrdlcumwfgypbvkjxqz"))
    while len(words) < size:
        chars = letters[rng.integers(0, 26, size=int(rng.integers(1, 12)))]
        if rng.random() < 0.03:
            chars[rng.integers(len(chars))] = ACCENTED[int(rng.integers(len(ACCENTED)))]
        words.setdefault("".join(chars))
    return list(words)


def render(words: list[str], rng: np.random.Generator) -> str:
    """Words as prose: capitalised sentences, commas, and in most documents curly quotes and dashes."""
    tokens = list(words)
    typographic = rng.random() < 0.7
    position = 0
    while position < len(tokens):
        end = min(len(tokens), position + int(rng.integers(8, 26)))
        tokens[position] = tokens[position].capitalize()
        tokens[end - 1] += "."
        if typographic and rng.random() < 0.2:
            tokens[position] = "\u201c" + tokens[position]
            tokens[end - 1] += "\u201d"
        elif rng.random() < 0.3:
            tokens[position + (end - position) // 2] += "," if not typographic else " \u2014"
        position = end
    return " ".join(tokens)


def edit(
    words: list[str], level: float, rng: np.random.Generator, draw: Callable[[int], list[str]]
) -> list[str]:
    """Change ``level`` of the words in spans of 3-15: substituted, deleted or freshly inserted."""
    edited = list(words)
    budget = max(1, round(level * len(words)))
    while budget > 0:
        span = min(budget, int(rng.integers(3, 16)))
        start = int(rng.integers(0, len(edited) - span))
        kind = int(rng.integers(3))
        if kind == 0:
            edited[start : start + span] = draw(span)
        elif kind == 1:
            del edited[start : start + span]
        else:
            edited[start:start] = draw(span)
        budget -= span
    return edited


def make_corpus(docs: int, seed: int) -> tuple[list[str], list[tuple[int, int, float]]]:
    """Texts, and the planted pairs ``(i, j, edit level)``, which come first in the corpus."""
    rng = np.random.default_rng(seed)
    vocabulary = np.array(make_vocabulary(rng, 40_000), dtype=object)
    cumulative = np.cumsum(1.0 / (np.arange(len(vocabulary)) + 2.7) ** 1.07)
    cumulative /= cumulative[-1]

    def draw(count: int) -> list[str]:
        return list(vocabulary[np.searchsorted(cumulative, rng.random(count))])

    per_level = max(5, docs // 80)
    texts: list[str] = []
    planted: list[tuple[int, int, float]] = []
    for level in EDIT_LEVELS:
        for _ in range(per_level):
            original = draw(int(rng.integers(450, 751)))
            planted.append((len(texts), len(texts) + 1, level))
            texts += [render(original, rng), render(edit(original, level, rng, draw), rng)]
    while len(texts) < docs:
        texts.append(render(draw(int(rng.integers(450, 751))), rng))
    return texts, planted


def throughput(run: Callable[[], Any], count: int, repeats: int = 2) -> tuple[float, Any]:
    """Documents per second of the fastest of ``repeats`` runs (the machine is shared), and the result."""
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        seconds.append(time.perf_counter() - start)
    return round(count / min(seconds), 1), result


def datasketch_default(texts: Sequence[str], config: MinHashConfig) -> list[MinHash]:
    sketches = []
    for text in texts:
        sketch = MinHash(num_perm=config.num_perm, seed=config.seed)
        sketch.update_batch([shingle.encode("utf-8") for shingle in shingles(text, config.ngram)])
        sketches.append(sketch)
    return sketches


def datasketch_bulk(texts: Sequence[str], config: MinHashConfig) -> list[MinHash]:
    sets = ([shingle.encode("utf-8") for shingle in shingles(text, config.ngram)] for text in texts)
    sketches: list[MinHash] = MinHash.bulk(
        sets, num_perm=config.num_perm, seed=config.seed, hashfunc=xxhash.xxh32_intdigest
    )
    return sketches


def estimator_error(agreement: Sequence[float], exact: Sequence[float]) -> dict[str, float]:
    errors = np.asarray(agreement) - np.asarray(exact)
    return {"mean_abs_error": round(float(np.abs(errors).mean()), 4), "bias": round(float(errors.mean()), 4)}


def bench_speed(
    texts: list[str], planted: list[tuple[int, int, float]], config: MinHashConfig, sample: int
) -> tuple[dict[str, float], dict[str, float], dict[str, Any]]:
    subset = texts[:sample]
    ascii_texts = [text.encode("ascii", "ignore").decode() for text in texts]
    signatures(subset[:50], config)  # first call builds lookup tables; not part of the steady state
    speed: dict[str, float] = {}  # ours on the same subsample as the baselines, and on every document
    speed["ours"], ours = throughput(lambda: signatures(subset, config), sample)
    speed["datasketch_default"], theirs = throughput(lambda: datasketch_default(subset, config), sample)
    speed["datasketch_bulk_xxh32"], _ = throughput(lambda: datasketch_bulk(subset, config), sample)
    speed["shingle_strings_only"], _ = throughput(lambda: [shingles(t, config.ngram) for t in subset], sample)
    speed["ours_all_docs"], _ = throughput(lambda: signatures(texts, config), len(texts))
    speed["ours_all_docs_ascii_folded"], _ = throughput(lambda: signatures(ascii_texts, config), len(texts))
    ratios = {f"ours_over_{name}": round(speed["ours"] / speed[name], 2) for name in list(speed)[1:3]}
    inside = [(i, j) for i, j, _ in planted if j < sample]
    exact = [jaccard(shingles(texts[i], config.ngram), shingles(texts[j], config.ngram)) for i, j in inside]
    accuracy = {
        "pairs": len(inside),
        "ours": estimator_error([float((ours[i] == ours[j]).mean()) for i, j in inside], exact),
        "datasketch_default": estimator_error([theirs[i].jaccard(theirs[j]) for i, j in inside], exact),
    }
    return speed, ratios, accuracy


def bench_lsh(
    texts: list[str], planted: list[tuple[int, int, float]], settings: dict[str, Any]
) -> dict[str, Any]:
    config = MinHashConfig(num_perm=settings["num_perm"], ngram=settings["ngram"], seed=settings["seed"])
    bands, rows, threshold = settings["bands"], settings["rows"], settings["threshold"]
    started = time.perf_counter()
    sigs = signatures(texts, config)
    sign_seconds = time.perf_counter() - started
    started = time.perf_counter()
    candidates = set(candidate_pairs(sigs, bands, rows))
    lsh_seconds = time.perf_counter() - started
    started = time.perf_counter()  # the dedup stage's banding: uint64 band hashes, pairs by sorting
    banded = banding.candidate_pairs(
        banding.band_hashes(sigs, bands, rows), banding.empty_rows(sigs), 1, RayConfig(executor="serial")
    )
    banding_seconds = time.perf_counter() - started
    if {(int(i), int(j)) for i, j in banded} != candidates:
        raise AssertionError("numpy banding and datasketch's MinHashLSH found different candidates")
    cache: dict[int, set[str]] = {}

    def exact(pair: tuple[int, int]) -> float:
        for index in pair:
            if index not in cache:
                cache[index] = shingles(texts[index], config.ngram)
        return jaccard(cache[pair[0]], cache[pair[1]])

    truth = {(i, j): exact((i, j)) for i, j, _ in planted}
    detected = {pair for pair in candidates if (truth.get(pair) or exact(pair)) >= threshold}
    buckets = []
    for low in (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        pairs = [
            pair for pair, value in truth.items() if low <= value < low + 0.1 or low == 0.9 == value - 0.1
        ]
        if pairs:
            s_curve = [band_candidate_probability(truth[pair], bands, rows) for pair in pairs]
            buckets.append(
                {
                    "jaccard": f"{low:.1f}-{low + 0.1:.1f}",
                    "pairs": len(pairs),
                    "lsh_candidate_rate": round(sum(p in candidates for p in pairs) / len(pairs), 4),
                    "s_curve_expected": round(float(np.mean(s_curve)), 4),
                    "recall_after_verification": round(sum(p in detected for p in pairs) / len(pairs), 4),
                }
            )
    should_find = [pair for pair, value in truth.items() if value >= threshold + 0.1]
    optimal = optimal_bands_rows(threshold, config.num_perm, 0.5, 0.5)
    true_positives = sum(truth.get(pair, 0.0) >= threshold for pair in detected)
    return {
        "settings": {**settings, "optimal_bands_rows_for_threshold": list(optimal)},
        "docs": len(texts),
        "planted_pairs": len(planted),
        "mean_exact_jaccard_by_edit_level": {
            f"{level:.2f}": round(float(np.mean([truth[(i, j)] for i, j, lv in planted if lv == level])), 3)
            for level in EDIT_LEVELS
        },
        "seconds": {
            "signatures": round(sign_seconds, 2),
            "lsh_candidates_datasketch": round(lsh_seconds, 2),
            "lsh_candidates_numpy_banding": round(banding_seconds, 2),
        },
        "candidate_pairs": len(candidates),
        "candidates_unrelated_before_verification": len(candidates - truth.keys()),
        "candidates_planted_below_threshold": sum(truth.get(p, 1.0) < threshold for p in candidates),
        "detected_pairs": len(detected),
        "detected_not_planted": len(detected - truth.keys()),
        # detected pairs that are planted pairs whose exact Jaccard reaches the threshold
        "precision": round(true_positives / max(1, len(detected)), 4),
        f"recall_jaccard_ge_{threshold + 0.1:.1f}": round(
            sum(p in detected for p in should_find) / max(1, len(should_find)), 4
        ),
        "recall_by_true_jaccard": buckets,
        "s_curve": [
            [
                s,
                round(band_candidate_probability(s, bands, rows), 4),
                round(band_candidate_probability(s, *optimal), 4),
            ]
            for s in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
        ],
    }


def dedup_settings(path: Path) -> dict[str, Any]:
    section = load_params(path).get("dedup", {}) if path.exists() else {}
    return {key: section.get(key, default) for key, default in DEFAULTS.items()}


def print_report(report: dict[str, Any]) -> None:
    print(f"\nMinHash throughput, one core, docs/s ({report['machine']})")
    for name, value in {**report["throughput_docs_per_s"], **report["ratios"]}.items():
        print(f"  {name:<36} {value:>10,.{2 if name in report['ratios'] else 0}f}")
    accuracy = report["estimator_accuracy"]
    for name in ("ours", "datasketch_default"):
        mae, bias = accuracy[name]["mean_abs_error"], accuracy[name]["bias"]
        print(f"  Jaccard estimate error, {name:<19} mean |e| {mae:.4f}  bias {bias:+.4f}")
    lsh = report["lsh"]
    print(f"\nLSH on {lsh['docs']:,} docs with {lsh['settings']}")
    for key, value in lsh.items():
        if isinstance(value, int | float) or key in ("seconds", "mean_exact_jaccard_by_edit_level"):
            print(f"  {key:<42} {value}")
    print(f"  {'true J':<9}{'pairs':>6}{'LSH cand.':>11}{'S-curve':>9}{'recall':>8}")
    for row in lsh["recall_by_true_jaccard"]:
        cells = [row[key] for key in ("lsh_candidate_rate", "s_curve_expected", "recall_after_verification")]
        print(f"  {row['jaccard']:<9}{row['pairs']:>6}{cells[0]:>11.4f}{cells[1]:>9.4f}{cells[2]:>8.4f}")
    chosen = f"{lsh['settings']['bands']}x{lsh['settings']['rows']}"
    optimal = "x".join(map(str, lsh["settings"]["optimal_bands_rows_for_threshold"]))
    print(f"  S-curve P(candidate)  chosen {chosen}  optimal {optimal}")
    for similarity, chosen_p, optimal_p in lsh["s_curve"]:
        print(f"    s={similarity:.1f} {chosen_p:>17.4f} {optimal_p:>10.4f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline-docs", type=int, default=3_000, help="subsample timed for datasketch")
    parser.add_argument("--params", type=Path, default=Path("params.yaml"))
    parser.add_argument("--out", type=Path, default=Path("bench/results/dedup.json"))
    parser.add_argument("--versus-datatrove", type=int, default=0, help="articles of the side-by-side run")
    parser.add_argument("--datatrove-python", type=Path, help="a Python with datatrove 0.10 installed")
    parser.add_argument("--repeats", type=int, default=3, help="side-by-side runs of each (min and median)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/almanac-bench-dedup-versus"))
    parser.add_argument("--stage-cpu", type=int, default=0, help="articles of the stage CPU run")
    parser.add_argument("--code", type=Path, action="append", default=[], help="checkouts run in turn")
    args = parser.parse_args(argv)
    if args.stage_cpu:
        from bench.dedup_cpu import stage_cpu

        default_out = Path("bench/results/dedup.json")
        out = args.out if args.out != default_out else Path("bench/results/dedup_cpu.json")
        workdir = (
            args.workdir
            if args.workdir != Path("/tmp/almanac-bench-dedup-versus")
            else Path("/tmp/almanac-bench-dedup-cpu")
        )
        stage_cpu(args.stage_cpu, args.repeats, [path.resolve() for path in args.code], workdir, out)
        return
    if args.versus_datatrove:
        from bench.dedup_versus import versus_datatrove

        if args.datatrove_python is None:
            parser.error("--versus-datatrove needs --datatrove-python")
        out = (
            args.out
            if args.out != Path("bench/results/dedup.json")
            else Path("bench/results/dedup_versus.json")
        )
        versus_datatrove(args.versus_datatrove, args.datatrove_python, args.repeats, args.workdir, out)
        return
    started = time.perf_counter()
    texts, planted = make_corpus(args.docs, args.seed)
    settings = dedup_settings(args.params)
    config = MinHashConfig(num_perm=settings["num_perm"], ngram=settings["ngram"], seed=settings["seed"])
    speed, ratios, accuracy = bench_speed(texts, planted, config, min(args.baseline_docs, len(texts)))
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "corpus": {
            "docs": len(texts),
            "seed": args.seed,
            "mean_words": round(np.mean([len(t.split()) for t in texts])),
        },
        "throughput_docs_per_s": speed,
        "ratios": ratios,
        "estimator_accuracy": accuracy,
        "lsh": bench_lsh(texts, planted, settings),
    }
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    print_report(report)
    write_json(report, args.out)
    print(f"\nwrote {args.out} in {report['total_seconds']} s")


if __name__ == "__main__":
    main()
