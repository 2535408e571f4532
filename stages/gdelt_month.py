"""DVC stage ``gdelt_month@<month>``: the month's GDELT download, then its ingest, in one process (each step
with its own outputs, metrics, summary line and timings; ``--step gdelt_download`` runs one alone)."""

import sys

from almanac.gdelt.month_stage import run

if __name__ == "__main__":
    sys.exit(run())
