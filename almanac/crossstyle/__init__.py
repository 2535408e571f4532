"""Cross-style contamination: near-duplicate rows across styles (the FutureX build and the checker)."""
