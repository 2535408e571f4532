"""FutureX's scores (its appendix E and section 4.1), one function per formula.

- Level 1, single choice: ``score(Y, Y_hat) = 1(Y = Y_hat)``.
- Level 2, multi choice: F1 of the predicted option set against the true one.
- Level 3, open-ended (ranking; a single answer is a list of one): 1 when every position matches, else
  ``0.8 * |{y} & {y_hat}| / k`` (equation 1); "matches" is the judge's verdict on a (true, predicted) pair.
  Equation 1 scores a prediction ``{y_hat_1, ..., y_hat_k}`` of the same length k as the truth: a longer
  list is cut to its first k items before scoring (``limit_prediction``), so listing many names cannot
  collect partial credit (15 names against a one-name answer score as their first name alone).
- Level 4, numeric: ``max(0, 1 - ((Y - Y_hat) / sigma(Y))^2)`` (equation 2).
- Overall: the tier means weighted 10/20/30/40 % over all four tiers; a tier with no score counts 0
  (``overall_score``). The mean over the tiers present only (weights renormalised) is reported beside it
  (``overall_present``), never instead of it: answering only the easy tiers cannot raise the full score.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from almanac.core.scoring import clipped_score as clipped_score  # equation 2, shared with the series style

PARTIAL_CREDIT = 0.8  # equation 1's share for a partly right list


def exact_match(gold: str, predicted: str) -> float:
    return 1.0 if gold == predicted else 0.0


def f1_score(gold: Iterable[str], predicted: Iterable[str]) -> float:
    truth, guess = set(gold), set(predicted)
    hits = len(truth & guess)
    if not hits:
        return 0.0
    precision, recall = hits / len(guess), hits / len(truth)
    return 2 * precision * recall / (precision + recall)


def limit_prediction(predicted: Sequence[str], k: int) -> list[str]:
    """Equation 1's prediction has k items (the truth's length): the first k are scored, the rest ignored."""
    return list(predicted[:k])


def ranking_score(gold: Sequence[str], predicted: Sequence[str], same: Callable[[str, str], bool]) -> float:
    """Equation 1 over lists of length k = len(gold), the prediction cut to its first k items;
    ``same(true, predicted)`` is the judge."""
    k = len(gold)
    if k == 0:
        raise ValueError("a Level-3 question needs at least one true item")
    predicted = limit_prediction(predicted, k)
    if len(predicted) == k and all(same(y, y_hat) for y, y_hat in zip(gold, predicted, strict=True)):
        return 1.0
    overlap = sum(1 for y in gold if any(same(y, y_hat) for y_hat in predicted))
    return PARTIAL_CREDIT * overlap / k


def overall_score(level_means: Mapping[int, float | None], weights: Sequence[float]) -> float:
    """FutureX's overall score: the weighted sum over all four tiers (weights of levels 1..4); a tier with
    no mean (no question, or none scored) counts 0, so leaving a tier out never raises the score."""
    return sum(weight * float(level_means.get(level) or 0.0) for level, weight in enumerate(weights, 1))


def overall_present(
    level_means: Mapping[int, float | None], weights: Sequence[float]
) -> tuple[float | None, dict[int, float]]:
    """The weighted mean over the tiers that have a mean, their weights renormalised (and returned).
    Not FutureX's score: reported beside ``overall_score`` for a set that lacks a tier, never instead."""
    present = {level: weights[level - 1] for level, mean in level_means.items() if mean is not None}
    total = sum(present.values())
    if not present or total == 0:
        return None, {}
    used = {level: weight / total for level, weight in sorted(present.items())}
    return sum(used[level] * float(level_means[level] or 0.0) for level in used), used
