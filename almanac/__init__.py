"""Almanac: contamination-free forecasting datasets from the news record."""

__version__ = "0.1.0"
