"""Document-level language identification for gdelt_articles, as MIRAI's cleaning does it.

MIRAI's authors keep a document only when a language identifier names the target language (English)
with a probability of at least 0.8 (yecchen/MIRAI ``obelics/configs/config_filter_web_documents.yaml``:
``lang_id_doc_level_min_cutoff: 0.8``; ``obelics/processors/web_document_filtering.py`` lower-cases the
text and joins its lines before asking). They use fastText's lid.176 model; this project uses py3langid
(already its detector for CC-News) with normalised probabilities, so the same cut-off is applied to a
different model's probability: README lists it as a remaining difference.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

LANGUAGE_ID: Final = "language_id"  # the reject reason


@cache
def _identifier() -> LanguageIdentifier:
    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def identify(text: str) -> tuple[str, float]:
    """(ISO 639-1 code, probability in [0, 1]) of the lower-cased text with its lines joined."""
    language, probability = _identifier().classify(text.lower().replace("\n", " "))
    return str(language), float(probability)


def language_failure(text: str, language: str, min_probability: float) -> str | None:
    """Why ``text`` is not ``language`` with at least ``min_probability`` (None when it is, or when the
    check is off: ``min_probability`` 0)."""
    if min_probability <= 0:
        return None
    found, probability = identify(text)
    if found != language or probability < min_probability:
        return f"language {found} with probability {probability:.3f}; need {language} >= {min_probability}"
    return None
