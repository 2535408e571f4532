"""Offline question generation, numeric candidates: a clause whose object is an exact amount.

The generator prompt allows a numeric answer type but asks the model to avoid it, and OpenForesight's
validator then drops numeric questions (``non_numeric``); FutureX keeps those drops as Level 4. So the
offline generator writes one only when the article gave fewer named-entity questions than were asked
for, from a declarative clause whose direct object is one figure written in digits: "Turnout reached 46
per cent" -> "What percentage will turnout reach ...?", "Halvorsen will pay EUR 14.50 per share" -> "How
much will Halvorsen pay per share ...?", "Greyline employs 120 people" -> "How many people will Greyline
employ ...?". Approximate figures ("about 3,000", "more than 40") and figures in words are left alone:
the answer must be one number a scorer can compare.
"""

from __future__ import annotations

from typing import Any, Final

from almanac.core.nlp import fold
from almanac.foresight.llm_tasks.clauses import DROP_CHILDREN, span_text, without_time

NUMERIC_FORMAT: Final = {
    "numeric (percent)": "a percentage, as one number",
    "numeric (money)": "an amount of money with its currency, as one number",
    "numeric (integer)": "a whole number with its unit",
}
_AMOUNT_LABELS: Final = frozenset({"MONEY", "PERCENT", "QUANTITY", "CARDINAL"})
_APPROXIMATE: Final = frozenset(
    {"about", "around", "almost", "roughly", "nearly", "over", "under", "more", "less", "fewer", "than",
     "estimated", "some", "up", "least", "most", "approximately", "an", "a"}
)  # fmt: skip
_PERCENT_WORDS: Final = ("per cent", "percent", "%")
_CURRENCY_MARKS: Final = ("$", "€", "£", "¥", "pounds", "euros", "dollars", "pence")


def numeric_question(sentence: Any, root: Any, subject: Any, obj: Any) -> tuple[str, str, str] | None:
    """(title without its deadline, answer, answer_type) of the clause's exact amount, or None."""
    if subject.pos_ == "PRON":
        return None
    subject_text = span_text(without_time(subject))
    for ent in sentence.ents:
        if ent.label_ not in _AMOUNT_LABELS or not any(char.isdigit() for char in ent.text):
            continue
        if any(word in _APPROXIMATE for word in fold(ent.text).split()):
            continue
        text = fold(ent.text)
        percent = any(word in text for word in _PERCENT_WORDS)
        money = not percent and any(mark in text for mark in _CURRENCY_MARKS)
        head = ent.root
        if head.dep_ == "npadvmod" and head.head.i == root.i and percent:  # "shares rose 4 per cent"
            title = f"By what percentage will {subject_text} {_phrase(root, ent)}"
            return title, ent.text, "numeric (percent)"
        if obj is None:
            continue
        if head.i == obj.i and (percent or money) and _amount_only(ent, obj):  # "pledged £45 million"
            wh, answer_type = (
                ("What percentage", "numeric (percent)") if percent else ("How much", "numeric (money)")
            )
            return f"{wh} will {subject_text} {_phrase(root, ent, obj)}", ent.text, answer_type
        if (
            ent.label_ == "CARDINAL"
            and head.dep_ == "nummod"
            and head.head.i == obj.i
            and head.i == ent.end - 1
        ):
            if any(ent.end <= token.i < obj.i for token in obj.subtree):
                continue  # "12 international caps": words between the number and its noun
            title = f"How many {obj.text} will {subject_text} {_phrase(root, ent, obj)}"
            return title, f"{ent.text} {obj.text}", "numeric (integer)"
    return None


def _amount_only(ent: Any, obj: Any) -> bool:
    """The object is the amount itself, give or take a determiner, side clauses and its prepositions
    ("£45 million towards the costs": the prepositions go into the title)."""
    kept = [t for t in without_time(obj) if t.dep_ not in ("det", "punct")]
    preps = {t.i for child in obj.children if child.dep_ == "prep" for t in child.subtree}
    return all(ent.start <= token.i < ent.end or token.i in preps for token in kept)


def _phrase(root: Any, ent: Any, obj: Any = None) -> str:
    """The root verb's future form and what follows it, without the amount, dates, side clauses, or any
    other figure (a number beside the asked one would hint at it); ``obj``'s own prepositions kept."""
    passive = any(child.dep_ == "auxpass" for child in root.children)
    skip = -1 if obj is None else obj.i
    heads = [c for c in root.children if c.i > root.i and c.dep_ not in DROP_CHILDREN and c.i != skip]
    if obj is not None:
        heads += [child for child in obj.children if child.dep_ == "prep"]
    kept: dict[int, Any] = {}
    for head in heads:
        tokens = [token for token in without_time(head) if not ent.start <= token.i < ent.end]
        if tokens and not any(token.like_num for token in tokens):
            kept.update((token.i, token) for token in tokens)
    order = [i for i in sorted(kept) if kept[i].dep_ != "punct" or i != min(kept)]
    pieces = [kept[i].text_with_ws if i + 1 in kept else kept[i].text + " " for i in order]
    rest = " ".join("".join(pieces).split()).rstrip(",;:")
    return f"{'be ' + root.text if passive else root.lemma_} {rest}".strip()
