"""DVC stage ``gdelt_download@<month>``: the month's GDELT export/mentions files, MD5-verified when listed."""

from __future__ import annotations

import sys
import time

from almanac.core.download import DownloadError
from almanac.core.layout import gdelt_raw_dir, metrics_path
from almanac.core.metrics import write_metrics
from almanac.core.params import parse_section
from almanac.core.stage import counts_summary, end_stage, parse_stage_args
from almanac.gdelt.download import (
    STAGE,
    GdeltDownloadConfig,
    download_metrics,
    download_month,
    download_run_counts,
)


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(GdeltDownloadConfig, params, STAGE)
    try:
        # download_month fills <out_root>/<month>/, which is gdelt_raw_dir(month)
        result = download_month(args.month, gdelt_raw_dir(args.month).parent, config)
    except (DownloadError, OSError) as error:  # no masterfilelist or local folder: nothing to select
        what = "the local folder" if config.local_dir else "the masterfilelist"
        print(f"{STAGE}: cannot read {what}: {error}", file=sys.stderr)
        return 1
    metrics = write_metrics(download_metrics(result), metrics_path(STAGE, args.month))
    run_counts = download_run_counts(result)
    print(
        f"{args.month}: {metrics['items_in']} files selected, {run_counts['files_fetched']:.0f} fetched,"
        f" {run_counts['files_copied']:.0f} copied from the mirror,"
        f" {run_counts['files_skipped']:.0f} already verified, {metrics['rejected']} failed"
    )
    for failure in metrics["failed"]:
        print(
            f"{STAGE}: FAILED {failure['file']}: {failure['reason']} ({failure['detail']})", file=sys.stderr
        )
    counts = counts_summary(metrics["items_in"], metrics["items_out"], metrics["rejected_by_reason"])
    end_stage(STAGE, counts, started, run_counts=run_counts)
    return 1 if metrics["rejected"] else 0
