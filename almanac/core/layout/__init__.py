"""Where each stage reads and writes: path functions (``paths``, ``event_paths``).

Each stage's declaration (``almanac/pipeline/``) names its outputs with these functions and ``dvc.yaml`` is
rendered from the declarations. Import paths from here (``from almanac.core.layout import articles_path``):
the package is the stages' interface.
"""

from almanac.core.layout.event_paths import *  # noqa: F403 (the event styles' paths: same interface)
from almanac.core.layout.paths import *  # noqa: F403 (every path function is this package's interface)
