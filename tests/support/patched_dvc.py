"""``python -m tests.support.patched_dvc ARGS``: ``dvc ARGS`` with ``make repro``'s bookkeeping patches.

The shared sample build runs its ``dvc repro`` processes through this: what they build (outputs, dvc.lock) is
what plain DVC builds, as ``make repro``, the command a user runs, builds it, but ~1 s of CPU less per stage
(mostly dvc.lock edited from a safe parse instead of ruamel's round trip). Unlike ``make repro`` it keeps DVC's
own output ("Running stage ..." lines, which the waiting tests show) and takes any DVC command line, global
options such as ``--wait-for-lock`` included.
"""

from __future__ import annotations

import sys

from almanac.core.repro import patch_dvc

if __name__ == "__main__":
    from dvc.cli import main

    patch_dvc()
    sys.exit(main(sys.argv[1:]))
