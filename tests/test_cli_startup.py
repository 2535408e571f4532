"""`almanac --help` imports none of the heavy libraries: the subcommands import their machinery when run.

Not timed (speed is measured by bench/cli_startup.py); what is checked is the cause of a slow start,
a heavy module in sys.modules after the parser has been built and the help printed, in a fresh
interpreter so that no other test's imports count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from almanac.cli import STYLE_NAMES
from almanac.reports.styles import STYLES

HEAVY = ("pyarrow", "pandas", "openai", "matplotlib", "duckdb", "dvc", "ray", "spacy")

# Runs `almanac <args>` and prints, as JSON on the last line, what it printed and the heavy modules loaded.
PROBE = """
import contextlib, io, json, sys
from almanac.cli import main
args, heavy = json.loads(sys.argv[1]), json.loads(sys.argv[2])
with contextlib.redirect_stdout(io.StringIO()) as out, contextlib.redirect_stderr(io.StringIO()):
    try:
        main(args)
    except SystemExit:
        pass
loaded = sorted(m for m in sys.modules if m.split(".")[0] in heavy)
print(json.dumps({"stdout": out.getvalue(), "heavy": loaded}))
"""


def run_probe(args: list[str]) -> tuple[str, list[str]]:
    """What `almanac <args>` printed, and the heavy modules (and submodules) it left in sys.modules."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args), json.dumps(HEAVY)],
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.splitlines()[-1])
    return result["stdout"], result["heavy"]


def test_help_imports_no_heavy_library() -> None:
    printed, heavy = run_probe(["--help"])
    assert printed.startswith("usage: almanac")
    assert heavy == []


def test_subcommand_help_imports_no_heavy_library() -> None:
    # Every subparser is built for any argv; a subcommand's --help prints and exits before it runs.
    for subcommand in ("status", "report", "publish", "verify", "diff", "check", "import"):
        printed, heavy = run_probe([subcommand, "--help"])
        assert printed.startswith(f"usage: almanac {subcommand}"), subcommand
        assert heavy == [], subcommand


def test_probe_sees_the_imports_of_a_subcommand_that_runs(tmp_path: Path) -> None:
    # The check above could pass by never seeing anything: running `verify` imports the publish
    # machinery, and the probe must report pyarrow then. (DuckDB, matplotlib and openai are imported at
    # their first use since issue 26, almanac.core.lazy: a verify that stops at a missing release
    # loads none of them.)
    _, heavy = run_probe(["verify", str(tmp_path / "no-such-release")])
    assert "pyarrow" in {name.split(".")[0] for name in heavy}


def test_style_names_in_help_are_the_styles() -> None:
    assert tuple(sorted(STYLES)) == STYLE_NAMES
