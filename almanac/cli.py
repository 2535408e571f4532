"""The ``almanac`` command: status, report, publish, verify, diff, check, search, score over the built data.

Building stays ``dvc repro``; this command reads what the DAG produced. Run it from the repository root.

Each subcommand imports what it needs when it runs: the report, publish and diff machinery pulls in
pyarrow, DuckDB, matplotlib, openai and DVC (seconds of imports), which ``almanac --help`` or a typo
should not wait for. bench/cli_startup.py measures it; tests/test_cli_startup.py keeps it so.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from almanac import cli_evaluate, cli_month

# The names of almanac.reports.styles.STYLES, sorted, for the help text: that module imports pyarrow.
# tests/test_cli_startup.py checks the two agree.
STYLE_NAMES = ("futuresim", "futurex", "mirai", "openforecast", "openforesight", "series")
# The commands that read or write Parquet: pyarrow looks for pandas in them, which none uses.
TABLE_COMMANDS = frozenset(
    {"status", "report", "publish", "verify", "diff", "check", "import", "search", "score", "simulate"}
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    # `score` hands every option after it to the scorer it names (mirai, futurex), which parses them itself.
    args, score_args = parser.parse_known_args(argv)
    if score_args and args.command not in ("score", "simulate"):
        parser.error(f"unrecognized arguments: {' '.join(score_args)}")
    args.score_args = score_args
    from almanac.core.errors import debug_enabled, describe

    try:
        if getattr(args, "month", None) is not None:  # valid and in params before any path is built
            from almanac.core.params import checked_month, load_params

            # `check` reads whatever was released for the month (none outside params): its form only.
            in_params = args.command in ("report", "publish")
            checked_month(args.month, load_params(args.params) if in_params else None)
        if args.command in TABLE_COMMANDS:
            from almanac.core.without_pandas import pyarrow_without_pandas

            pyarrow_without_pandas()  # no command uses pandas; pyarrow would import it (~0.5 s of CPU)
        code: int = args.run(args)
    except Exception as error:  # one line (redacted); --debug or ALMANAC_DEBUG=1 for the traceback
        if debug_enabled(args.debug):
            raise
        print(f"almanac {args.command}: {describe(error)}", file=sys.stderr)
        return 1
    return code


# What `almanac --help` tells a user (the module docstring above is for the people who work on it).
DESCRIPTION = textwrap.fill(
    "Look at, check, compare and publish the forecasting datasets that `dvc repro` builds: which months "
    "are built, leak checks, diffs between two revisions, dataset cards and scoring. Run it from the "
    "repository root; `almanac COMMAND --help` lists a command's options.",
    width=88,
)
EPILOG = """examples:
  almanac status                           what is built, rows by split and month
  almanac check all                        every leak invariant over the released rows
  almanac diff HEAD~1 HEAD                 rows, params and metrics that changed
  almanac publish openforesight all --out out/openforesight-all
  almanac score mirai --queries data/mirai/queries/2025-05.parquet --baseline --out out/baseline.json

