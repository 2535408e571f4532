"""Invariants every style shares, over any id column."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

Checked = Iterator[tuple[str, str | None]]


def unique_ids(rows: Sequence[Mapping[str, Any]], id_column: str) -> Checked:
    """Each distinct id once: a failure names how often it was released."""
    counts = Counter(str(row[id_column]) for row in rows)
    for item_id, count in counts.items():
        yield item_id, f"released {count} times" if count > 1 else None


def split_matches_folder(rows: Sequence[Mapping[str, Any]], id_column: str) -> Checked:
    """A row's ``split`` is the folder (``_split_dir``) it was released in."""
    for row in rows:
        bad = row.get("split") != row["_split_dir"]
        yield row[id_column], f"split {row.get('split')!r} in {row['_split_dir']}/" if bad else None
