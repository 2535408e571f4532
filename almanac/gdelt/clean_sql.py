"""The DuckDB SQL of gdelt_clean (the rules and their order are documented in :mod:`almanac.gdelt.clean`).

All statements work on one temporary table ``work``: a row per export row, with ``reason`` NULL while
the row is kept. Each rule is an UPDATE that only looks at rows still kept, so a row carries the
first rule that dropped it and the rule-by-rule funnel is a GROUP BY on ``reason``.
"""

from __future__ import annotations

from typing import Final

SUBJECT: Final = "coalesce(subject_iso, subject_cameo)"  # the raw code only if require_countries is off
OBJECT: Final = "coalesce(object_iso, object_cameo)"

# Needs the views export_rows (EXPORT_SCHEMA columns), url_map(source_url, url, error),
# cameo_map(code, iso3) and not_countries(code, why).
WORK_TABLE: Final = """
CREATE TEMP TABLE work AS
SELECT row_number() OVER () AS row_id,
       e.GlobalEventID AS global_event_id, e.Day AS date, e.DATEADDED AS date_added, e.source,
       nullif(trim(e.Actor1CountryCode), '') AS subject_cameo,
       nullif(trim(e.Actor2CountryCode), '') AS object_cameo,
       s.iso3 AS subject_iso, o.iso3 AS object_iso,
       coalesce(sn.why, 'not a CAMEO country code') AS subject_why,
       coalesce(obn.why, 'not a CAMEO country code') AS object_why,
       e.EventCode AS event_code, nullif(trim(e.EventBaseCode), '') AS relation,
       nullif(trim(e.EventRootCode), '') AS relation_root, e.QuadClass AS quad_class,
       e.NumMentions AS num_mentions, e.NumSources AS num_sources, e.NumArticles AS num_articles,
       e.GoldsteinScale AS goldstein, e.AvgTone AS avg_tone,
       e.SOURCEURL AS source_url, u.url, u.error AS url_error,
       CAST(NULL AS VARCHAR) AS reason, CAST(NULL AS VARCHAR) AS detail,
       CAST(NULL AS VARCHAR) AS related_id
FROM export_rows e
LEFT JOIN url_map u ON e.SOURCEURL = u.source_url
LEFT JOIN cameo_map s ON upper(trim(e.Actor1CountryCode)) = s.code
LEFT JOIN cameo_map o ON upper(trim(e.Actor2CountryCode)) = o.code
LEFT JOIN not_countries sn ON upper(trim(e.Actor1CountryCode)) = sn.code
LEFT JOIN not_countries obn ON upper(trim(e.Actor2CountryCode)) = obn.code
"""

