"""Results of a check: rows looked at per invariant, and the ids of rows that broke it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

MAX_IDS_SHOWN = 8
NAME_COLUMN = 34  # the invariant-name column of `almanac check`, widened per report when a name is longer


@dataclass
class InvariantResult:
    name: str
    description: str
    checked: int = 0
    failures: dict[str, str] = field(default_factory=dict)  # offending id -> why

    def fail(self, item_id: str, why: str) -> None:
        self.failures.setdefault(item_id, why)

    @property
    def ok(self) -> bool:
        return not self.failures

    def line(self, width: int = NAME_COLUMN) -> str:
        if self.ok:
            return f"  ok    {self.name:<{width}} {self.checked} checked"
        ids = sorted(self.failures)
        shown = ", ".join(f"{item} ({self.failures[item]})" for item in ids[:MAX_IDS_SHOWN])
        more = f", ... {len(ids) - MAX_IDS_SHOWN} more" if len(ids) > MAX_IDS_SHOWN else ""
        return f"  FAIL  {self.name:<{width}} {len(ids)} of {self.checked}: {shown}{more}"


@dataclass
class StyleReport:
    """Every invariant of one style, in the order they were declared."""

    style: str
    scope: str
    rows: int = 0
    invariants: dict[str, InvariantResult] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # lines printed after the invariants (e.g. an audit table)
    extra: dict[str, Any] = field(default_factory=dict)  # deterministic figures added to the summary

    def invariant(self, name: str, description: str) -> InvariantResult:
        if name not in self.invariants:
            self.invariants[name] = InvariantResult(name, description)
        return self.invariants[name]

    def check(self, name: str, description: str, items: Iterable[tuple[str, str | None]]) -> None:
        """Record (id, reason or None) pairs: None means the item holds the invariant."""
        result = self.invariant(name, description)
        for item_id, why in items:
            result.checked += 1
            if why is not None:
                result.fail(item_id, why)

    @property
    def ok(self) -> bool:
        return all(result.ok for result in self.invariants.values())

    @property
    def violated(self) -> list[InvariantResult]:
        return [result for result in self.invariants.values() if not result.ok]

    def lines(self) -> list[str]:
        verdict = "ok" if self.ok else f"{len(self.violated)} invariant(s) violated"
        head = f"{self.style} {self.scope}: {self.rows} released rows, {verdict}"
        # The name column widens for a long invariant name rather than running into its count.
        width = max([NAME_COLUMN, *(len(name) for name in self.invariants)])
        return [head, *(result.line(width) for result in self.invariants.values()), *self.notes]

    def summary(self) -> dict[str, object]:
        """Deterministic JSON for DVC metrics: counts only, no times."""
        return {
            "style": self.style,
            "scope": self.scope,
            "rows": self.rows,
            "ok": self.ok,
            "invariants": {
                name: {"checked": result.checked, "violations": len(result.failures)}
                for name, result in self.invariants.items()
            },
            **self.extra,
        }
