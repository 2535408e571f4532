"""gdelt_ingest: real GDELT 2.0 exports, GDELT 1.0 layouts, line and file rejects, mentions, the stage."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from almanac.gdelt.ingest import FileResult, FileTask, discover_files, file_kind, ingest_file
from almanac.gdelt.schema import EXPORT_SCHEMA, MENTIONS_SCHEMA

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "gdelt"
SAMPLE = Path(__file__).resolve().parents[2] / "data/raw/sample/gdelt/files"
needs_realdata = pytest.mark.skipif(
    not REALDATA.is_dir(), reason=f"real GDELT samples not found at {REALDATA}"
)


def ingest(path: Path) -> FileResult:
    return ingest_file(FileTask(str(path), path.name, file_kind(path.name)))


def reasons(result: FileResult) -> list[tuple[str, str]]:
    return sorted((r.source, r.reason) for r in result.ledger.rejects)


# -- real GDELT 2.0 exports --------------------------------------------------------------------------


@needs_realdata
@pytest.mark.parametrize(
    ("name", "rows"), [("20190121220000.export.CSV.zip", 1629), ("20151027220000.export.CSV", 2116)]
)
def test_real_exports_load_completely(name: str, rows: int) -> None:
    result = ingest(REALDATA / name)
    assert result.events.num_rows == rows and result.ledger.rejects == []
    assert result.events.schema == EXPORT_SCHEMA and len(EXPORT_SCHEMA) == 61 + 2
    assert (result.ledger.items_in, result.ledger.items_out) == (rows, rows)
    assert set(result.events.column("gdelt_version").to_pylist()) == {"2.0"}
    added = {moment.strftime("%Y%m%d%H%M%S") for moment in result.events.column("DATEADDED").to_pylist()}
    assert added == {name[:14]}


@needs_realdata
def test_real_zip_row_typed_as_read_by_hand() -> None:
    # Line 100 of the 2019 file, read in a text editor:
    # 817930392 20190121 201901 2019 2019.0575 <Actor1 all empty> GBR "UNITED KINGDOM" GBR ... 0 043 043 04
    # 1 2.8 2 1 2 1.0958904109589 0 <7 empty> 4 "West Midlands, United Kingdom (general), United Kingdom"
    # UK UK00 40136 52.5 -1.96667 -2611326 (twice: Actor2Geo, ActionGeo) 20190121220000 <url>
    row = ingest(REALDATA / "20190121220000.export.CSV.zip").events.slice(99, 1).to_pylist()[0]
    assert row["GlobalEventID"] == 817930392 and row["Day"] == date(2019, 1, 21)
    assert (row["MonthYear"], row["Year"], row["FractionDate"]) == (201901, 2019, 2019.0575)
    assert row["Actor1Code"] is None and row["Actor1CountryCode"] is None
    assert (row["Actor2Code"], row["Actor2Name"], row["Actor2CountryCode"]) == (
        "GBR",
        "UNITED KINGDOM",
        "GBR",
    )
    assert row["IsRootEvent"] is False
    assert (row["EventCode"], row["EventBaseCode"], row["EventRootCode"]) == ("043", "043", "04")
    assert (row["QuadClass"], row["GoldsteinScale"]) == (1, 2.8)
    assert (row["NumMentions"], row["NumSources"], row["NumArticles"]) == (2, 1, 2)
    assert row["AvgTone"] == 1.0958904109589
    assert row["Actor1Geo_Type"] == 0 and row["Actor1Geo_Lat"] is None
    assert row["ActionGeo_Type"] == 4
    assert row["ActionGeo_FullName"] == "West Midlands, United Kingdom (general), United Kingdom"
    assert (row["ActionGeo_CountryCode"], row["ActionGeo_ADM1Code"], row["ActionGeo_ADM2Code"]) == (
        "UK",
        "UK00",
        "40136",
    )
    assert (row["ActionGeo_Lat"], row["ActionGeo_Long"], row["ActionGeo_FeatureID"]) == (
        52.5,
        -1.96667,
        "-2611326",
    )
    assert row["DATEADDED"] == datetime(2019, 1, 21, 22, 0, tzinfo=UTC)
    assert row["SOURCEURL"].endswith("sells-control-of-vehicles-arm%C2%A0to-german-rival")
    assert row["source"] == "20190121220000.export.CSV.zip:100"


@needs_realdata
def test_real_plain_export_first_row_typed_as_read_by_hand() -> None:
    # Line 1: 479491239 20141027 201410 2014 2014.8137 <Actor1 empty> BUS COMPANY ... BUS ... 1 051 051 05 1
    # 3.4 3 1 3 -1.76470588235294 0 ... 3 "Salem, Oregon, United States" US USOR OR047 44.9429 -123.035 1167861
    row = ingest(REALDATA / "20151027220000.export.CSV").events.slice(0, 1).to_pylist()[0]
    assert (row["GlobalEventID"], row["Day"], row["FractionDate"]) == (
        479491239,
        date(2014, 10, 27),
        2014.8137,
    )
    assert (row["Actor2Code"], row["Actor2Name"], row["Actor2Type1Code"]) == ("BUS", "COMPANY", "BUS")
    assert (row["EventCode"], row["EventRootCode"], row["QuadClass"], row["GoldsteinScale"]) == (
        "051",
        "05",
        1,
        3.4,
    )
    assert (row["NumMentions"], row["NumSources"], row["NumArticles"], row["AvgTone"]) == (
        3,
        1,
        3,
        -1.76470588235294,
    )
    assert (row["Actor2Geo_Type"], row["Actor2Geo_ADM2Code"], row["Actor2Geo_FeatureID"]) == (
        3,
        "OR047",
        "1167861",
    )
    assert (row["Actor2Geo_Lat"], row["Actor2Geo_Long"]) == (44.9429, -123.035)
    assert row["SOURCEURL"] == (
        "http://www.capitalpress.com/Oregon/20151027/thornless-marionberries-reduce-liability-concerns"
    )


@needs_realdata
def test_real_quad_classes_follow_gdelts_root_ranges() -> None:
    """GDELT's QuadClass in the real exports: roots 01-05 -> 1, 06-09 -> 2, 10-14 -> 3, 15-20 -> 4.
    The bundled sample follows the same ranges."""
    expected = {
        f"{root:02d}": 1 if root <= 5 else 2 if root <= 9 else 3 if root <= 14 else 4 for root in range(1, 21)
    }
    paths = [REALDATA / "20190121220000.export.CSV.zip", REALDATA / "20151027220000.export.CSV"]
    paths += sorted(SAMPLE.glob("*.export.CSV.zip"))
    for path in paths:
        events = ingest(path).events
        for root, quad in zip(
            events.column("EventRootCode").to_pylist(), events.column("QuadClass").to_pylist(), strict=True
        ):
            assert root == "--" or expected[root] == quad, (path.name, root, quad)


# -- hand-written lines -----------------------------------------------------------------------------

V1_FIELDS = [
    "255244181", "20130401", "201304", "2013", "2013.2493",
    "USA", "UNITED STATES", "USA", "", "", "", "", "", "", "",
    "RUSGOV", "RUSSIA", "RUS", "", "", "", "", "GOV", "", "",
    "1", "0311", "031", "03", "1", "5.2", "4", "1", "4", "2.5",
    "1", "United States", "US", "US", "38", "-97", "US",
    "1", "Russia", "RS", "RS", "60", "100", "RS",
    "4", "Moscow, Moskva, Russia", "RS", "RS48", "55.7522", "37.6156", "-2960561",
    "20130401", "http://www.example.org/2013/04/01/talks",
]  # fmt: skip


def v2_fields(**changes: str) -> list[str]:
    """The same event as a GDELT 2.0 row: ADM2 codes after each ADM1, DATEADDED to the second."""
    fields = [*V1_FIELDS[:39], "", *V1_FIELDS[39:46], "", *V1_FIELDS[46:53], "40001", *V1_FIELDS[53:]]
    fields[-2] = "20250512011500"
    names = list(EXPORT_SCHEMA.names)
    for name, value in changes.items():
        fields[names.index(name)] = value
    return fields


def write_lines(path: Path, lines: list[list[str]], newline: str = "\n") -> Path:
    path.write_bytes(newline.join("\t".join(fields) for fields in lines).encode() + newline.encode())
    return path


def test_gdelt_1_daily_rows_are_mapped_and_historical_rows_too(tmp_path: Path) -> None:
    assert len(V1_FIELDS) == 58 and len(v2_fields()) == 61
    path = write_lines(tmp_path / "20130401.export.CSV", [V1_FIELDS, V1_FIELDS[:57]], newline="\r\n")
    result = ingest(path)
    row, backfile = result.events.to_pylist()
    assert row["gdelt_version"] == "1.0" and row["GlobalEventID"] == 255244181
    assert [row[f"{block}ADM2Code"] for block in ("Actor1Geo_", "Actor2Geo_", "ActionGeo_")] == [None] * 3
    assert (row["ActionGeo_ADM1Code"], row["ActionGeo_Lat"], row["ActionGeo_FeatureID"]) == (
        "RS48",
        55.7522,
        "-2960561",
    )
    assert (row["EventCode"], row["EventBaseCode"], row["Actor2Type1Code"]) == ("0311", "031", "GOV")
    assert row["DATEADDED"] == datetime(2013, 4, 1, tzinfo=UTC)  # YYYYMMDD: midnight
    assert row["SOURCEURL"] == "http://www.example.org/2013/04/01/talks"  # no stray \r from CRLF
    # The 57-field backfile row: the same values, DATEADDED (its last field) kept, no SOURCEURL.
    assert result.ledger.rejects == []
    assert {k: v for k, v in backfile.items() if k not in ("SOURCEURL", "source")} == {
        k: v for k, v in row.items() if k not in ("SOURCEURL", "source")
    }
    assert backfile["SOURCEURL"] is None and backfile["source"] == "20130401.export.CSV:2"
    assert result.ledger.extra["rows_by_version"] == {"1.0": 2}


def test_bad_lines_are_rejected_with_their_line_number_and_the_rest_loads(tmp_path: Path) -> None:
    lines = [
        v2_fields(GlobalEventID="1"),
        v2_fields(GlobalEventID="2", Day="20250230"),
        v2_fields(GlobalEventID="3", QuadClass="300"),
        v2_fields(GlobalEventID="4", ActionGeo_Lat="nan"),
        v2_fields(GlobalEventID="5", IsRootEvent="2"),
        v2_fields(GlobalEventID=""),
        v2_fields(GlobalEventID="7")[:60],
        v2_fields(GlobalEventID="8", DATEADDED="2025051201"),
        v2_fields(GlobalEventID="9", NumMentions=" 7"),
        [],  # a blank line: not a record
        v2_fields(GlobalEventID="11", Actor1Code="", Actor1Name="", Actor1CountryCode="", ActionGeo_Lat=""),
    ]
    path = write_lines(tmp_path / "20250512011500.export.CSV", lines, newline="\r")  # old Mac line ends
    result = ingest(path)
    assert result.events.column("GlobalEventID").to_pylist() == [1, 11]
    last = result.events.to_pylist()[1]
    assert last["Actor1Code"] is None and last["ActionGeo_Lat"] is None and last["source"].endswith(":11")
    label = path.name
    assert reasons(result) == sorted(
        [(f"{label}:{n}", "bad_value") for n in (2, 3, 4, 5, 6, 8, 9)] + [(f"{label}:7", "wrong_field_count")]
    )
    details = {r.source.rsplit(":", 1)[1]: r.detail for r in result.ledger.rejects}
    assert details["2"].startswith("Day: '20250230' is not a calendar date")
    assert details["3"].startswith("QuadClass: 300 does not fit in int8")
    assert details["4"].startswith("ActionGeo_Lat: 'nan' is not a decimal number")
    assert details["5"].startswith("IsRootEvent: '2' is not 0 or 1")
    assert details["6"].startswith("GlobalEventID: empty")
    assert details["7"].startswith("60 fields")
    assert details["8"].startswith("DATEADDED: '2025051201'")
    assert details["9"].startswith("NumMentions: ' 7' is not an integer")
    assert (result.ledger.items_in, result.ledger.items_out) == (10, 2)
    result.ledger.check_balance()


def test_invalid_utf8_is_kept_with_a_replacement_character_and_counted(tmp_path: Path) -> None:
    line = "\t".join(v2_fields(Actor1Name="SAO PAULO")).encode().replace(b"SAO", b"S\xe3O")
    path = tmp_path / "20250512011500.export.CSV"
    path.write_bytes(line + b"\n")
    result = ingest(path)
    assert result.events.column("Actor1Name").to_pylist() == ["S\ufffdO PAULO"]
    assert result.ledger.extra["invalid_utf8_lines"] == {"export": 1}


# -- files that cannot be read ------------------------------------------------------------------------


def zip_of(member: str, data: bytes, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as archive:
        archive.writestr(member, data)
    return out.getvalue()


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("cut", "truncated_zip"),
        ("html", "not_a_zip"),
        ("crc", "corrupt_zip"),
        ("two_members", "unexpected_zip_members"),
    ],
)
def test_unreadable_zip_is_one_file_reject(tmp_path: Path, damage: str, reason: str) -> None:
    text = ("\n".join("\t".join(v2_fields(GlobalEventID=str(n))) for n in range(1, 40)) + "\n").encode()
    name = "20250512011500.export.CSV"
    data = zip_of(name, text)
    if damage == "cut":
        data = data[: len(data) // 2]
    elif damage == "html":
        data = b"<html><body>503 Service Unavailable</body></html>"
    elif damage == "crc":  # stored, so the flipped byte is row data that still parses: only the CRC tells
        stored = bytearray(zip_of(name, text, zipfile.ZIP_STORED))
        stored[30 + len(name) + 200] ^= 0x01
        data = bytes(stored)
    else:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.writestr(name, text)
            archive.writestr("README.txt", b"x")
        data = out.getvalue()
    path = tmp_path / f"{name}.zip"
    path.write_bytes(data)
    result = ingest(path)
    assert result.events.num_rows == 0 and result.mentions.num_rows == 0
    [reject] = result.ledger.rejects
    assert (reject.reason, reject.source) == (reason, path.name)
    assert (result.ledger.items_in, result.ledger.items_out) == (1, 0)
    assert result.ledger.extra == {"files_rejected": {reason: 1}}  # no line counted from a dropped file


def test_discover_files_kinds(tmp_path: Path) -> None:
    for name in ("20250512011500.export.CSV.zip", "20250512011500.mentions.CSV.zip", "20250512011500.gkg.csv.zip",
                 "20130401.export.CSV", "MANIFEST.json", "20250512013000.export.CSV.zip.part", ".hidden"):  # fmt: skip
        (tmp_path / name).write_bytes(b"")
    found = [(task.label, task.kind) for task in discover_files(tmp_path)]
    assert found == [
        ("20130401.export.CSV", "export"),
        ("20250512011500.export.CSV.zip", "export"),
        ("20250512011500.gkg.csv.zip", "unknown"),
        ("20250512011500.mentions.CSV.zip", "mentions"),
    ]
    gkg = ingest(tmp_path / "20250512011500.gkg.csv.zip")
    assert [r.reason for r in gkg.ledger.rejects] == ["unknown_file_type"]
    with pytest.raises(FileNotFoundError, match="gdelt_download"):
        discover_files(tmp_path / "missing")


# -- mentions ---------------------------------------------------------------------------------------

MENTION = ["1241000430", "20250512011500", "20250512013000", "1", "northgatewire.example",
           "https://www.northgatewire.example/2025/05/12/story", "3", "120", "-1", "340", "1", "70", "4521",
           "-2.5", "", ""]  # fmt: skip
TRANSLATED = ["1241000431", "20250512000000", "20250512011500", "2", "lemonde.fr", "https://www.lemonde.fr/a",
              "1", "-1", "55", "80", "0", "20", "1800", "1.25", "srclc:fra;eng:GT-FRA 1.0",
              "<PAGE_TITLE>Sommet</PAGE_TITLE>"]  # fmt: skip


def test_mentions_rows_are_typed_and_bad_ones_rejected(tmp_path: Path) -> None:
    lines = [MENTION, TRANSLATED, MENTION[:15], [*MENTION[:1], "2025051201", *MENTION[2:]]]
    text = ("\n".join("\t".join(fields) for fields in lines) + "\n").encode()
    path = tmp_path / "20250512011500.mentions.CSV.zip"
    path.write_bytes(zip_of("20250512011500.mentions.CSV", text))
    result = ingest(path)
    assert result.events.num_rows == 0 and result.mentions.schema == MENTIONS_SCHEMA
    first, second = result.mentions.to_pylist()
    assert first == {
        "GlobalEventID": 1241000430,
        "EventTimeDate": datetime(2025, 5, 12, 1, 15, tzinfo=UTC),
        "MentionTimeDate": datetime(2025, 5, 12, 1, 30, tzinfo=UTC),
        "MentionType": 1,
        "MentionSourceName": "northgatewire.example",
        "MentionIdentifier": "https://www.northgatewire.example/2025/05/12/story",
        "SentenceID": 3,
        "Actor1CharOffset": 120,
        "Actor2CharOffset": -1,
        "ActionCharOffset": 340,
        "InRawText": True,
        "Confidence": 70,
        "MentionDocLen": 4521,
        "MentionDocTone": -2.5,
        "MentionDocTranslationInfo": None,
        "Extras": None,
        "source": f"{path.name}:1",
    }
    assert (second["MentionType"], second["InRawText"]) == (2, False)
    assert second["MentionDocTranslationInfo"] == "srclc:fra;eng:GT-FRA 1.0"
    assert second["Extras"] == "<PAGE_TITLE>Sommet</PAGE_TITLE>"
    assert reasons(result) == [(f"{path.name}:3", "wrong_field_count"), (f"{path.name}:4", "bad_value")]
    assert result.ledger.extra["rows_by_kind"] == {"mentions": 2}
