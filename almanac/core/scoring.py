"""Scores shared by several styles (one definition each)."""

from __future__ import annotations


def clipped_score(truth: float, predicted: float, sigma: float) -> float:
    """FutureX's equation 2, ``max(0, 1 - ((y - y_hat) / sigma)^2)``: 1 for an exact number, 0 from one sigma
    off. sigma is the outcome's scale (FutureX: its standard deviation over the past 7 days); it scores the
    FutureX Level-4 tier and the series style's numeric questions."""
    if sigma <= 0:
        raise ValueError(f"sigma must be positive, got {sigma}")
    return max(0.0, 1.0 - ((truth - predicted) / sigma) ** 2)
