"""A loopback OpenAI-compatible server whose answers a test scripts one by one (issue 14, C-40).

Each chat completion pops the next `Reply`: a content string with usage, an HTTP error status, or a
delay longer than the client's timeout. The real `openai` SDK talks to it through `OpenAIProvider`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    prompt_tokens: int = 300
    completion_tokens: int = 100


@dataclass
class ScriptedOpenAI:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""
    responder: Callable[[dict[str, Any]], Reply] | None = None  # answers by request when the script is empty

    def script(self, *replies: Reply | str) -> None:
        self.replies.extend(r if isinstance(r, Reply) else Reply(content=r) for r in replies)

    def bodies(self) -> str:
        """Everything the service sent, as one text (for secret-leak checks)."""
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in self.requests)


@contextmanager
def serve_scripted_openai() -> Iterator[ScriptedOpenAI]:
    fake = ScriptedOpenAI()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            fake.requests.append(body)
            if fake.replies:
                reply = fake.replies.popleft()
            else:
                reply = fake.responder(body) if fake.responder else Reply(status=500)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            if reply.status != 200:
                self._send(reply.status, {"error": {"message": f"scripted {reply.status}", "type": "server_error"}})
                return
            self._send(
                200,
                {
                    "id": "chatcmpl-scripted",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "scripted"),
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply.content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {
                        "prompt_tokens": reply.prompt_tokens,
                        "completion_tokens": reply.completion_tokens,
                        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                    },
                },
            )

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    fake.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
