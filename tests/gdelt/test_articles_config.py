"""gdelt_articles: the quality measures on hand-checked cases, its params section and its DVC deps."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from almanac.core.params import load_params, parse_section
from almanac.gdelt.articles import (
    BUNDLED_FLAGGED_WORDS,
    GdeltArticlesConfig,
)
from almanac.gdelt.doc_quality import (
    char_repetition,
    repeated_share,
    special_char_ratio,
    word_count,
    word_repetition,
)
from almanac.gdelt.paragraphs import DocumentThresholds, ParagraphThresholds
from almanac.pipeline.dag import STAGES
from almanac.pipeline.render import code_files

ROOT = Path(__file__).resolve().parents[2]


def test_measures_on_hand_checked_cases() -> None:
    assert repeated_share(["a", "b", "a", "a"]) == 0.5  # 4 occurrences, 2 distinct
    assert repeated_share([]) == 0.0
    # 3-grams of "abcabcabc": abc bca cab abc bca cab abc -> 7 occurrences, 3 distinct
    assert char_repetition("abcabcabc", n=3) == pytest.approx(4 / 7)
    assert char_repetition("ab  \n  cd", n=3) == 0.0  # whitespace runs collapse: "ab cd"
    assert char_repetition("abcabcabc  ", n=3) == char_repetition("abcabcabc", n=3)
    assert char_repetition("too short") == 0.0  # fewer than 10 characters
    # six 5-grams, the last repeating the first once case is folded
    assert word_repetition("One two three four five one two three four five") == pytest.approx(1 / 6)
    assert word_repetition("a b c d") == 0.0
    assert special_char_ratio("ab #|") == 0.5  # a, b, #, | counted; spaces not
    assert special_char_ratio("Zürich: 5% \u2013 “ok” … (yes)") == 0.0  # letters, digits, prose punctuation
    assert special_char_ratio("😀😀ab") == 0.5
    assert special_char_ratio("   ") == 0.0
    assert word_count("  a b\n c ") == 3


def test_params_section_is_the_config_with_the_sample_archive() -> None:
    config = parse_section(GdeltArticlesConfig, load_params(ROOT / "params.yaml"), "gdelt_articles")
    # params.yaml writes every default out; only the archive folder differs from the dataclass.
    assert config == GdeltArticlesConfig(page_archives=("data/raw/sample/gdelt/pages",))
    assert config.flagged_words_path() == BUNDLED_FLAGGED_WORDS
    assert config.news_config().min_words == 0  # a short page is judged once, by the cleaning


def test_dvc_deps_cover_every_module_the_stage_imports() -> None:
    # A fresh interpreter, so that only the stage's own imports are loaded.
    listing = subprocess.run(
        [sys.executable, "-c", IMPORTED_FILES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.split()
    # A stage's code deps are the files its fingerprint (data/code/<stage>.sha256, made by code_hashes) lists.
    stage = next(stage for stage in STAGES if stage.name == "gdelt_articles")
    deps = [
        *yaml.safe_load((ROOT / "dvc.yaml").read_text())["stages"]["gdelt_articles"]["deps"],
        *code_files(stage, ROOT),
    ]
    uncovered = [
        path
        for path in listing
        if not _docstring_only(ROOT / path)
        and not any(path == dep or path.startswith(f"{dep}/") for dep in deps)
    ]
    assert uncovered == []
    assert {"almanac/gdelt/flagged_words.txt", "data/raw/sample/gdelt/pages"} <= set(deps)


IMPORTED_FILES = """
import sys, pathlib
import stages.gdelt_articles
root = pathlib.Path.cwd()
for module in list(sys.modules.values()):
    path = pathlib.Path(getattr(module, "__file__", None) or "/")
    if path.is_relative_to(root) and not path.is_relative_to(root / ".venv"):
        print(path.relative_to(root))
"""


def _docstring_only(path: Path) -> bool:
    """A package's __init__.py that only documents the package (a docstring, ``__version__``) cannot
    change the stage's output."""

    def inert(node: ast.stmt) -> bool:
        if isinstance(node, ast.Assign):
            return all(isinstance(target, ast.Name) and target.id == "__version__" for target in node.targets)
        return isinstance(node, ast.Expr) or (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        )

    return path.name == "__init__.py" and all(inert(node) for node in ast.parse(path.read_text("utf-8")).body)


def test_nested_sections_parse_and_refuse_unknown_keys() -> None:
    params = {"gdelt_articles": {"page_archives": ["x", "y"], "paragraph": {"min_words": 3}}}
    config = parse_section(GdeltArticlesConfig, params, "gdelt_articles")
    assert config.page_archives == ("x", "y")
    # the other paragraph limits keep the paragraph defaults, not the document's
    assert config.paragraph == ParagraphThresholds(min_words=3)
    assert config.paragraph.max_char_repetition == 0.1  # the document's is 0.2
    assert config.document == DocumentThresholds()
    with pytest.raises(ValueError, match=r"gdelt_articles\.paragraph.*unknown keys \['min_word'\]"):
        parse_section(
            GdeltArticlesConfig, {"gdelt_articles": {"paragraph": {"min_word": 3}}}, "gdelt_articles"
        )
    with pytest.raises(ValueError, match="page_archives must be a list"):
        parse_section(GdeltArticlesConfig, {"gdelt_articles": {"page_archives": "x"}}, "gdelt_articles")
