"""Fixtures shared with the LLM-layer tests: loopback servers (``serve``) and a fresh cache (``cache``)."""

from tests.llm.conftest import cache, serve

__all__ = ["cache", "serve"]
