"""A loopback HTTP server for downloader tests: real sockets, byte ranges and scripted faults.

Serves the files under ``root`` on 127.0.0.1 (ephemeral port) over HTTP/1.1 keep-alive, with Content-Length
and single ``Range`` requests (206 + Content-Range; 416 past the end); unknown paths get 404. Every request
is recorded (method, path, headers, status). Faults are scripted per path; a request uses up the first
fault still queued for its path:

    with FixtureServer(tmp_path) as server:
        server.fail("/a.gz", status=503, times=2, retry_after="3")
        server.cut_after("/a.gz", 1000)       # send 1000 body bytes, then drop the connection
        server.ignore_range("/a.gz")          # answer a Range request with 200 and the whole file
        server.serve_body("/a.gz", b"...")    # serve these bytes instead of the file (a broken upload)
        server.stall("/a.gz", 1.0)            # send headers, then go silent (client read timeout)
        ...
        assert server.count("/a.gz") == 6
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

_SINGLE_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@dataclass
class _Fault:
    kind: str  # "status" | "cut" | "ignore_range" | "body" | "stall"
    remaining: int
    status: int = 0
    retry_after: str | None = None
    cut_after: int = 0
    body: bytes = b""
    delay_s: float = 0.0


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    status: int

    @property
    def range(self) -> str | None:
        return self.headers.get("range")


@dataclass
class _State:
    root: Path
    lock: threading.Lock = field(default_factory=threading.Lock)
    faults: dict[str, deque[_Fault]] = field(default_factory=dict)
    log: list[RecordedRequest] = field(default_factory=list)
    connections: set[socket.socket] = field(default_factory=set)


class FixtureServer:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)
        self._state = _State(self.root.resolve())
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> FixtureServer:
        self._httpd = httpd = _Server(("127.0.0.1", 0), _Handler)
        httpd.state = self._state
        # A short poll interval so that stop() (which waits for the serving loop to notice) is quick.
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fixture-http", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._httpd.shutdown()  # stop accepting
        with self._state.lock:
            open_connections = list(self._state.connections)
        for connection in open_connections:  # wake handler threads parked on idle keep-alive sockets
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._httpd.server_close()  # joins the handler threads
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> FixtureServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("FixtureServer is not running")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return self.base_url + _normalize(path)

    def fail(self, path: str, status: int = 503, times: int = 1, retry_after: str | None = None) -> None:
        """Answer the next ``times`` requests with ``status`` (and a Retry-After header if given)."""
        self._add(path, _Fault("status", times, status=status, retry_after=retry_after))

    def cut_after(self, path: str, nbytes: int, times: int = 1) -> None:
        """Announce the full Content-Length, send ``nbytes`` of the body, then close the connection."""
        self._add(path, _Fault("cut", times, cut_after=nbytes))

    def ignore_range(self, path: str, times: int = 1) -> None:
        """Answer with 200 and the whole file even when the request asks for a range."""
        self._add(path, _Fault("ignore_range", times))

    def serve_body(self, path: str, body: bytes, times: int = 1) -> None:
        """Serve ``body`` (with a consistent Content-Length) in place of the file, e.g. a truncated copy."""
        self._add(path, _Fault("body", times, body=body))

    def stall(self, path: str, seconds: float, times: int = 1) -> None:
        """Send the headers, then stay silent for ``seconds`` before the body."""
        self._add(path, _Fault("stall", times, delay_s=seconds))

    def requests(self, path: str | None = None, method: str | None = None) -> list[RecordedRequest]:
        with self._state.lock:
            log = list(self._state.log)
        wanted = None if path is None else _normalize(path)
        return [
            r for r in log if (wanted is None or r.path == wanted) and (method is None or r.method == method)
        ]

    def count(self, path: str, method: str = "GET") -> int:
        return len(self.requests(path, method))

    def clear_log(self) -> None:
        with self._state.lock:
            self._state.log.clear()

    def _add(self, path: str, fault: _Fault) -> None:
        if fault.remaining < 1:
            raise ValueError("a fault must apply to at least one request")
        with self._state.lock:
            self._state.faults.setdefault(_normalize(path), deque()).append(fault)


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close (stop() first shuts their sockets), so none outlives a test.
    daemon_threads = False
    block_on_close = True
    state: _State


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes; avoid 40 ms ACK stalls
    timeout = 30  # an idle keep-alive connection is dropped eventually even if stop() is never called
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.state.lock:
            self.server.state.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.state.lock:
            self.server.state.connections.discard(self.connection)
        with contextlib.suppress(OSError):
            super().finish()

    def do_GET(self) -> None:
        self._respond(send_body=True)

    def do_HEAD(self) -> None:
        self._respond(send_body=False)

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass

    def _respond(self, send_body: bool) -> None:
        path = _normalize(unquote(urlsplit(self.path).path))
        fault = self._take_fault(path)
        headers = {name.lower(): value for name, value in self.headers.items()}
        if fault is not None and fault.kind == "status":
            extra = {"Retry-After": fault.retry_after} if fault.retry_after is not None else {}
            self._send_simple(path, headers, fault.status, extra, send_body)
            return
        if fault is not None and fault.kind == "body":
            data: bytes | None = fault.body
        else:
            file = _resolve(self.server.state.root, path)
            data = file.read_bytes() if file is not None else None
        if data is None:
            self._send_simple(path, headers, 404, {}, send_body)
            return
        status, start, end = 200, 0, len(data)
        requested = headers.get("range")
        if requested and not (fault is not None and fault.kind == "ignore_range"):
            try:
                parsed = _parse_range(requested, len(data))
            except _Unsatisfiable:
                self._send_simple(path, headers, 416, {"Content-Range": f"bytes */{len(data)}"}, send_body)
                return
            if parsed is not None:
                status, (start, end) = 206, parsed
        self._record(path, headers, status)
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start))
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{len(data)}")
        self.end_headers()
        if not send_body:
            return
        body = data[start:end]
        try:
            if fault is not None and fault.kind == "stall":
                self.wfile.flush()
                time.sleep(fault.delay_s)
            if fault is not None and fault.kind == "cut":
                self.wfile.write(body[: fault.cut_after])
                self.wfile.flush()
                self.close_connection = True  # the client sees EOF before Content-Length bytes
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (e.g. its read timed out)
            self.close_connection = True

    def _send_simple(
        self, path: str, headers: dict[str, str], status: int, extra: dict[str, str], send_body: bool
    ) -> None:
        self._record(path, headers, status)
        body = f"{status}\n".encode()
        self.send_response(status)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if send_body:
            self.wfile.write(body)

    def _take_fault(self, path: str) -> _Fault | None:
        with self.server.state.lock:
            queue = self.server.state.faults.get(path)
            if not queue:
                return None
            fault = queue[0]
            fault.remaining -= 1
            if fault.remaining == 0:
                queue.popleft()
            return fault

    def _record(self, path: str, headers: dict[str, str], status: int) -> None:
        with self.server.state.lock:
            self.server.state.log.append(RecordedRequest(self.command, path, headers, status))


def _normalize(path: str) -> str:
    return "/" + path.lstrip("/")


def _resolve(root: Path, path: str) -> Path | None:
    """The file under ``root`` for a URL path; None if missing or outside ``root``."""
    candidate = (root / path.lstrip("/")).resolve()
    if not candidate.is_relative_to(root) or not candidate.is_file():
        return None
    return candidate


class _Unsatisfiable(Exception):
    pass


def _parse_range(header: str, size: int) -> tuple[int, int] | None:
    """(start, end exclusive), or None to ignore the header (multiple ranges, bad syntax)."""
    match = _SINGLE_RANGE.match(header.strip())
    if not match or match.groups() == ("", ""):
        return None
    first, last = match.groups()
    if first == "":  # suffix range: the last N bytes
        length = int(last)
        if length == 0 or size == 0:
            raise _Unsatisfiable
        return max(0, size - length), size
    start = int(first)
    if start >= size:
        raise _Unsatisfiable
    end = size if last == "" else min(size, int(last) + 1)
    return None if end <= start else (start, end)
