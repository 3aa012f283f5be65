"""A loopback HTTP server that speaks the OpenAI chat-completions JSON, for the real SDK path."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeOpenAI:
    """Answers every chat completion with `reply` and fixed usage; records the requests it saw."""

    reply: str = "fake answer"
    prompt_tokens: int = 1000
    completion_tokens: int = 500
    status: int = 200
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    base_url: str = ""


@contextmanager
def serve_fake_openai(fake: FakeOpenAI) -> Iterator[FakeOpenAI]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            fake.requests.append(body)
            fake.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, {"error": {"message": "no such route", "type": "invalid_request_error"}})
            elif fake.status != 200:
                self._send(fake.status, {"error": {"message": "boom", "type": "server_error"}})
            else:
                self._send(
                    200,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": fake.reply},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": fake.prompt_tokens,
                            "completion_tokens": fake.completion_tokens,
                            "total_tokens": fake.prompt_tokens + fake.completion_tokens,
                        },
                    },
                )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
