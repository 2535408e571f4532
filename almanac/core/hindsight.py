"""Hindsight wording: phrases only an account written after the fact uses.

"..., later quoted in parliament" tells a forecaster that the story went on, and often how. Builders leave
background events with these phrases out; the checker fails a released row that still has one. Whole words
or phrases, matched after folding case; params: event_tasks.hindsight_words.
"""

from __future__ import annotations

HINDSIGHT_WORDS: tuple[str, ...] = (
    "later",
    "subsequently",
    "eventually",
    "ultimately",
    "afterwards",
    "afterward",
    "thereafter",
    "would go on to",
    "went on to",
    "would later",
    "would become",
    "would prove",
    "in hindsight",
    "in retrospect",
    "as it turned out",
    "it later emerged",
    "since then",
    "to this day",
    "in the end",
)
