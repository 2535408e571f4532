"""Where each stage reads and writes: path functions (``paths``, ``event_paths``) and, per stage, what it
writes (``stages``).

``dvc.yaml`` declares the same paths; tests/test_layout_dvc.py checks every stage of it against
``almanac.core.layout.stages.STAGES``. Import paths from here (``from almanac.core.layout import
articles_path``): the package is the stages' interface. The stage table is imported from its module by the
tests only: it reads the recipe tables, which no stage should depend on for its paths.
"""

from almanac.core.layout.event_paths import *  # noqa: F403 (the event styles' paths: same interface)
from almanac.core.layout.paths import *  # noqa: F403 (every path function is this package's interface)
