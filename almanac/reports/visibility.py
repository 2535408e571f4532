"""What a forecaster sees, per dataset style: each style's declared field roles, looked up by style name.

The roles themselves are declared beside each style's schema and the metadata mechanics live in
``almanac/core/field_roles.py`` (see its docstring for what ``prompt``, ``answer`` and ``provenance``
mean). This module is the reports' view by style name (aliases accepted): the published Parquet files
carry each column's role as field metadata (``role``) and the dataset card renders it.
A column not listed is provenance: unknown fields are kept out of a prompt, never put in.
"""

from __future__ import annotations

from collections.abc import Mapping

import pyarrow as pa

from almanac.core import field_roles
from almanac.core.field_roles import ROLE_KEY as ROLE_KEY
from almanac.core.field_roles import ROLES as ROLES
from almanac.core.field_roles import Role as Role
from almanac.core.field_roles import roles_of as roles_of
from almanac.events.schema import FIELD_ROLES as OPENFORECAST_ROLES
from almanac.foresight.schema import FIELD_ROLES as OPENFORESIGHT_ROLES
from almanac.futuresim.field_roles import FIELD_ROLES as FUTURESIM_ROLES
from almanac.futurex.field_roles import FIELD_ROLES as FUTUREX_ROLES
from almanac.mirai.relation_split import FIELD_ROLES as MIRAI_ROLES
from almanac.reports.styles import get_style
from almanac.series.release import FIELD_ROLES as SERIES_ROLES

FIELD_ROLES: dict[str, dict[str, Role]] = {
    "openforesight": OPENFORESIGHT_ROLES,
    "openforecast": OPENFORECAST_ROLES,
    "mirai": MIRAI_ROLES,
    "series": SERIES_ROLES,
    "futuresim": FUTURESIM_ROLES,
    "futurex": FUTUREX_ROLES,
}


def _roles(style: str) -> dict[str, Role]:
    return FIELD_ROLES[get_style(style).name]


def prompt_fields(style: str) -> tuple[str, ...]:
    """The released split columns a forecaster is shown, in declaration order (aliases accepted)."""
    return field_roles.prompt_fields(_roles(style))


def fields_with_role(style: str, role: Role) -> tuple[str, ...]:
    return field_roles.fields_with_role(_roles(style), role)


def field_role(style: str, column: str) -> Role:
    """The declared role of ``column``; undeclared columns are provenance (never shown)."""
    return field_roles.field_role(_roles(style), column)


def with_roles(table: pa.Table, style: str, extra: Mapping[str, Role] | None = None) -> pa.Table:
    """``table`` with a ``role`` entry in every field's metadata (``extra`` for derived columns)."""
    return field_roles.with_roles(table, {**_roles(style), **(extra or {})})
