"""Run run_requests in a separate process, so a test can kill -9 it mid-run (see test_resume.py)."""

from __future__ import annotations

import sys

from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from tests.llm.conftest import requests_for
from tests.support.llm_server import LLMTestServer


class _Endpoint(LLMTestServer):
    """Only the URL is needed; the server itself runs in the test process."""

    def __init__(self, url: str) -> None:  # noqa: D107 - no server is started here
        self._url = url

    @property
    def url(self) -> str:
        return self._url


def main() -> None:
    from tests.llm.conftest import remote_role

    url, cache_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with LLMCache(cache_path) as cache:
        results = run_requests(remote_role(_Endpoint(url)), requests_for("resume", count), cache)
    print(sum(r.ok for r in results), flush=True)


if __name__ == "__main__":
    main()