Build or rebuild the data with `dvc repro` (or `make repro`); out/ is git-ignored."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="almanac",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    parser.add_argument(
        "--debug", action="store_true", help="show the traceback of a failure (also ALMANAC_DEBUG=1)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    styles = list(STYLE_NAMES)

    status = commands.add_parser(
        "status", help="what is built for which months, and the released rows by split and month"
    )
    status.add_argument("--check", action="store_true", help="also run `dvc status` (slower)")
    status.set_defaults(run=_status)

    report = commands.add_parser("report", help="statistics and figures of a style outside DVC (e.g. all)")
    report.add_argument("style", help=f"one of {styles}")
    report.add_argument("month", help="YYYY-MM or all")
    report.add_argument("--out", type=Path, help="folder (default: reports/<style>/<month>)")
    report.set_defaults(run=_report)

    pub = commands.add_parser("publish", help="assemble a release folder with a dataset card")
    pub.add_argument("style", help=f"one of {styles}")
    pub.add_argument("month", help="YYYY-MM or all")
    pub.add_argument(
        "--out",
        type=Path,
        help="folder (default: <publish.out_dir>/<style>-<month>); not a symlink, not in data/, .dvc/, .git/",
    )
    pub.add_argument(
        "--force",
        action="store_true",
        help="move aside (not delete) an earlier release or report of another style or month there;"
        " a folder almanac did not make is never moved",
    )
    pub.add_argument("--urls-only", action="store_true", default=None, help="omit full article text")
    pub.add_argument("--push", metavar="REPO_ID", nargs="?", const="", help="upload to the Hugging Face Hub")
    pub.set_defaults(run=_publish)

    verify = commands.add_parser(
        "verify", help="check a release folder against its manifest (symlinks are errors, never followed)"
    )
    verify.add_argument("folder", type=Path)
    verify.set_defaults(run=_verify)

    diff = commands.add_parser("diff", help="compare the released data, params and metrics of two revisions")
    diff.add_argument("rev_a")
    diff.add_argument("rev_b", nargs="?", default="HEAD")
    diff.add_argument("--style", action="append", help=f"limit to a style (repeatable): {styles}")
    diff.add_argument(
        "--split", action="append", help="limit to a split (repeatable): train, validation, test"
    )
    diff.add_argument("--build-missing", action="store_true", help="rebuild a revision not in the DVC cache")
    diff.add_argument("--examples", type=int, default=3, help="example rows per change kind (default 3)")
    diff.add_argument(
        "--metrics",
        choices=["summary", "all"],
        default="summary",
        help="summary (default): every metric when at most 20 differ, else the changed keys per file and"
        " the largest changes (about 30 lines); all: every metric that differs",
    )
    diff.add_argument(
        "--timings",
        action="store_true",
        help="also list the `seconds` metrics that revisions from before metrics/timings/ carry",
    )
    diff.add_argument("--out", type=Path, help="write the Markdown report here instead of stdout")
    diff.set_defaults(run=_diff)

    check = commands.add_parser("check", help="invariants over the released rows: exit 1 on any leak")
    check.add_argument("style", nargs="?", default="all", help=f"one of {styles} or all (default)")
    check.add_argument("month", nargs="?", default="all", help="YYYY-MM or all (default)")
    check.add_argument(
        "--splits", type=Path, help="OpenForesight split folder from elsewhere (e.g. `almanac import --out`)"
    )
    check.set_defaults(run=_check)

    imp = commands.add_parser("import", help="read someone else's released questions into the split layout")
    imp.add_argument("kind", choices=["openforesight"], help="the released record shape")
    imp.add_argument("file", type=Path, help="JSONL (one record a line) or Parquet of released records")
    imp.add_argument("--out", type=Path, help="folder (default: imported/<file name without suffix>)")
    imp.add_argument(
        "--split", default="test", help="split of every record: train, validation, test (default)"
    )
    imp.set_defaults(run=_import)

    search = commands.add_parser(
        "search", help="FutureSim search over the corpus chunks: nothing dated after --to comes back"
    )
    search.add_argument("query", help="words to search for (BM25 over the chunks)")
    search.add_argument("--to", dest="end", required=True, help="last day (YYYY-MM-DD, inclusive): the cap")
    search.add_argument("--from", dest="start", help="first day (YYYY-MM-DD, inclusive; default: none)")
    search.add_argument("-k", type=int, default=5, help="chunks to return (default 5, as FutureSim)")
    search.add_argument("--index", type=Path, help="index folder (default: data/futuresim/index)")
    search.add_argument("--json", action="store_true", help="one JSON object per hit instead of text")
    search.set_defaults(run=cli_evaluate.search)

    llm = commands.add_parser("llm", help="the LLM answer cache: forget-failures")
    llm_commands = llm.add_subparsers(dest="llm_command", required=True)
    forget = llm_commands.add_parser(
        "forget-failures", help="clear cached LLM failures so the next run asks again (answers stay)"
    )
    forget.add_argument("--stage", help="only failures of this stage (e.g. foresight_qgen)")
    forget.add_argument("--reason", help="only failures with this reason (e.g. llm_truncated)")
    forget.add_argument("--task", help="only failures of this LLM task (e.g. qgen)")
    forget.set_defaults(run=_llm_forget_failures)

    # Each scorer keeps its own options (`almanac score mirai --help`); `almanac score --help` lists them.
    score = commands.add_parser(
        "score",
        help="score forecasts: 'score mirai' (relation queries) or 'score futurex' (the tiers)",
        add_help=False,
    )
    score.set_defaults(run=cli_evaluate.score)

    simulate = commands.add_parser(
        "simulate",
        help="replay the FutureSim question set day by day with an agent and score it (--help for options)",
        add_help=False,
    )
    simulate.set_defaults(run=cli_evaluate.simulate)

    dag = commands.add_parser("dag", help="render dvc.yaml from the stage declarations (almanac/pipeline/)")
    dag.add_argument("--check", action="store_true", help="exit 1 if dvc.yaml differs from the rendering")
    dag.add_argument("--out", type=Path, default=Path("dvc.yaml"), help="file to write (default: dvc.yaml)")
    dag.set_defaults(run=_dag)
    cli_month.add_parser(commands)
    return parser


