"""What dvc.yaml declares as DVC metrics and plots: the three style summaries and a few PNG panels, no more.

`dvc metrics show` prints one column per key of every declared metrics file (every stage's metrics made it
over a thousand columns), and `dvc plots show` draws every declared plot (173 panels, whose Vega scripts came
from a CDN and left the page blank offline). Every other count file is still a git-tracked output.
"""

from __future__ import annotations

import importlib
import re
import shutil
from collections import Counter
from pathlib import Path, PurePosixPath

import pytest
from PIL import Image

from almanac.core.layout import report_summary
from almanac.pipeline.finals import DVC_METRICS, DVC_PLOTS, REPORT_PANELS, REPORT_SERIES
from tests.support.project import ROOT, dvc, dvc_init, run
from tests.test_layout_dvc import DVC, DVC_FILE, EXPANDED, _paths

STYLES = sorted(REPORT_SERIES)
MAX_PANELS_PER_STYLE = 4


def _declared(kind: str) -> list[str]:
    """Every ``kind`` (metrics or plots) path of dvc.yaml: its top-level list, then any a stage declares."""
    top_level = [entry if isinstance(entry, str) else next(iter(entry)) for entry in DVC_FILE.get(kind) or []]
    return top_level + [
        path for _name, item, definition in EXPANDED for path in _paths(definition, kind, item)
    ]


def _properties(kind: str) -> list[tuple[str, dict[str, object]]]:
    """(path, properties) of every ``kind`` entry as written (``${item}`` unexpanded)."""
    return [
        (next(iter(entry)), next(iter(entry.values())) or {}) if isinstance(entry, dict) else (entry, {})
        for _name, _item, definition in EXPANDED
        for entry in definition.get(kind) or []
    ]


def test_only_the_style_summaries_are_metrics() -> None:
    declared = _declared("metrics")
    assert sorted(declared) == sorted(report_summary(s).as_posix() for s in STYLES)
    assert declared == [path.as_posix() for path in DVC_METRICS]  # the layout's, from the top-level list
    # each summary is a file of its style's whole-dataset report folder (reports/<style>/all/), inside the
    # style's report folder, the git-tracked output of that style's one report stage (<style>_stats_report
    # where the style's statistics run in the same process)
    for path in declared:
        style = PurePosixPath(path).parts[1]
        stage = DVC.get(f"{style}_stats_report") or DVC[f"{style}_report"]
        assert PurePosixPath(path).parent.name == "all"
        assert PurePosixPath(path).parent.parent.as_posix() in _paths(stage, "outs", "")


def test_plots_are_a_few_png_panels_per_style() -> None:
    declared = _declared("plots")
    assert declared == [path.as_posix() for path in DVC_PLOTS]
    per_style = Counter(PurePosixPath(path).parts[1] for path in declared)
    assert sorted(per_style) == STYLES
    assert max(per_style.values()) <= MAX_PANELS_PER_STYLE
    assert all(re.fullmatch(r"reports/[a-z]+/all/panels/[0-9]_[a-z]+\.png", path) for path in declared)
    # No Vega properties (x, y, template): an image needs none, and `dvc plots show` draws it offline.
    assert all(isinstance(entry, str) for entry in DVC_FILE["plots"])
    assert not _properties("plots")  # no stage declares plots of its own


def _out_entries(definition: dict[str, object]) -> list[tuple[str, dict[str, object]]]:
    return [
        (next(iter(entry)), next(iter(entry.values())) or {}) if isinstance(entry, dict) else (entry, {})
        for entry in definition.get("outs") or []  # type: ignore[attr-defined]
    ]


def test_build_stages_keep_the_run_cache() -> None:
    """DVC skips its run-cache for a stage with any `cache: false` out that is not a metric or plot. A
    stage that builds data keeps it (revert a param and `dvc repro` restores its outputs instead of
    running it; `almanac diff --build-missing` rebuilds an old revision from it), so its metrics file is
    an ordinary DVC-cached out; report and check stages, cheap to rerun, keep git-tracked count files."""
    build_stages = 0
    for name, _item, definition in EXPANDED:
        outs = _out_entries(definition)
        if name == "code_hashes":  # code fingerprints made in a second: nothing worth a run-cache
            continue
        if any(path.startswith("data/") for path, _ in outs):
            build_stages += 1
            assert all(properties.get("cache", True) is not False for _, properties in outs), name
    assert build_stages >= 25
    report_counts = [
        (path, properties)
        for path, properties in _properties("outs")
        if path.startswith(("reports/check/", *(f"reports/{style}/" for style in STYLES)))
    ]
    assert len(report_counts) >= 2 * len(STYLES)  # each style's check counts and report folders
    assert all(properties.get("cache") is False for _path, properties in report_counts), report_counts
    assert not _properties("metrics")  # the summaries are top-level metrics, inside the git-tracked folders


@pytest.mark.parametrize("style", STYLES)
def test_each_builders_panels_are_the_layouts_and_hold_every_series_once(style: str) -> None:
    builder = importlib.import_module(f"almanac.reports.{style}")
    assert tuple(panel.name for panel in builder.PANELS) == REPORT_PANELS[style]
    assert sorted(name for panel in builder.PANELS for name in panel.series) == sorted(builder.SERIES)


def _png(path: Path, colour: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (4, 3), colour).save(path)


def test_plots_show_and_diff_render_the_panels_offline(tmp_path: Path) -> None:
    """In a scratch project with this dvc.yaml: every panel is an <img>, and nothing is fetched over http."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("dvc.yaml", "params.yaml"):
        shutil.copy(ROOT / name, project / name)
    run(["git", "init", "-q"], project)
    dvc_init(project)  # what `dvc init` and analytics off leave, without a DVC process (~2 s of CPU)
    panels = sorted(_declared("plots"))
    for path in panels:
        _png(project / path, "navy")

    dvc(["plots", "show", "-o", "shown"], project)

    page = (project / "shown" / "index.html").read_text()
    assert "http" not in page.lower()  # no CDN script, stylesheet or link
    images = re.findall(r'<img src="([^"]+)"', page)
    assert images == [f"static/workspace_{path.replace('/', '_')}" for path in panels]  # in panel order
    assert all((project / "shown" / image).read_bytes() == (project / path).read_bytes()
               for image, path in zip(images, panels, strict=True))  # fmt: skip

    run(["git", "add", "-A"], project)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "panels"], project)
    _png(project / panels[0], "orange")
    dvc(["plots", "diff", "HEAD", "-o", "diffed"], project)

    page = (project / "diffed" / "index.html").read_text()
    assert "http" not in page.lower()
    flat = panels[0].replace("/", "_")
    committed, changed = (
        project / "diffed" / "static" / f"HEAD_{flat}",
        project / "diffed" / "static" / f"workspace_{flat}",
    )
    assert f'<img src="static/HEAD_{flat}">' in page and f'<img src="static/workspace_{flat}">' in page
    assert Image.open(committed).getpixel((0, 0)) == (0, 0, 128)  # navy, as committed
    assert Image.open(changed).getpixel((0, 0)) == (255, 165, 0)  # orange, the working tree
