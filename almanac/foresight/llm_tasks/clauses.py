"""Clause pieces the offline question generators read from a spaCy parse: a root verb's future phrase
without dates and side clauses, and a token list as text."""

from __future__ import annotations

from typing import Any

TIME_LABELS = frozenset({"DATE", "TIME"})


DROP_CHILDREN = frozenset({"conj", "cc", "advcl", "punct", "parataxis", "npadvmod", "ccomp", "mark", "dep"})


def verb_phrase(root: Any, skip: Any, bare: bool = False) -> str:
    """The future form of the root verb and what follows it, minus dates and side clauses."""
    passive = any(child.dep_ == "auxpass" for child in root.children)
    verb = f"be {root.text}" if passive else root.lemma_
    kept = []
    for child in root.children:
        if child.i < root.i or child.i == skip.i or child.dep_ in DROP_CHILDREN:
            continue
        kept.extend(without_time(child))
    rest = span_text(sorted(kept, key=lambda token: token.i))
    if bare and passive:
        verb = f"be {root.text}"
    return f"{verb} {rest}".strip()


def without_time(head: Any) -> list[Any]:
    """``head``'s subtree without date phrases ("on Thursday") and relative clauses."""
    dropped: set[int] = set()
    for token in head.subtree:
        if token.i not in dropped and (is_time(token) or token.dep_ in ("relcl", "acl", "appos")):
            dropped.update(inner.i for inner in token.subtree)
    return [token for token in head.subtree if token.i not in dropped]


def is_time(token: Any) -> bool:
    if token.ent_type_ in TIME_LABELS:
        return True
    objects = [child for child in token.children if child.dep_ == "pobj"]
    return token.dep_ == "prep" and bool(objects) and all(obj.ent_type_ in TIME_LABELS for obj in objects)


def span_text(tokens: list[Any]) -> str:
    text = "".join(token.text_with_ws for token in tokens).strip().rstrip(",;:")
    if tokens and tokens[0].pos_ != "PROPN" and text[:1].isupper() and not text[:2].isupper():
        text = text[0].lower() + text[1:]
    return " ".join(text.split())
