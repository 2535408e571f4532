"""gdelt_clean: each MIRAI rule on hand-built export rows and its switch."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest

from almanac.core.ids import canonical_url
from almanac.core.rejects import TableLedger
from tests.gdelt.clean_rows import ALL_OFF, NOON_MAY_1, export_row, kept_ids, only, run


def rejects(ledger: TableLedger) -> list[tuple[str, str]]:
    return [(row["id"], row["reason"]) for row in ledger.rejects_table().to_pylist()]


def test_duplicate_event_ids_keep_the_earliest_added_then_the_first_source() -> None:
    rows = [
        export_row(7, DATEADDED=datetime(2025, 5, 1, 12, 15, tzinfo=UTC), source="b.export.CSV:1"),
        export_row(7, DATEADDED=NOON_MAY_1, source="c.export.CSV:1", NumMentions=61),
        export_row(8, source="b.export.CSV:9"),
        export_row(8, source="a.export.CSV:9", NumMentions=62),  # same DATEADDED: "a..." comes first
    ]
    result, ledger = run(rows, only("drop_duplicate_event_ids"))
    assert sorted(result.events.column("num_mentions").to_pylist()) == [61, 62]
    table = ledger.rejects_table().to_pylist()
    assert [(r["source"], r["reason"], r["related_id"]) for r in table] == [
        ("b.export.CSV:1", "duplicate_event_id", "c.export.CSV:1"),
        ("b.export.CSV:9", "duplicate_event_id", "a.export.CSV:9"),
    ]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [7, 7, 8, 8]  # switched off: every copy stays


def test_reported_today_compares_day_with_the_utc_date_added() -> None:
    rows = [
        export_row(1),
        export_row(2, Day=date(2025, 4, 30)),  # an older event reported on May 1
        export_row(3, DATEADDED=datetime(2025, 5, 1, 23, 59, 59, tzinfo=UTC)),
        export_row(4, DATEADDED=datetime(2025, 5, 2, 0, 0, 0, tzinfo=UTC)),  # one second later: next day
    ]
    result, ledger = run(rows, only("reported_today"))
    assert kept_ids(result) == [1, 3]
    assert rejects(ledger) == [("2", "not_reported_today"), ("4", "not_reported_today")]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [1, 2, 3, 4]


@pytest.fixture
def far_east_timezone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process runs at UTC+14, where 2025-05-01 12:00 UTC is already May 2."""
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("far_east_timezone")
def test_reported_today_does_not_depend_on_the_machine_time_zone() -> None:
    result, _ = run([export_row(1)], only("reported_today"))
    assert kept_ids(result) == [1]


def test_earliest_date_per_canonical_url() -> None:
    url = "https://www.wire.example/world/talks"
    rows = [
        export_row(1, SOURCEURL=url),
        # the same page (tracking parameter, upper-case host) crawled again the next day
        export_row(
            2,
            SOURCEURL="https://WWW.wire.example/world/talks?utm_source=feed",
            Day=date(2025, 5, 2),
            DATEADDED=datetime(2025, 5, 2, 8, tzinfo=UTC),
        ),
        export_row(3, SOURCEURL=url, EventBaseCode="036", EventCode="036", EventRootCode="03"),
        export_row(4, Day=date(2025, 5, 2), DATEADDED=datetime(2025, 5, 2, 8, tzinfo=UTC)),  # other URL
    ]
    result, ledger = run(rows, only("earliest_date_per_url"))
    assert kept_ids(result) == [1, 3, 4]
    table = ledger.rejects_table().to_pylist()
    assert [(r["id"], r["reason"], r["related_id"]) for r in table] == [
        ("2", "not_earliest_url_date", canonical_url(url))
    ]
    assert "first seen on 2025-05-01" in table[0]["detail"]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [1, 2, 3, 4]


def test_countries_are_required_and_mapped_to_iso() -> None:
    rows = [
        export_row(1, Actor1CountryCode="ROM"),  # Romania's CAMEO code
        export_row(2, Actor2CountryCode="AFR"),  # a region
        export_row(3, Actor1CountryCode="YUG"),  # an outdated state
        export_row(4, Actor1CountryCode=None),
        export_row(5, Actor1CountryCode=None, Actor2CountryCode=None),
        export_row(6, Actor1CountryCode="TMP", Actor2CountryCode="IMY"),
    ]
    result, ledger = run(rows, only("require_countries"))
    events = result.events.to_pylist()
    assert [(e["global_event_id"], e["subject"], e["object"]) for e in events] == [
        (1, "ROU", "CHN"),
        (6, "TLS", "IMN"),
    ]
    assert (events[0]["subject_cameo"], events[1]["object_cameo"]) == ("ROM", "IMY")
    table = {row["id"]: (row["reason"], row["detail"]) for row in ledger.rejects_table().to_pylist()}
    assert table == {
        "2": ("unknown_country_code", "Actor2CountryCode AFR: region: Africa"),
        "3": ("unknown_country_code", "Actor1CountryCode YUG: outdated: Yugoslavia"),
        "4": ("missing_country", "Actor1CountryCode is empty"),
        "5": ("missing_country", "Actor1CountryCode and Actor2CountryCode are empty"),
    }
    # switched off: rows stay; mapped codes still become ISO, others keep their raw code
    off = run(rows, ALL_OFF)[0].events.to_pylist()
    assert [(e["subject"], e["object"]) for e in off] == [
        ("ROU", "CHN"),
        ("USA", "AFR"),
        ("YUG", "CHN"),
        (None, "CHN"),
        (None, None),
        ("TLS", "IMN"),
    ]


def test_same_country_is_compared_after_mapping() -> None:
    rows = [
        export_row(1, Actor2CountryCode="USA"),
        export_row(2, Actor1CountryCode="ROM", Actor2CountryCode="ROU"),  # both Romania
        export_row(3, Actor1CountryCode="WSB", Actor2CountryCode="GZS"),  # both Palestine
        export_row(4),
    ]
    result, ledger = run(rows, only("drop_same_country", require_countries=True))
    assert kept_ids(result) == [4]
    details = {row["id"]: row["detail"] for row in ledger.rejects_table().to_pylist()}
    assert details == {
        "1": "subject and object are both USA",
        "2": "subject and object are both ROU",
        "3": "subject and object are both PSE",
    }
    assert kept_ids(run(rows, only("require_countries"))[0]) == [1, 2, 3, 4]


def test_unknown_root_code_and_relation_is_the_base_code() -> None:
    rows = [
        export_row(1, EventRootCode="--", EventBaseCode="---", EventCode="---"),
        export_row(2, EventRootCode=None),
        export_row(3, EventCode="1712", EventBaseCode="171", EventRootCode="17", QuadClass=4),
    ]
    result, ledger = run(rows, only("drop_unknown_root"))
    events = result.events.to_pylist()
    assert [(e["global_event_id"], e["event_code"], e["relation"], e["relation_root"]) for e in events] == [
        (3, "1712", "171", "17")
    ]
    assert rejects(ledger) == [("1", "unknown_root_code"), ("2", "unknown_root_code")]
    assert kept_ids(run(rows, ALL_OFF)[0]) == [1, 2, 3]


def test_rows_without_a_usable_source_url_are_always_rejected() -> None:
    rows = [
        export_row(1, SOURCEURL=None),
        export_row(2, SOURCEURL="http://bad.example:port/x"),
        export_row(3),
    ]
    result, ledger = run(rows, ALL_OFF)
    assert kept_ids(result) == [3]
    assert rejects(ledger) == [("1", "missing_source_url"), ("2", "bad_source_url")]
