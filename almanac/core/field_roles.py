"""What a forecaster sees: the three roles a released field can have, and the Parquet metadata for them.

A released record mixes three kinds of fields. ``prompt`` fields are what a forecaster (a person or a
model) is shown; they must not reveal the outcome, so the invariant checker scans them for the answer.
``answer`` fields are the outcome and everything that points at it. ``provenance`` fields say where a
record came from (ids, source article, split, models); they are not shown either, because a source
article's title or URL often states the outcome outright.

Each style declares the role of its released columns beside its schema (``FIELD_ROLES`` in
``foresight/schema.py``, ``events/schema.py`` and ``mirai/relation_split.py``); this module holds only
the mechanics, so the style packages and the checker use them without reaching up into the reports.
A column not declared is provenance: unknown fields are kept out of a prompt, never put in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import pyarrow as pa

Role = Literal["prompt", "answer", "provenance"]
ROLES: tuple[Role, ...] = ("prompt", "answer", "provenance")
ROLE_KEY = b"role"


def prompt_fields(roles: Mapping[str, Role]) -> tuple[str, ...]:
    """The columns a forecaster is shown, in declaration order."""
    return fields_with_role(roles, "prompt")


def fields_with_role(roles: Mapping[str, Role], role: Role) -> tuple[str, ...]:
    return tuple(name for name, declared in roles.items() if declared == role)


def field_role(roles: Mapping[str, Role], column: str) -> Role:
    """The declared role of ``column``; undeclared columns are provenance (never shown)."""
    return roles.get(column, "provenance")


def with_roles(table: pa.Table, roles: Mapping[str, Role]) -> pa.Table:
    """``table`` with a ``role`` entry in every field's metadata (undeclared columns: provenance)."""
    fields = []
    for item in table.schema:
        metadata = dict(item.metadata or {})
        metadata[ROLE_KEY] = field_role(roles, item.name).encode()
        fields.append(item.with_metadata(metadata))
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def roles_of(schema: pa.Schema) -> dict[str, str]:
    """Column -> role as written in a published file's field metadata ("" when a field has none)."""
    return {item.name: (item.metadata or {}).get(ROLE_KEY, b"").decode() for item in schema}
