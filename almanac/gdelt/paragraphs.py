"""OBELICS-style cleaning in two passes: drop bad paragraphs, then judge the document that is left.

MIRAI cleans the articles behind its events "at both paragraph and document levels" following OBELICS;
the default limits are its authors' configuration (yecchen/MIRAI ``obelics/configs/
config_filter_web_documents.yaml``, the entries ``dataset_construction/5_clean_text.py`` passes on).
Pass one measures every paragraph (a line of the extracted text: the corpus and the extractor write one
paragraph per line) and drops those failing a :class:`ParagraphThresholds` check: navigation crumbs,
cookie banners, share bars, spam runs and the like go, the article around them stays. Pass two measures
the text made of the kept paragraphs against :class:`DocumentThresholds`; failing it rejects the whole
article. The document pass is what catches problems no single paragraph shows: a text too short once
the junk is gone, paragraphs copied twice, flagged words spread thinly over many paragraphs.

Checks are tried in a fixed order (the authors') and the first failure names the reason:
``too_few_words``, ``too_many_words``, ``char_repetition``, ``word_repetition``, ``special_chars``,
``flagged_words``. A word count below the minimum or above the maximum fails; each ratio fails when
strictly above its maximum. The measures are this project's (:mod:`almanac.gdelt.doc_quality`), not
OBELICS' own formulas: README "MIRAI as its authors built it" lists how they differ.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Final, NamedTuple

from almanac.gdelt.doc_quality import CHAR_NGRAM, WORD_NGRAM, DocQuality, measure

# Reasons of the checks, in the order they are tried (used at both levels).
CHECK_REASONS: Final = (
    "too_few_words",
    "too_many_words",
    "char_repetition",
    "word_repetition",
    "special_chars",
    "flagged_words",
)
RATIO_LIMITS: Final = (
    "max_char_repetition",
    "max_word_repetition",
    "max_special_char_ratio",
    "max_flagged_ratio",
)
# The document-level reason when every paragraph was dropped (nothing left to measure).
NO_PARAGRAPH_KEPT: Final = "no_paragraph_kept"


@dataclass(frozen=True)
class DocumentThresholds:
    """Limits for the cleaned text as a whole (defaults: the MIRAI authors' document level)."""

    min_words: int = 10
    max_words: int = 10_000
    max_char_repetition: float = 0.2  # share of repeated character 10-grams
    max_word_repetition: float = 0.3  # share of repeated word 5-grams (copied paragraphs)
    max_special_char_ratio: float = 0.3
    max_flagged_ratio: float = 0.01  # one flagged word in a hundred

    def __post_init__(self) -> None:
        if self.min_words < 0:
            raise ValueError(f"min_words must be >= 0, got {self.min_words}")
        if self.max_words < self.min_words:
            raise ValueError(f"max_words must be >= min_words, got {self.max_words} < {self.min_words}")
        for name in RATIO_LIMITS:
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} is a share and must lie in [0, 1], got {value}")


@dataclass(frozen=True)
class ParagraphThresholds(DocumentThresholds):
    """Limits for one paragraph (defaults: the MIRAI authors' paragraph level). The special-character
    and flagged-word ratios of the kept text are weighted means of its paragraphs' ratios, so with the
    authors' equal special-character limits (0.3 and 0.3) the document's special-character check can
    hardly fail; repetition differs: the document also counts n-grams that recur across paragraphs,
    which no paragraph can see."""

    min_words: int = 4  # bylines, "Read more", button rows and captions are shorter
    max_words: int = 5_000
    max_char_repetition: float = 0.1
    max_word_repetition: float = 0.1
    max_special_char_ratio: float = 0.3
    max_flagged_ratio: float = 0.02  # one flagged word in fifty


def first_failure(quality: DocQuality, limits: DocumentThresholds) -> tuple[str, str] | None:
    """(reason, detail) of the first check ``quality`` fails, or None if it passes them all."""
    if quality.word_count < limits.min_words:
        return "too_few_words", f"{quality.word_count} words < {limits.min_words}"
    if quality.word_count > limits.max_words:
        return "too_many_words", f"{quality.word_count} words > {limits.max_words}"
    ratios = (
        ("char_repetition", f"character {CHAR_NGRAM}-gram repetition", quality.char_repetition),
        ("word_repetition", f"word {WORD_NGRAM}-gram repetition", quality.word_repetition),
        ("special_chars", "special-character ratio", quality.special_char_ratio),
        ("flagged_words", "flagged-word ratio", quality.flagged_word_ratio),
    )
    limits_in_order = (
        limits.max_char_repetition,
        limits.max_word_repetition,
        limits.max_special_char_ratio,
        limits.max_flagged_ratio,
    )
    for (reason, label, value), limit in zip(ratios, limits_in_order, strict=True):
        if value > limit:
            return reason, f"{label} {value:.3f} > {limit}"
    return None


class CleanedText(NamedTuple):
    text: str  # the kept paragraphs, one per line, in their original order
    paragraphs: int  # non-blank paragraphs in the input
    dropped_by_reason: dict[str, int]  # paragraph-level reason -> paragraphs dropped for it

    @property
    def dropped(self) -> int:
        return sum(self.dropped_by_reason.values())


def split_paragraphs(text: str) -> list[str]:
    """Non-blank lines, inner whitespace collapsed (the corpus's own one-paragraph-per-line layout)."""
    lines = (" ".join(line.split()) for line in text.splitlines())
    return [line for line in lines if line]


def clean_paragraphs(text: str, limits: ParagraphThresholds, flagged: frozenset[str]) -> CleanedText:
    """Drop every paragraph that fails a paragraph check; keep the others unchanged and in order."""
    paragraphs = split_paragraphs(text)
    kept: list[str] = []
    dropped: Counter[str] = Counter()
    for paragraph in paragraphs:
        failure = first_failure(measure(paragraph, flagged), limits)
        if failure is None:
            kept.append(paragraph)
        else:
            dropped[failure[0]] += 1
    return CleanedText("\n".join(kept), len(paragraphs), dict(sorted(dropped.items())))
