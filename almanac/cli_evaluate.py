"""The evaluation commands of ``almanac``: ``search`` the date-gated corpus, ``score`` forecasts, ``simulate``
the FutureSim replay. Each imports its machinery when it runs, so ``almanac --help`` stays fast."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def search(args: argparse.Namespace) -> int:
    import json

    from almanac.core.layout import futuresim_index_dir
    from almanac.core.params import load_params
    from almanac.futuresim.dense import embedder_from_params
    from almanac.futuresim.search import search_chunks

    # Hybrid when the params name an embeddings endpoint (llm.roles.embedder) and the index has vectors.
    embedder = embedder_from_params(load_params(args.params)) if Path(args.params).is_file() else None
    embed = embedder.embed_query if embedder else None
    hits = search_chunks(args.index or futuresim_index_dir(), args.query, args.start, args.end, args.k, embed)
    for hit in hits:
        if args.json:
            print(json.dumps({**hit.__dict__, "available_date": str(hit.available_date)}, ensure_ascii=False))
            continue
        print(f"{hit.rank}. {hit.score:.3f}  {hit.available_date} ({hit.date_precision})  {hit.url}")
        print(f"   chunk {hit.chunk_id} #{hit.ordinal} via {hit.backend}")
        print(f"   {' '.join(hit.text.split())[:300]}")
    if not args.json:
        print(f"search: {len(hits)} chunk(s) available {args.start or '...'} to {args.end}")
    return 0


SCORERS = {
    "mirai": "MIRAI-style relation forecasts against a month's queries, read as MIRAI's evaluator reads them",
    "futurex": "FutureX predictions (or a floor baseline) against the four tiers",
}


def score_help() -> str:
    lines = [
        "usage: almanac score {" + ",".join(SCORERS) + "} [options]",
        "",
        "scorers (each lists its options: almanac score NAME --help):",
        *(f"  {name:<9}{what}" for name, what in SCORERS.items()),
        "",
        "The form without a scorer name (almanac score --queries ...) still scores MIRAI forecasts.",
    ]
    return "\n".join(lines) + "\n"


def score(args: argparse.Namespace) -> int:
    rest = list(args.score_args)
    if not rest or rest[0] in ("-h", "--help"):
        (sys.stdout if rest else sys.stderr).write(score_help())
        return 0 if rest else 2
    if rest[0] == "futurex":
        from almanac.futurex.score import main as futurex_main

        return futurex_main(["--params", args.params, *rest[1:]], prog="almanac score futurex")
    from almanac.mirai.score import main as score_main

    if rest[0] == "mirai":
        rest = rest[1:]
    # The global --params first, so a --params after `score` wins.
    return score_main(["--params", args.params, *rest], prog="almanac score mirai")


def simulate(args: argparse.Namespace) -> int:
    from almanac.futuresim.simulate.cli import main as simulate_main

    return simulate_main(["--params", args.params, *args.score_args], prog="almanac simulate")
