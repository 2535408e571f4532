"""DVC stage ``check_<style>``: the style's invariants over every released row; exit 1 on any violation.

It is the last stage of each style's branch, so ``dvc repro`` stops on a leaking split. The summary it writes
holds counts only (rows checked and violations per invariant), so a rebuild with no change rewrites nothing.
"""

import sys

from almanac.check.stage import run

if __name__ == "__main__":
    sys.exit(run())
