"""DVC stage ``check``: every style's invariants over every released row, then cross-style contamination;
exit 1 on any violation.

It is the last stage before the reports, so ``dvc repro`` stops on a leaking split. Each summary it writes
(``reports/check/<style>.json``) holds counts only, so a rebuild with no change rewrites nothing.
"""

import sys

from almanac.check.stage import run

if __name__ == "__main__":
    sys.exit(run())