# (params switch, or None for a sanity check that always runs; the UPDATE), in the order they run.
RULES: Final[tuple[tuple[str | None, str], ...]] = (
    (
        None,
        """UPDATE work SET
             reason = CASE WHEN source_url IS NULL OR trim(source_url) = '' THEN 'missing_source_url'
                           ELSE 'bad_source_url' END,
             detail = CASE WHEN source_url IS NULL OR trim(source_url) = '' THEN 'SOURCEURL is empty'
                           ELSE 'SOURCEURL ' || source_url || ' cannot be canonicalised: ' || url_error END
           WHERE reason IS NULL AND url IS NULL""",
    ),
    (
        "drop_duplicate_event_ids",
        """UPDATE work SET reason = 'duplicate_event_id',
             detail = 'GlobalEventID ' || CAST(work.global_event_id AS VARCHAR)
                      || ' first kept at ' || k.first_source,
             related_id = k.first_source
           FROM (SELECT row_id, row_number() OVER w AS rank, first_value(source) OVER w AS first_source
                 FROM work WHERE reason IS NULL
                 WINDOW w AS (PARTITION BY global_event_id ORDER BY date_added, source)) k
           WHERE work.row_id = k.row_id AND k.rank > 1""",
    ),
    (
        "reported_today",
        # The connection's TimeZone is UTC, so the cast gives DATEADDED's UTC date.
        """UPDATE work SET reason = 'not_reported_today',
             detail = 'Day ' || strftime(date, '%Y-%m-%d') || ' is not the day it was added, '
                      || strftime(date_added, '%Y-%m-%d %H:%M:%S') || ' UTC'
           WHERE reason IS NULL AND date IS DISTINCT FROM CAST(date_added AS DATE)""",
    ),
    (
        "earliest_date_per_url",
        """UPDATE work SET reason = 'not_earliest_url_date',
             detail = 'Day ' || strftime(work.date, '%Y-%m-%d') || ' but the URL was first seen on '
                      || strftime(k.first_day, '%Y-%m-%d'),
             related_id = work.url
           FROM (SELECT row_id, min(date) OVER (PARTITION BY url) AS first_day FROM work
                 WHERE reason IS NULL) k
           WHERE work.row_id = k.row_id AND work.date > k.first_day""",
    ),
    (
        "require_countries",
        """UPDATE work SET reason = 'missing_country',
             detail = CASE WHEN subject_cameo IS NULL AND object_cameo IS NULL
                             THEN 'Actor1CountryCode and Actor2CountryCode are empty'
                           WHEN subject_cameo IS NULL THEN 'Actor1CountryCode is empty'
                           ELSE 'Actor2CountryCode is empty' END
           WHERE reason IS NULL AND (subject_cameo IS NULL OR object_cameo IS NULL)""",
    ),
    (
        "require_countries",
        """UPDATE work SET reason = 'unknown_country_code',
             detail = concat_ws('; ',
               CASE WHEN subject_iso IS NULL
                    THEN 'Actor1CountryCode ' || subject_cameo || ': ' || subject_why END,
               CASE WHEN object_iso IS NULL
                    THEN 'Actor2CountryCode ' || object_cameo || ': ' || object_why END)
           WHERE reason IS NULL AND (subject_iso IS NULL OR object_iso IS NULL)""",
    ),
    (
        "drop_same_country",
        f"""UPDATE work SET reason = 'same_country',
              detail = 'subject and object are both ' || {SUBJECT}
            WHERE reason IS NULL AND {SUBJECT} = {OBJECT}""",
    ),
    (
        "drop_unknown_root",
        """UPDATE work SET reason = 'unknown_root_code',
             detail = 'EventRootCode ' || coalesce(relation_root, '(empty)') || ', EventCode '
                      || coalesce(event_code, '(empty)')
           WHERE reason IS NULL AND (relation_root IS NULL OR relation_root = '--')""",
    ),
    (
        None,
        """UPDATE work SET reason = 'missing_event_code',
             detail = 'EventBaseCode is empty (EventCode ' || coalesce(event_code, '(empty)') || ')'
           WHERE reason IS NULL AND relation IS NULL""",
    ),
)

QUADS: Final = f"""
SELECT date, {SUBJECT} AS subject, relation, min(relation_root) AS relation_root,
       {OBJECT} AS object, min(quad_class) AS quad_class,
       CAST(sum(coalesce(num_mentions, 0)) AS BIGINT) AS num_daily_mentions,
       CAST(count(*) AS INTEGER) AS n_events, CAST(count(DISTINCT url) AS INTEGER) AS n_urls,
       list_sort(list_distinct(list(url))) AS urls
FROM work WHERE reason IS NULL
GROUP BY date, {SUBJECT}, relation, {OBJECT}
"""

# Needs the view failing_quads(quad_id, date, subject, relation, object, num_daily_mentions);
# {rule} is filled in with the validated comparison and threshold, e.g. ">= 50".
BELOW_THRESHOLD: Final = f"""
UPDATE work SET reason = 'below_mention_threshold',
  detail = 'quad (' || strftime(q.date, '%Y-%m-%d') || ', ' || coalesce(q.subject, '') || ', '
           || q.relation || ', ' || coalesce(q.object, '') || ') has '
           || CAST(q.num_daily_mentions AS VARCHAR) || ' daily mentions; kept only if {{rule}}',
  related_id = q.quad_id
FROM failing_quads q
WHERE work.reason IS NULL AND work.date = q.date AND work.relation = q.relation
  AND {SUBJECT} IS NOT DISTINCT FROM q.subject AND {OBJECT} IS NOT DISTINCT FROM q.object
"""

KEPT_EVENTS: Final = f"""
SELECT global_event_id, date, date_added, {SUBJECT} AS subject, {OBJECT} AS object,
       subject_cameo, object_cameo, event_code, relation, relation_root, quad_class,
       num_mentions, num_sources, num_articles, goldstein, avg_tone, source_url, url
FROM work WHERE reason IS NULL
ORDER BY global_event_id, date_added, source
"""

REJECTED: Final = """
SELECT CAST(global_event_id AS VARCHAR) AS id, '{stage}' AS stage, reason, detail, source, related_id
FROM work WHERE reason IS NOT NULL
"""

REASON_COUNTS: Final = "SELECT reason, count(*) FROM work GROUP BY reason"
