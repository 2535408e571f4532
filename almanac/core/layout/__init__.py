"""Where each stage reads and writes: path functions (``paths``) and, per stage, what it writes (``stages``).

``dvc.yaml`` declares the same paths; tests/test_layout_dvc.py checks every stage of it against ``STAGES``.
Import paths from here (``from almanac.core.layout import articles_path``): the package is the interface.
"""

from almanac.core.layout.paths import *  # noqa: F403 (every path function is this package's interface)
from almanac.core.layout.stages import STAGES as STAGES
from almanac.core.layout.stages import Outputs as Outputs
from almanac.core.layout.stages import StageLayout as StageLayout
from almanac.core.layout.stages import stage_outputs as stage_outputs
