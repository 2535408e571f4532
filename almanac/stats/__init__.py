"""DuckDB statistics over stage outputs and rejects, rendered as JSON metrics and Markdown."""
