"""Per-style statistics, figures, dataset cards, version diffs and publishing of the released splits."""
