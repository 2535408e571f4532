"""Published data series (FRED/ALFRED, DBnomics, CSV exports, OHLC price tables) as one dated table.

Every value is dated by when it became known, not by the period it describes: a March CPI value first
published on April 10 is known on April 10, and a revision published in June is another row known in
June. The series style (issue 29) asks only with values known on its forecast date.
"""
