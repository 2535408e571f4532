"""DVC stage ``relation_split@<month>``: one month of GDELT quads -> a balanced sample of MIRAI queries."""

import sys

from almanac.mirai.relation_split_stage import run

if __name__ == "__main__":
    sys.exit(run())