def _dag(args: argparse.Namespace) -> int:
    from almanac.pipeline.render import render_project

    rendered = render_project()
    current = args.out.read_text(encoding="utf-8") if args.out.is_file() else None
    if args.check:
        if current != rendered:
            print(f"almanac dag: {args.out} is not the rendering of almanac/pipeline/; run `almanac dag`")
            return 1
        print(f"{args.out}: up to date")
        return 0
    if current != rendered:
        from almanac.core.io import atomic_path

        with atomic_path(args.out) as temp:
            temp.write_text(rendered, encoding="utf-8")
    print(f"{args.out}: {'unchanged' if current == rendered else 'rendered'}")
    if args.out.name == "dvc.yaml" and (args.out.parent / "params.yaml").is_file():
        from almanac.pipeline.fingerprints import write_params_copy  # what code_hashes also writes

        if write_params_copy(args.out.parent):
            print("data/code/params.json: rewritten from params.yaml")
    return 0


def _status(args: argparse.Namespace) -> int:
    from almanac.core.params import load_params, months_in_scope
    from almanac.reports.status import dvc_changed_stages, month_status, released_rows, status_markdown
    from almanac.reports.styles import STYLES

    params = load_params(args.params)
    months = months_in_scope(params)
    changed = dvc_changed_stages(Path(".")) if args.check else None
    released = {name: released_rows(style) for name, style in STYLES.items()}
    print(status_markdown(month_status(months, changed=changed), args.check, released, months), end="")
    return 0


def _report(args: argparse.Namespace) -> int:
    from almanac.core.io import atomic_dir
    from almanac.core.layout import report_dir
    from almanac.core.params import load_params
    from almanac.reports.publish import build_style_report
    from almanac.reports.release_folder import checked_report_out, write_report_marker
    from almanac.reports.scope import report_scope
    from almanac.reports.styles import get_style
    from almanac.reports.write import write_report

    params = load_params(args.params)
    out = checked_report_out(args.out, Path()) if args.out is not None else None
    style = get_style(args.style)
    report = build_style_report(style, report_scope(args.month, params))
    target = out or report_dir(style.name, args.month)
    with atomic_dir(target) as staging:
        write_report(report, staging)
        if out is not None:
            write_report_marker(staging, style.name, args.month)
    print(args.out or target)
    return 0


