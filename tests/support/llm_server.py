"""A loopback OpenAI-compatible server for tests and benchmarks (127.0.0.1, ephemeral port).

Serves ``/v1/chat/completions`` plus the Batch API pieces (``/v1/files``, ``/v1/batches``,
``/v1/files/{id}/content``) and ``/v1/embeddings`` (a hashed bag of words: texts sharing words are close). What it answers is scripted per test: a function gets the request body
and how many times this same request (by its last user message) has been seen, and returns a
:class:`Reply` — text, an HTTP error with headers (429 + Retry-After, 500), a delay (latency, or a
sleep past the client's timeout), a dropped connection, or a raw malformed body. It counts
everything it is asked so tests can assert on requests made, concurrency and headers received.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = "ok"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop: bool = False  # close the connection without answering
    raw_body: bytes | None = None  # send these bytes instead of a well-formed completion
    error_message: str = "scripted failure"
    prompt_tokens: int = 11
    completion_tokens: int = 7
    drip_s: float = 0.0  # send the body one byte every drip_s seconds (a server that never quite ends)
    model: str | None = None  # the model the reply names (default: the one asked)
    finish_reason: str = "stop"
    reasoning: str | None = None  # reasoning_content beside the content, as vLLM and DeepSeek send it


Script = Callable[[dict[str, Any], int], Reply]


EMBEDDING_DIM = 64


def bag_of_words(text: str) -> list[float]:
    """A deterministic stand-in for an embedding model: word counts hashed into EMBEDDING_DIM buckets."""
    vector = [0.0] * EMBEDDING_DIM
    for word in str(text).lower().split():
        vector[zlib.crc32(word.strip(".,;:!?").encode()) % EMBEDDING_DIM] += 1.0
    return vector if any(vector) else [1.0] + [0.0] * (EMBEDDING_DIM - 1)


def last_user_message(body: dict[str, Any]) -> str:
    users = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[-1]) if users else ""


class LLMTestServer:
    def __init__(self, script: Script | None = None, latency_s: float = 0.0) -> None:
        self.script: Script = script or (lambda body, seen: Reply())
        self.latency_s = latency_s
        self.lock = threading.Lock()
        self.chat_bodies: list[dict[str, Any]] = []
        self.seen: Counter[str] = Counter()  # last user message -> chat requests received
        self.completed: Counter[str] = Counter()  # last user message -> successful answers sent
        self.auth_headers: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_hold = False  # keep batches "in_progress" until a test releases them
        self.batch_creates = 0
        self.file_uploads = 0
        self.embedding_bodies: list[dict[str, Any]] = []
        self.embedding_failures: list[Reply] = []  # answered (first first) before any vector is sent
        self.stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def chat_requests(self) -> int:
        with self.lock:
            return len(self.chat_bodies)

    def count(self, needle: str) -> int:
        """Chat requests whose last user message contains ``needle``."""
        with self.lock:
            return sum(n for message, n in self.seen.items() if needle in message)

    def start(self) -> LLMTestServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()  # ends a dripping reply
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LLMTestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- request handling, called from server threads --------------------------------------------
    def chat(self, body: dict[str, Any], auth: str) -> tuple[Reply, int]:
        key = last_user_message(body)
        with self.lock:
            self.chat_bodies.append(body)
            self.auth_headers.append(auth)
            self.seen[key] += 1
            seen = self.seen[key]
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = self.script(body, seen)
            time.sleep(self.latency_s + reply.delay_s)
        finally:
            with self.lock:
                self.in_flight -= 1
        return reply, seen

    def completion(self, body: dict[str, Any], reply: Reply) -> dict[str, Any]:
        return {
            "id": f"chatcmpl-{len(self.chat_bodies)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": reply.model if reply.model is not None else body.get("model", "test"),
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": reply.text,
                        **({"reasoning_content": reply.reasoning} if reply.reasoning is not None else {}),
                    },
                    "finish_reason": reply.finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }

    def embeddings(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self.lock:
            self.embedding_bodies.append(body)
            failure = self.embedding_failures.pop(0) if self.embedding_failures else None
        if failure is not None:
            return failure.status, {"error": {"message": failure.error_message, "type": "server_error"}}
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        data = [
            {"object": "embedding", "index": i, "embedding": bag_of_words(t)} for i, t in enumerate(texts)
        ]
        tokens = sum(len(str(text).split()) for text in texts)
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return 200, {"object": "list", "data": data, "model": body.get("model", "test"), "usage": usage}

    def add_file(self, content: bytes, filename: str, purpose: str) -> dict[str, Any]:
        with self.lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }

    def create_batch(self, request: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            self.batch_creates += 1
            batch_id = f"batch_{len(self.batches) + 1}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": request["endpoint"],
                "input_file_id": request["input_file_id"],
                "completion_window": request["completion_window"],
                "status": "in_progress",
                "created_at": int(time.time()),
                "output_file_id": None,
                "error_file_id": None,
                "metadata": request.get("metadata"),
            }
            return dict(self.batches[batch_id])

    def poll_batch(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        if batch["status"] == "in_progress" and not self.batch_hold:
            self._finish_batch(batch)
        return dict(batch)

    def _finish_batch(self, batch: dict[str, Any]) -> None:
        outputs: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for line in self.files[batch["input_file_id"]].decode().splitlines():
            item = json.loads(line)
            body = item["body"]
            key = last_user_message(body)
            with self.lock:
                self.seen[key] += 1
                seen = self.seen[key]
            reply = self.script(body, seen)
            record: dict[str, Any] = {
                "id": f"req-{len(outputs) + len(errors)}",
                "custom_id": item["custom_id"],
            }
            if reply.status == 200:
                record |= {
                    "response": {"status_code": 200, "body": self.completion(body, reply)},
                    "error": None,
                }
                outputs.append(record)
            else:
                error = {"message": reply.error_message, "type": "server_error"}
                record |= {"response": {"status_code": reply.status, "body": {"error": error}}, "error": None}
                errors.append(record)
        for name, records in (("output_file_id", outputs), ("error_file_id", errors)):
            if records:
                content = "".join(json.dumps(r) + "\n" for r in records).encode()
                batch[name] = self.add_file(content, f"{batch['id']}_{name}.jsonl", "batch_output")["id"]
        batch["status"] = "completed"


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog of 5 resets connections when 32 clients connect at once
    daemon_threads = True


def _handler(server: LLMTestServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # otherwise delayed ACKs add ~40 ms to every small answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(
            self, status: int, payload: Any, headers: dict[str, str] | None = None, drip_s: float = 0.0
        ) -> None:
            body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            with contextlib.suppress(OSError):  # the client may have given up (timeout test)
                if not drip_s:
                    self.wfile.write(body)
                    return
                for byte in body:  # the headers at once, then the body a byte at a time
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    if server.stopping.wait(drip_s):
                        return

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length", "0")))

        def do_POST(self) -> None:
            raw = self._body()
            if self.path.endswith("/chat/completions"):
                body = json.loads(raw)
                reply, _ = server.chat(body, self.headers.get("Authorization", ""))
                if reply.drop:
                    self.close_connection = True
                    return
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body, reply.headers)
                elif reply.status != 200:
                    auth = self.headers.get("Authorization", "")
                    # Echo the credential like careless real servers do: the client must scrub it.
                    error = {"message": f"{reply.error_message} (auth: {auth})", "type": "server_error"}
                    self._send(reply.status, {"error": error}, reply.headers)
                else:
                    with server.lock:
                        server.completed[last_user_message(body)] += 1
                    self._send(200, server.completion(body, reply), reply.headers, reply.drip_s)
            elif self.path.endswith("/embeddings"):
                self._send(*server.embeddings(json.loads(raw)))
            elif self.path.endswith("/files"):
                server.file_uploads += 1
                filename, purpose, content = _multipart(self.headers.get("Content-Type", ""), raw)
                self._send(200, server.add_file(content, filename, purpose))
            elif self.path.endswith("/batches"):
                self._send(200, server.create_batch(json.loads(raw)))
            else:
                self._send(404, {"error": {"message": "no such route"}})

        def do_GET(self) -> None:
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) == 3 and parts[1] == "batches" and parts[2] in server.batches:
                self._send(200, server.poll_batch(parts[2]))
            elif (
                len(parts) == 4 and parts[1] == "files" and parts[3] == "content" and parts[2] in server.files
            ):
                self._send(200, server.files[parts[2]])
            else:
                self._send(404, {"error": {"message": "no such route"}})

    return Handler


def _multipart(content_type: str, raw: bytes) -> tuple[str, str, bytes]:
    boundary = content_type.split("boundary=")[-1].strip('"').encode()
    filename, purpose, content = "upload.jsonl", "", b""
    for part in raw.split(b"--" + boundary):
        head, _, data = part.partition(b"\r\n\r\n")
        data = data.removesuffix(b"\r\n")
        if b'name="purpose"' in head:
            purpose = data.decode()
        elif b'name="file"' in head:
            content = data
            if b'filename="' in head:
                filename = head.split(b'filename="')[1].split(b'"')[0].decode()
    return filename, purpose, content


def main() -> None:
    """Serve in a process of its own (benchmarks: keeps the server off the client's GIL)."""
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    server = LLMTestServer(latency_s=args.latency)
    print(server.url, flush=True)  # the parent reads the URL (the port is chosen by the OS)
    server._httpd.serve_forever(poll_interval=0.05)


if __name__ == "__main__":
    main()
