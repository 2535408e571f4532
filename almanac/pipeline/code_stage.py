"""The ``code_hashes`` declaration: the first stage, which fingerprints every other stage's code files.

Apart from the renderer so that ``almanac.pipeline.dag`` can declare it without importing the renderer,
which reads the DAG (no import cycle).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Final

from almanac.pipeline.declare import Stage

CODE_HASHES: Final = "code_hashes"  # the stage that fingerprints every other stage's code files
CODE_DIR: Final = PurePosixPath("data/code")
PARAMS_FILE: Final = PurePosixPath("params.yaml")
# params.yaml as sorted JSON, written by code_hashes: the file every stage's `params:` names. DVC re-reads
# a params file per stage that declares params: json.load of this copy, not a YAML parse of params.yaml.
PARAMS_COPY: Final = CODE_DIR / "params.json"


def fingerprint_path(name: str) -> PurePosixPath:
    """The file ``code_hashes`` writes for stage ``name``: the hashes of its code files."""
    return CODE_DIR / f"{name}.sha256"


def code_stage(stages: Sequence[Stage]) -> Stage:
    """The ``code_hashes`` declaration for ``stages``: one fingerprint output per stage, then the JSON copy
    of params.yaml. Its outputs persist (each is rewritten only when its text changes) and are not cached:
    they are a few KB, made in a second. The fingerprints are git-ignored; params.json is tracked in git, so
    ``dvc params diff`` reads it at any revision (``almanac dag`` rewrites it too)."""
    writes = (*(Path(fingerprint_path(stage.name)) for stage in stages), Path(PARAMS_COPY))
    return Stage(
        name=CODE_HASHES,
        function="almanac.pipeline.fingerprints:main",
        writes=writes,
        persist=writes,
        note=(
            "Every stage's code files (its import closure and prompts), hashed into one fingerprint per "
            "stage: the other stages dep on their fingerprint instead of listing ~45 files each. Its deps "
            "are the folders holding those files (a few entries, not ~400) and params.yaml, which it "
            "copies to data/code/params.json, the params file the other stages name."
        ),
    )