def _publish(args: argparse.Namespace) -> int:
    from almanac.core.errors import debug_enabled
    from almanac.core.params import load_params, parse_section
    from almanac.reports.publish import PublishConfig, publish, upload_to_hub
    from almanac.reports.styles import get_style

    params = load_params(args.params)
    config = parse_section(PublishConfig, params, "publish")
    style = get_style(args.style)
    _refuse_leaks(style.name, args.month, params)
    folder = publish(style.name, args.month, params, config, args.out, args.urls_only, force=args.force)
    print(folder)
    if args.push is not None:
        repo_id = args.push or config.hub_repo_ids.get(style.name, "")
        token = os.environ.get(config.hub_token_env, "")
        if not repo_id:
            raise ValueError(f"no Hub repo id: pass --push REPO_ID or set publish.hub_repo_ids.{style.name}")
        if not token:
            raise ValueError(f"no Hub token: set the environment variable {config.hub_token_env}")
        from almanac.core.errors import declare_secret_env, describe

        declare_secret_env(config.hub_token_env)
        try:
            print(upload_to_hub(folder, repo_id, token, config.hub_private))
        except Exception as error:  # the token must never reach the message, whatever the Hub raised
            if debug_enabled(args.debug):
                raise
            raise RuntimeError(f"push of {folder} to the Hub ({repo_id}) failed: {describe(error)}") from None
    return 0


def _refuse_leaks(style: str, month: str, params: dict[str, Any]) -> None:
    """A release is built only from rows that pass every invariant of ``almanac check``."""
    from almanac.check.run import check_style

    report = check_style(style, month, params)
    if not report.ok:
        lines = "\n".join(result.line() for result in report.violated)
        raise ValueError(f"refusing to publish {style} {month}: `almanac check` fails\n{lines}")


def _verify(args: argparse.Namespace) -> int:
    from almanac.reports.publish import verify_manifest

    problems = verify_manifest(args.folder)
    for problem in problems:
        print(f"mismatch: {problem}")
    print("ok" if not problems else f"{len(problems)} problem(s) against manifest.json")
    return 0 if not problems else 1


def _diff(args: argparse.Namespace) -> int:
    from almanac.reports.diff import diff_report
    from almanac.reports.styles import get_style

    text = diff_report(
        Path(".").resolve(),
        args.rev_a,
        args.rev_b,
        styles=[get_style(name).name for name in args.style] if args.style else None,
        splits=args.split,
        build_missing=args.build_missing,
        max_examples=args.examples,
        timings=args.timings,
        metrics_all=args.metrics == "all",
    )
    if args.out:
        from almanac.core.io import write_text

        write_text(text, args.out)
        print(args.out)
    else:
        print(text, end="")
    return 0


def _check(args: argparse.Namespace) -> int:
    from almanac.check.run import ALL, STYLES, run_checks
    from almanac.core.params import load_params
    from almanac.reports.styles import get_style

    if args.style == ALL:
        styles = list(STYLES)
    else:  # futuresim and futurex are checked, not report styles; other names go through the report table
        styles = [args.style if args.style in STYLES else get_style(args.style).name]
    reports = run_checks(styles, args.month, load_params(args.params), splits_dir=args.splits)
    for report in reports:
        print("\n".join(report.lines()))
    failed = [report.style for report in reports if not report.ok]
    print(f"check: {'FAILED for ' + ', '.join(failed) if failed else 'ok'}")
    return 1 if failed else 0


def _import(args: argparse.Namespace) -> int:
    from almanac.foresight.release_import import import_openforesight

    out = args.out or Path("imported") / args.file.stem
    result = import_openforesight(args.file, out, args.split)
    print(result.summary())
    return 0


def _llm_forget_failures(args: argparse.Namespace) -> int:
    from almanac.core.params import load_params
    from almanac.llm.maintenance import forget_failures

    print(forget_failures(load_params(args.params), args.stage, args.reason, args.task))
    return 0


if __name__ == "__main__":
    sys.exit(main())
