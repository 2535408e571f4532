"""Peak memory of the WCEP fetcher, fetch_bytes and a GDELT page archive on bombs (issue 24).

Each case runs in a fresh subprocess that reports its own peak RSS (``ru_maxrss``). The HTTP cases are
served by a loopback server inside that subprocess (127.0.0.1, stopped at exit): a 1 GiB body streamed
1 MiB at a time, and a 1 GiB ``Content-Encoding: gzip`` bomb (about 1 MB on the wire). Default caps:
``wcep_news.max_bytes`` 5 MB, ``DownloadConfig.max_fetch_bytes`` 300 MB, the page archive's
:class:`almanac.ccnews.warc.WarcLimits`. Run: ``python -m bench.fetch_bombs`` (about a minute).
"""

from __future__ import annotations

import subprocess
import sys

CHILD = r"""
import json, resource, sys, threading, zlib, tempfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
GIB = 1 << 30
STEP = 1 << 20
compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
BOMB = b"".join(compressor.compress(bytes(STEP)) for _ in range(GIB // STEP)) + compressor.flush()

class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        if self.path == "/gzip":
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(BOMB)))
            self.end_headers()
            self.wfile.write(BOMB)
            return
        if self.path != "/nolength":  # without it, HTTP/1.0: the body ends when the connection closes
            self.send_header("Content-Length", str(GIB))
        self.end_headers()
        chunk = b"<p>" + b"a" * (STEP - 3)
        try:
            for _ in range(GIB // STEP):
                self.wfile.write(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
    def log_message(self, *args):
        pass

def serve():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"

case = sys.argv[1]
result = {}
if case in ("fetch_huge", "fetch_gzip"):
    from almanac.wcep.news import Fetcher, NewsConfig
    server, base = serve()
    with Fetcher(NewsConfig(fetch=True, respect_robots=False, retries=0)) as fetcher:
        outcome = fetcher.fetch(base + ("/gzip" if case == "fetch_gzip" else "/huge"))
    result = {"reason": outcome.reason, "detail": outcome.detail[:100]}
    server.shutdown()
elif case in ("fetch_bytes_huge", "fetch_bytes_nolength"):
    from almanac.core.download import DownloadConfig, DownloadError, fetch_bytes
    server, base = serve()
    try:
        path = "/huge" if case == "fetch_bytes_huge" else "/nolength"
        fetch_bytes(base + path, DownloadConfig(retries=0))
        result = {"reason": None}
    except DownloadError as error:
        result = {"reason": "DownloadError", "detail": str(error)[-90:]}
    server.shutdown()
else:
    sys.path.insert(0, ".")
    from almanac.gdelt.page_archive import ArchivedPage, PageArchive
    from tests.support.bombs import header_lines_member
    from tests.support.warc_factory import good_page, warc_bytes
    from tests.test_ccnews_hardening import bomb_member
    url, _ = good_page(1)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.warc.gz"
        if case == "archive_headers":
            path.write_bytes(header_lines_member("https://x.example/h", 100 << 20))
        else:
            http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
            path.write_bytes(bomb_member(url, http, 300 << 20) + warc_bytes([good_page(2)]))
        archive = PageArchive.open([Path(folder)], [url, good_page(2)[0]])
    found = {u[-12:]: archive.find(u) for u in (url, good_page(2)[0])}
    result = {"file_problems": archive.file_problems,
              "found": {u: getattr(f, "reason", type(f).__name__) for u, f in found.items()}}
result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(result))
"""

CASES = {
    "fetch_huge": "WCEP fetcher: 1 GiB HTML body",
    "fetch_gzip": "WCEP fetcher: Content-Encoding gzip bomb (1 GiB inflated)",
    "fetch_bytes_huge": "fetch_bytes (listings): 1 GiB body, Content-Length declared",
    "fetch_bytes_nolength": "fetch_bytes (listings): 1 GiB body, no Content-Length",
    "archive_headers": "page archive: WARC of 100 MiB of header lines",
    "archive_gzip": "page archive: 300 MiB gzip-bomb record, then a good one",
}


def main() -> int:
    wanted = sys.argv[1:] or list(CASES)
    for case, name in CASES.items():
        if case not in wanted:
            continue
        done = subprocess.run(
            [sys.executable, "-c", CHILD, case], capture_output=True, text=True, timeout=900, check=False
        )
        lines = done.stdout.strip().splitlines() or done.stderr.strip().splitlines()[-1:]
        print(f"{name}: {lines[-1] if lines else done.returncode}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
