"""DVC stage ``gdelt_ingest@<month>``: the month's GDELT export/mentions files -> typed Parquet + rejects."""

import sys

from almanac.gdelt.ingest_stage import run

if __name__ == "__main__":
    sys.exit(run())
