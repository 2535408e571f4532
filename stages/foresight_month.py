"""DVC stage ``foresight_month@<month>``: the six OpenForesight question steps of a month in one process:
articles -> candidates (qgen) -> validated -> one per article (select) -> leakage-edited -> answer types and
question filters -> checked dates."""

import sys

from almanac.foresight.month_stage import run

if __name__ == "__main__":
    sys.exit(run())
