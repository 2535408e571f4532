"""Per-stage accounting: every dropped item becomes a reject row and a count by reason.

The funnel tables of every dataset are computed from these counts, so the invariant
``items_in == items_out + rejected`` is checked before a stage writes its metrics.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from almanac.core.lazy import lazy_module
from almanac.core.schemas import REJECT_SCHEMA, table_from_rows

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # read-back counts only; every stage imports this module (~0.1 s of start-up)
    pc = lazy_module("pyarrow.compute")


@dataclass(frozen=True)
class Reject:
    id: str
    stage: str
    reason: str
    detail: str
    source: str
    related_id: str | None = None


@dataclass
class StageLedger:
    """Counts what a stage read, kept and dropped (with reasons), plus free-form extra metrics.

    ``timings`` holds wall-clock seconds of parts of the work (e.g. ``llm.generator``) and ``run_counts``
    what this run did rather than what the data is (LLM answers found in the cache vs asked, HTTP
    attempts): both go to the stage's untracked record in metrics/timings/, never into the tracked
    metrics, so a rebuild with no input change leaves every tracked file as it was.
    """

    stage: str
    items_in: int = 0
    items_out: int = 0
    rejects: list[Reject] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    run_counts: dict[str, float] = field(default_factory=dict)

    def reject(
        self, item_id: str, reason: str, detail: str, source: str, related_id: str | None = None
    ) -> None:
        self.rejects.append(Reject(item_id, self.stage, reason, detail, source, related_id))

    def merge(self, other: StageLedger) -> None:
        """Fold a worker's ledger into this one (workers each count their own share)."""
        self.items_in += other.items_in
        self.items_out += other.items_out
        self.rejects.extend(other.rejects)
        for key, value in other.extra.items():
            if isinstance(value, dict):
                merged = Counter(self.extra.get(key, {}))
                merged.update(value)
                self.extra[key] = dict(sorted(merged.items()))
            elif isinstance(value, int | float):
                self.extra[key] = self.extra.get(key, 0) + value
            else:
                raise TypeError(f"cannot merge extra metric {key!r} of type {type(value).__name__}")
        for label, seconds in other.timings.items():
            self.add_time(label, seconds)
        for label, amount in other.run_counts.items():
            self.add_run_count(label, amount)

    def add_time(self, label: str, seconds: float) -> None:
        """Add wall-clock ``seconds`` spent on ``label`` (kept out of the metrics)."""
        self.timings[label] = self.timings.get(label, 0.0) + seconds

    def add_run_count(self, label: str, amount: float) -> None:
        """Add to a count of this run's own work (kept out of the metrics; see the class docstring)."""
        self.run_counts[label] = self.run_counts.get(label, 0) + amount

    def count(self, key: str, label: str, amount: int = 1) -> None:
        """Increment ``extra[key][label]``: for tallies that are not items (e.g. skipped WARC types)."""
        bucket = self.extra.setdefault(key, {})
        bucket[label] = bucket.get(label, 0) + amount

    @property
    def rejected(self) -> int:
        return len(self.rejects)

    @property
    def rejected_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(reject.reason for reject in self.rejects).items()))

    def check_balance(self) -> None:
        if self.items_in != self.items_out + self.rejected:
            raise AssertionError(
                f"{self.stage}: items_in={self.items_in} != items_out={self.items_out}"
                f" + rejected={self.rejected}; some item was lost without a reject row"
            )

    def metrics(self) -> dict[str, Any]:
        self.check_balance()
        return {
            "stage": self.stage,
            "items_in": self.items_in,
            "items_out": self.items_out,
            "rejected": self.rejected,
            "rejected_by_reason": self.rejected_by_reason,
            **self.extra,
        }

    def rejects_table(self) -> pa.Table:
        # Sorted so that the rejects file is byte-identical however work was split across workers.
        rows = sorted(
            (asdict(reject) for reject in self.rejects), key=lambda r: (r["source"], r["id"], r["reason"])
        )
        return table_from_rows(rows, REJECT_SCHEMA)


@dataclass
class TableLedger(StageLedger):
    """A ledger that also takes rejects as whole Arrow tables (REJECT_SCHEMA columns).

    A month of GDELT exports has millions of rows and most are dropped by some rule; one Python
    ``Reject`` per row would take gigabytes and minutes. Rules computed in DuckDB hand their rejects
    over as tables; counts, the balance check and the rejects file treat them like single rejects.
    """

    tables: list[pa.Table] = field(default_factory=list)

    def reject_table(self, table: pa.Table) -> None:
        table = table.select(REJECT_SCHEMA.names).cast(REJECT_SCHEMA)
        stages = set(pc.unique(table.column("stage")).to_pylist())
        if stages - {self.stage}:
            raise ValueError(f"{self.stage}: reject table carries rows of stages {sorted(stages)}")
        self.tables.append(table)

    @property
    def rejected(self) -> int:
        return len(self.rejects) + sum(int(table.num_rows) for table in self.tables)

    @property
    def rejected_by_reason(self) -> dict[str, int]:
        counts = Counter(reject.reason for reject in self.rejects)
        for table in self.tables:
            for entry in pc.value_counts(table.column("reason")).to_pylist():
                counts[entry["values"]] += entry["counts"]
        return dict(sorted(counts.items()))

    def rejects_table(self) -> pa.Table:
        combined = pa.concat_tables([super().rejects_table(), *self.tables])
        return combined.sort_by(
            [("source", "ascending"), ("id", "ascending"), ("reason", "ascending")]
        ).combine_chunks()


def gather(
    stage: str, results: Iterable[tuple[list[dict[str, Any]], StageLedger]], **extra: Any
) -> tuple[list[dict[str, Any]], StageLedger]:
    """Concatenate the rows of parallel workers (in input order) and fold their ledgers into one."""
    ledger = StageLedger(stage, extra=dict(extra))
    rows: list[dict[str, Any]] = []
    for worker_rows, worker_ledger in results:
        rows.extend(worker_rows)
        ledger.merge(worker_ledger)
    return rows, ledger
