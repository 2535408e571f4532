"""``almanac check``: invariants over every released row, independent of the code that made it.

The checker reads only split files, the inputs those rows cite and the split windows in params; it never
imports a pipeline stage, so a bug in a stage cannot hide itself by being reused here.
"""
