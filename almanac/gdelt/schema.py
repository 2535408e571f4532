"""Column layouts of GDELT 2.0 event exports and mentions files, and their typed Parquet schemas.

The field names are the codebook's. Other stages (clean, articles, relation split) code against
EXPORT_SCHEMA and MENTIONS_SCHEMA, so a column's name and type are decided here once.
"""

from __future__ import annotations

import pyarrow as pa

from almanac.core.schemas import TIMESTAMP

_ACTOR_ATTRIBUTES = (
    "Code",
    "Name",
    "CountryCode",
    "KnownGroupCode",
    "EthnicCode",
    "Religion1Code",
    "Religion2Code",
    "Type1Code",
    "Type2Code",
    "Type3Code",
)
_GEO_BLOCKS = ("Actor1Geo_", "Actor2Geo_", "ActionGeo_")


def _geo_fields(prefix: str, with_adm2: bool) -> list[pa.Field]:
    fields = [
        pa.field(f"{prefix}Type", pa.int8()),
        pa.field(f"{prefix}FullName", pa.string()),
        pa.field(f"{prefix}CountryCode", pa.string()),
        pa.field(f"{prefix}ADM1Code", pa.string()),
    ]
    if with_adm2:
        fields.append(pa.field(f"{prefix}ADM2Code", pa.string()))
    fields += [
        pa.field(f"{prefix}Lat", pa.float64()),
        pa.field(f"{prefix}Long", pa.float64()),
        pa.field(f"{prefix}FeatureID", pa.string()),
    ]
    return fields


def _event_fields(with_adm2: bool) -> list[pa.Field]:
    fields = [
        pa.field("GlobalEventID", pa.int64(), nullable=False),
        pa.field("Day", pa.date32(), nullable=False),
        pa.field("MonthYear", pa.int32()),
        pa.field("Year", pa.int32()),
        pa.field("FractionDate", pa.float64()),
    ]
    for actor in ("Actor1", "Actor2"):
        fields += [pa.field(f"{actor}{attribute}", pa.string()) for attribute in _ACTOR_ATTRIBUTES]
    fields += [
        pa.field("IsRootEvent", pa.bool_()),
        pa.field("EventCode", pa.string()),  # leading zeros kept: "042"
        pa.field("EventBaseCode", pa.string()),
        pa.field("EventRootCode", pa.string()),  # "04"; "--" when GDELT could not code the root
        pa.field("QuadClass", pa.int8()),
        pa.field("GoldsteinScale", pa.float64()),
        pa.field("NumMentions", pa.int32()),
        pa.field("NumSources", pa.int32()),
        pa.field("NumArticles", pa.int32()),
        pa.field("AvgTone", pa.float64()),
    ]
    for prefix in _GEO_BLOCKS:
        fields += _geo_fields(prefix, with_adm2)
    fields += [
        pa.field("DATEADDED", TIMESTAMP, nullable=False),
        pa.field("SOURCEURL", pa.string()),
    ]
    return fields


# Raw column order of a GDELT 2.0 export row (61 fields) and of a GDELT 1.0 daily row (58: no ADM2Code).
EXPORT_FIELDS_V2: tuple[str, ...] = tuple(field.name for field in _event_fields(with_adm2=True))
EXPORT_FIELDS_V1: tuple[str, ...] = tuple(field.name for field in _event_fields(with_adm2=False))
# GDELT 1.0 historical backfile rows (1979 to March 2013): the 1.0 layout without SOURCEURL. Rejected.
HISTORICAL_FIELD_COUNT = 57

EXPORT_SCHEMA = pa.schema(
    [
        *_event_fields(with_adm2=True),
        pa.field("gdelt_version", pa.string(), nullable=False),  # "2.0" | "1.0"
        pa.field("source", pa.string(), nullable=False),  # "<file name>:<line number>"
    ]
)

MENTIONS_FIELDS: tuple[str, ...] = (
    "GlobalEventID",
    "EventTimeDate",
    "MentionTimeDate",
    "MentionType",
    "MentionSourceName",
    "MentionIdentifier",
    "SentenceID",
    "Actor1CharOffset",
    "Actor2CharOffset",
    "ActionCharOffset",
    "InRawText",
    "Confidence",
    "MentionDocLen",
    "MentionDocTone",
    "MentionDocTranslationInfo",
    "Extras",
)

MENTIONS_SCHEMA = pa.schema(
    [
        pa.field("GlobalEventID", pa.int64(), nullable=False),
        pa.field("EventTimeDate", TIMESTAMP),
        pa.field("MentionTimeDate", TIMESTAMP),
        pa.field("MentionType", pa.int8()),
        pa.field("MentionSourceName", pa.string()),
        pa.field("MentionIdentifier", pa.string()),
        pa.field("SentenceID", pa.int32()),
        pa.field("Actor1CharOffset", pa.int32()),
        pa.field("Actor2CharOffset", pa.int32()),
        pa.field("ActionCharOffset", pa.int32()),
        pa.field("InRawText", pa.bool_()),
        pa.field("Confidence", pa.int32()),
        pa.field("MentionDocLen", pa.int32()),
        pa.field("MentionDocTone", pa.float64()),
        pa.field("MentionDocTranslationInfo", pa.string()),
        pa.field("Extras", pa.string()),
        pa.field("source", pa.string(), nullable=False),
    ]
)

assert len(EXPORT_FIELDS_V2) == 61 and len(EXPORT_FIELDS_V1) == 58 and len(MENTIONS_FIELDS) == 16
