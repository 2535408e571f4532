"""Session-wide test settings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# No test may touch the network: the Hugging Face libraries (card parsing, `datasets` loading published
# folders) must stay offline. Set before either library is imported, since both read these at import.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled sample built once by `dvc repro` in a scratch project; copy it before changing it."""
    from tests.support.project import dvc, make_project

    project = make_project(tmp_path_factory.mktemp("sample") / "project", ray__executor="serial")
    dvc(["repro"], project)
    return project


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The test order is shuffled (pytest-randomly); name its seed at the end too, where -q shows it."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int):
        terminalreporter.write_line(
            f"random test order: --randomly-seed={seed} repeats it (-p no:randomly: file order)"
        )
