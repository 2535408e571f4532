"""Run run_requests in a separate process, so a test can kill -9 it mid-run (see test_resume.py)."""

from __future__ import annotations

import sys

from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from tests.llm.conftest import remote_role, requests_for


def main() -> None:
    url, cache_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with LLMCache(cache_path) as cache:
        results = run_requests(remote_role(url), requests_for("resume", count), cache)
    print(sum(result.ok for result in results), flush=True)


if __name__ == "__main__":
    main()
