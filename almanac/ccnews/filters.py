"""Article filters from params: source allowlist, language, length, publication window.

Each check returns ``(reason, detail)`` for a rejected article or ``None``; the reasons are the row
labels of the corpus funnel.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

Verdict = tuple[str, str] | None


@dataclass(frozen=True)
class FilterConfig:
    domains: tuple[str, ...] = ()  # allowlist (a domain also admits its subdomains); empty = all
    languages: tuple[str, ...] = ("en",)  # empty = all
    min_words: int = 100  # OpenForesight kept articles of at least 100 words
    min_publish_date: str = ""  # optional publication window, ISO dates, inclusive
    max_publish_date: str = ""

    def __post_init__(self) -> None:
        for value in (self.min_publish_date, self.max_publish_date):
            if value:
                datetime.fromisoformat(value)  # fail at start-up, not per article


def check_domain(domain: str, config: FilterConfig) -> Verdict:
    if not config.domains:
        return None
    if any(domain == allowed or domain.endswith("." + allowed) for allowed in config.domains):
        return None
    return "domain_not_allowed", domain


def check_language(language: str, config: FilterConfig) -> Verdict:
    if config.languages and language not in config.languages:
        return "language", f"detected {language}, allowed {','.join(config.languages)}"
    return None


def check_length(word_count: int, config: FilterConfig) -> Verdict:
    if word_count < config.min_words:
        return "too_short", f"{word_count} words < {config.min_words}"
    return None


def check_publish_window(publish_date: datetime, config: FilterConfig) -> Verdict:
    """The optional explicit window; the months in scope are applied later, by the corpus (dedup) stage."""
    day = publish_date.astimezone(UTC).date().isoformat()
    if config.min_publish_date and day < config.min_publish_date[:10]:
        return "publish_date_out_of_window", f"published {day} before {config.min_publish_date}"
    if config.max_publish_date and day > config.max_publish_date[:10]:
        return "publish_date_out_of_window", f"published {day} after {config.max_publish_date}"
    return None
