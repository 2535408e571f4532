"""Answer text as the FutureX steps compare it: case and accents folded, no punctuation, no leading "the"."""

from __future__ import annotations

import re
import unicodedata


def normalise(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()
    words = re.sub(r"[^\w\s]", " ", plain).split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)
