"""The role docs/llm-servers.md gives for llama.cpp, against a loopback server that answers as
llama-server does: its response fields (``timings``, ``system_fingerprint``), the model named by its
``--alias``, an API key, a fixed number of slots and its context-size refusal.

The server binds 127.0.0.1 on an ephemeral port and is stopped after each test.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from almanac.llm.config import RoleConfig, parse_llm_config
from almanac.llm.request import LLMRequest
from almanac.llm.transport import LLMFatalError

DOC = Path(__file__).resolve().parents[2] / "docs" / "llm-servers.md"
KEY = "test-key-0123456789abcdef"
ALIAS = "qwen2.5-7b-instruct"
N_CTX_CHARS = 400  # this fake slot's context, in characters of the prompt


class LlamaServer:
    """llama-server's /v1/chat/completions in miniature: ``slots`` requests at a time (more wait)."""

    def __init__(self, slots: int = 2, delay_s: float = 0.05) -> None:
        self.slots = threading.Semaphore(slots)
        self.delay_s = delay_s
        self.lock = threading.Lock()
        self.in_flight = self.max_in_flight = self.requests = 0
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        prompt = "\n".join(str(m["content"]) for m in body["messages"])
        if len(prompt) > N_CTX_CHARS:  # llama-server's refusal of a prompt larger than the slot's context
            error = {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                     "type": "exceed_context_size_error", "n_prompt_tokens": len(prompt) // 4, "n_ctx": 100}  # fmt: skip
            return 400, {"error": error}
        with self.slots:
            with self.lock:
                self.in_flight += 1
                self.requests += 1
                self.max_in_flight = max(self.max_in_flight, self.in_flight)
            time.sleep(self.delay_s)
            with self.lock:
                self.in_flight -= 1
        text = f"answer to: {body['messages'][-1]['content']}"
        timings = {"prompt_n": 12, "prompt_ms": 30.5, "prompt_per_token_ms": 2.5, "prompt_per_second": 393.4,
                   "predicted_n": 6, "predicted_ms": 120.0, "predicted_per_token_ms": 20.0,
                   "predicted_per_second": 50.0}  # fmt: skip
        return 200, {
            "choices": [
                {"finish_reason": "stop", "index": 0, "message": {"role": "assistant", "content": text}}
            ],
            "created": 1764201600,
            "model": ALIAS,  # llama-server names its --alias, whatever the request asked for
            "system_fingerprint": "b4200-1a2b3c4d",
            "object": "chat.completion",
            "usage": {"completion_tokens": 6, "prompt_tokens": 12, "total_tokens": 18},
            "id": "chatcmpl-Xq3bT9",
            "timings": timings,
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if self.headers.get("Authorization") != f"Bearer {KEY}":
                    status, reply = 401, {"error": {"code": 401, "message": "Invalid API Key",
                                                    "type": "authentication_error"}}  # fmt: skip
                elif self.path != "/v1/chat/completions":
                    status, reply = (
                        404,
                        {"error": {"code": 404, "message": "File Not Found", "type": "not_found_error"}},
                    )
                else:
                    status, reply = server.answer(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


@pytest.fixture
def llama() -> Iterator[LlamaServer]:
    server = LlamaServer()
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()
    server.thread.join(timeout=5)


def documented_role(base_url: str) -> RoleConfig:
    """The generator role of docs/llm-servers.md's YAML block, its port replaced by the test server's."""
    block = re.search(r"```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None, "docs/llm-servers.md has no yaml block"
    params = yaml.safe_load(block.group(1))
    params["llm"]["roles"]["generator"]["base_url"] = base_url
    return parse_llm_config(params).roles["generator"]


def requests(prefix: str, n: int, words: int = 3) -> list[LLMRequest]:
    return [
        LLMRequest(f"{prefix}-{i}", "echo", (("user", f"{prefix} {i} " + "word " * words),), "1", "h1")
        for i in range(n)
    ]


def test_the_documented_settings() -> None:
    text = DOC.read_text(encoding="utf-8")
    role = documented_role("http://127.0.0.1:8080/v1")
    assert role.base_url.startswith("http://127.0.0.1:") and role.model == ALIAS
    assert 1 <= role.max_concurrency <= 2 and role.timeout_s >= 300 and role.api_key_env == "LLAMA_API_KEY"
    # the servers are started on loopback with a key and a context of at least 8,192 tokens per slot
    assert "0.0.0.0" not in text.replace("(never 0.0.0.0)", "")
    assert "--host 127.0.0.1" in text and "--api-key" in text and "--api_key" in text
    assert "-c 16384 -np 2" in text and "--n_ctx 8192" in text


def test_the_documented_role_against_a_llama_cpp_server(
    llama: LlamaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLAMA_API_KEY", KEY)
    role = documented_role(llama.base_url)
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        results = run_requests(role, requests("ask", 6), cache)
        assert all(result.ok for result in results)
        assert results[0].text == "answer to: ask 0 word word word "
        assert (results[0].prompt_tokens, results[0].completion_tokens) == (12, 6)  # llama.cpp's usage
        assert results[0].model == ALIAS
        # two slots, max_concurrency 2: never more than two at the server, all six answered
        assert llama.requests == 6 and llama.max_in_flight <= 2
        again = run_requests(role, requests("ask", 6), cache)  # a rerun asks nothing
        assert all(result.cached for result in again) and llama.requests == 6


def test_a_context_too_small_stops_the_run_in_one_line_naming_the_servers_reason(
    llama: LlamaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LLAMA_API_KEY", KEY)
    role = documented_role(llama.base_url)
    with LLMCache(tmp_path / "llm.sqlite") as cache, pytest.raises(LLMFatalError) as caught:
        run_requests(role, requests("long", 2, words=200), cache)
    # The same refusal for two different prompts is the server's setting, not the prompts': the stage
    # stops in one line with llama.cpp's reason, and nothing is cached (the next run asks again).
    message = str(caught.value)
    assert "\n" not in message and "2 of 2 calls failed: the same HTTP 400" in message
    assert "exceeds the available context size" in message and llama.base_url in message
    assert KEY not in message
    with LLMCache(tmp_path / "llm.sqlite") as cache:
        assert len(cache) == 0
    assert llama.requests == 0  # refused before any slot worked on it
