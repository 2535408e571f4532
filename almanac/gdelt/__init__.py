"""GDELT 2.0 event exports: download (masterfilelist + MD5), typed ingest, cleaning, article links.

The GDELT stages' paths (raw files, events, mentions, clean, articles) are in :mod:`almanac.core.layout`.
"""
