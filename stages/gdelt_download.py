"""DVC stage ``gdelt_download@<month>``: the month's GDELT export/mentions files, MD5-verified when listed."""

import sys

from almanac.gdelt.download_stage import run

if __name__ == "__main__":
    sys.exit(run())
