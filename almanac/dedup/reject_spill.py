"""The dedup stage's reject rows, waiting on local disk instead of in memory until the rejects file.

At a 30% near-duplicate rate the reject rows are ~60 bytes per input article (~200 bytes a row of
id, detail, source and related id), held from clustering to the end of the stage, when every other
per-article structure is gone: :class:`SpilledLedger` appends each reject table to a temporary Parquet
file as it comes and reads them back only for the rejects file, which is the same table, sorted the
same way, as :class:`almanac.core.rejects.TableLedger` writes.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.rejects import TableLedger
from almanac.core.schemas import REJECT_SCHEMA


@dataclass
class SpilledLedger(TableLedger):
    """A :class:`TableLedger` whose reject tables go to an unlinked-on-cleanup temporary Parquet file:
    counts stay in memory, the rows are read back (in the order they came) by :meth:`rejects_table`."""

    spilled_rows: int = 0
    spilled_by_reason: Counter[str] = field(default_factory=Counter)
    _folder: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)
    _writer: pq.ParquetWriter | None = field(default=None, repr=False)

    def reject_table(self, table: pa.Table) -> None:
        super().reject_table(table)  # checks and casts it, as the in-memory ledger does
        checked = self.tables.pop()
        if not checked.num_rows:
            return
        for entry in pc.value_counts(checked.column("reason")).to_pylist():
            self.spilled_by_reason[entry["values"]] += entry["counts"]
        self.spilled_rows += checked.num_rows
        if self._writer is None:
            if self._folder is not None:
                raise RuntimeError(f"{self.stage}: a reject table came after the rejects file was made")
            # removed with this object (or at exit) even if the stage fails half way
            self._folder = tempfile.TemporaryDirectory(prefix="almanac-dedup-rejects-")
            self._writer = pq.ParquetWriter(self._path, REJECT_SCHEMA, compression="lz4")
        self._writer.write_table(checked)

    @property
    def _path(self) -> Path:
        assert self._folder is not None
        return Path(self._folder.name) / "rejects.parquet"

    @property
    def rejected(self) -> int:
        return super().rejected + self.spilled_rows

    @property
    def rejected_by_reason(self) -> dict[str, int]:
        counts = Counter(super().rejected_by_reason)
        counts.update(self.spilled_by_reason)
        return dict(sorted(counts.items()))

    def rejects_table(self) -> pa.Table:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if not self.spilled_rows:
            return super().rejects_table()
        # TableLedger's table (its single rejects, then its tables; the spilled ones are those), sorted
        # the same way, but one column at a time: each column's sorted copy replaces it, so memory holds
        # the rows about once, not twice (at 10M articles ~3M reject rows, ~600 MB)
        columns = list(
            pa.concat_tables(
                [
                    super(TableLedger, self).rejects_table(),
                    *self.tables,
                    pq.read_table(self._path).cast(REJECT_SCHEMA),
                ]
            ).columns
        )
        keys = pa.table(
            {name: columns[REJECT_SCHEMA.get_field_index(name)] for name in ("source", "id", "reason")}
        )
        order = pc.sort_indices(keys, [(name, "ascending") for name in keys.column_names])
        del keys
        for position, column in enumerate(columns):
            columns[position] = pa.chunked_array([column.take(order).combine_chunks()], column.type)
            del column
        return pa.table(columns, schema=REJECT_SCHEMA)

    def close(self) -> None:
        """Remove the spill file (done at garbage collection otherwise)."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._folder is not None:
            self._folder.cleanup()
            self._folder = None
