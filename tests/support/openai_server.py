"""A loopback OpenAI-compatible HTTP server for tests of the real `openai` client path.

A real `ThreadingHTTPServer` on 127.0.0.1 (free port) in a background thread, speaking
`POST /v1/chat/completions`: non-streamed JSON and streamed SSE (`data: …` chunks, then
`data: [DONE]`), tool calls in both. Every request is recorded (headers and parsed JSON body). Replies
are scripted per call, in order: `reply_json`, `reply_stream`, `reply_error`, or any `Reply` or
callable `RecordedRequest -> Reply` via `enqueue`. A reply may be delayed (`delay_s`, before the
headers; `chunk_delay_s`, between SSE chunks) for timeout tests; `stop()` cuts delays short.
With nothing queued, the `fallback` handler answers (when given), else a 500 with a body saying so.
It is the tests' one OpenAI-compatible server: `tests/cloud/fake_openai.py` (one fixed reply) and
`tests/cloud/scripted_openai.py` (a script of replies) are scripting front-ends over it.

    with FakeOpenAIServer() as server:
        server.reply_json('{"ok": true}')
        provider = OpenAIProvider(settings=server.settings())
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from autopatch_j.llm.config import LLMSettings

FAKE_MODEL = "fake-model"
FAKE_API_KEY = "sk-fake-test-key-0123456789"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: Mapping[str, str]  # lower-cased names
    raw: bytes
    body: Any  # the parsed JSON body, or None when it was not JSON


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # before the status line
    chunks: Sequence[bytes] | None = None  # SSE events, written one by one
    chunk_delay_s: float = 0.0


Handler = Callable[[RecordedRequest], Reply]


@dataclass(frozen=True)
class FakeToolCall:
    id: str
    name: str
    arguments: str


def completion_body(
    content: str | None,
    *,
    tool_calls: Sequence[FakeToolCall] = (),
    finish_reason: str = "stop",
    usage: Mapping[str, int] | None = None,
    model: str = FAKE_MODEL,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for c in tool_calls
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": dict(usage or {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}),
    }


def stream_chunks(
    pieces: Iterable[str],
    *,
    tool_calls: Sequence[FakeToolCall] = (),
    finish_reason: str = "stop",
    usage: Mapping[str, int] | None = None,
    model: str = FAKE_MODEL,
    argument_piece: int = 5,
) -> list[dict[str, Any]]:
    """Chunk objects: role, one per text piece, tool-call deltas (arguments split), finish, usage."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }

    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    for index, call in enumerate(tool_calls):
        head = {"index": index, "id": call.id, "type": "function", "function": {"name": call.name}}
        chunks.append(chunk({"tool_calls": [head]}))
        args = call.arguments
        for start in range(0, len(args), argument_piece):
            part = {"index": index, "function": {"arguments": args[start : start + argument_piece]}}
            chunks.append(chunk({"tool_calls": [part]}))
    chunks.append(chunk({}, finish_reason))
    if usage is not None:
        chunks.append({**chunk({}), "choices": [], "usage": dict(usage)})
    return chunks


def sse(events: Iterable[Mapping[str, Any]], *, done: bool = True) -> list[bytes]:
    lines = [f"data: {json.dumps(e, ensure_ascii=False)}\n\n".encode() for e in events]
    if done:
        lines.append(b"data: [DONE]\n\n")
    return lines


class FakeOpenAIServer:
    """The loopback server; use as a context manager or `start()`/`stop()`."""

    def __init__(self, *, host: str = "127.0.0.1", fallback: Handler | None = None) -> None:
        self._host = host
        self._fallback = fallback
        self._queue: deque[Handler] = deque()
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        server = self

        class _Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server._handle(self)

            def do_GET(self) -> None:
                server._handle(self)

            def log_message(self, format: str, *args: Any) -> None:  # silence stderr
                return None

        self._httpd = ThreadingHTTPServer((self._host, 0), _Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the fake server is not started"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{self._host}:{self.port}/v1"

    def settings(self, **overrides: Any) -> LLMSettings:
        """`LLMSettings` pointing at this server (fake key and model unless overridden)."""
        values: dict[str, Any] = {"api_key": FAKE_API_KEY, "base_url": self.base_url, "model": FAKE_MODEL}
        values.update(overrides)
        return LLMSettings(**values)

    # -- scripting ----------------------------------------------------------------------------------

    def enqueue(self, reply: Reply | Handler) -> FakeOpenAIServer:
        handler: Handler = _constant(reply) if isinstance(reply, Reply) else reply
        with self._lock:
            self._queue.append(handler)
        return self

    def reply_json(
        self,
        content: str | None = "",
        *,
        tool_calls: Sequence[FakeToolCall] = (),
        finish_reason: str = "stop",
        usage: Mapping[str, int] | None = None,
        delay_s: float = 0.0,
    ) -> FakeOpenAIServer:
        body = completion_body(content, tool_calls=tool_calls, finish_reason=finish_reason, usage=usage)
        return self.enqueue(Reply(body=json.dumps(body).encode(), delay_s=delay_s))

    def reply_stream(
        self,
        pieces: Iterable[str] = (),
        *,
        tool_calls: Sequence[FakeToolCall] = (),
        finish_reason: str = "stop",
        usage: Mapping[str, int] | None = None,
        delay_s: float = 0.0,
        chunk_delay_s: float = 0.0,
    ) -> FakeOpenAIServer:
        events = stream_chunks(pieces, tool_calls=tool_calls, finish_reason=finish_reason, usage=usage)
        return self.enqueue(
            Reply(
                content_type="text/event-stream",
                chunks=sse(events),
                delay_s=delay_s,
                chunk_delay_s=chunk_delay_s,
            )
        )

    def reply_error(
        self,
        status: int,
        body: Mapping[str, Any] | str,
        *,
        headers: Mapping[str, str] | None = None,
        delay_s: float = 0.0,
    ) -> FakeOpenAIServer:
        if isinstance(body, str):
            raw, content_type = body.encode(), "text/plain; charset=utf-8"
        else:
            raw, content_type = json.dumps(body, ensure_ascii=False).encode(), "application/json"
        return self.enqueue(
            Reply(status=status, body=raw, content_type=content_type, headers=headers or {}, delay_s=delay_s)
        )

    # -- inspection ---------------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def last_request(self) -> RecordedRequest:
        requests = self.requests
        assert requests, "the fake server has received no request"
        return requests[-1]

    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    # -- serving ------------------------------------------------------------------------------------

    def _handle(self, http: BaseHTTPRequestHandler) -> None:
        try:
            length = int(http.headers.get("Content-Length") or 0)
            raw = http.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else None
            except ValueError:
                body = None
            request = RecordedRequest(
                method=http.command,
                path=http.path,
                headers={k.lower(): v for k, v in http.headers.items()},
                raw=raw,
                body=body,
            )
            with self._lock:
                self._requests.append(request)
                handler = self._queue.popleft() if self._queue else self._fallback
            if http.command != "POST" or not http.path.rstrip("/").endswith("/chat/completions"):
                reply = _error_reply(404, f"fake server: no route {http.command} {http.path}")
            elif handler is None:
                reply = _error_reply(500, "fake server: no scripted reply queued")
            else:
                reply = handler(request)
            self._write(http, reply)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            return  # the client gave up (e.g. its timeout fired)

    def _write(self, http: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.delay_s and self._stopping.wait(reply.delay_s):
            return
        http.send_response(reply.status)
        http.send_header("Content-Type", reply.content_type)
        for name, value in reply.headers.items():
            http.send_header(name, value)
        if reply.chunks is None:
            http.send_header("Content-Length", str(len(reply.body)))
            http.end_headers()
            http.wfile.write(reply.body)
            return
        http.send_header("Cache-Control", "no-cache")
        http.end_headers()
        for event in reply.chunks:
            if reply.chunk_delay_s and self._stopping.wait(reply.chunk_delay_s):
                return
            http.wfile.write(event)
            http.wfile.flush()


def _constant(reply: Reply) -> Handler:
    def handler(_request: RecordedRequest) -> Reply:
        return reply

    return handler


def _error_reply(status: int, message: str) -> Reply:
    body = {"error": {"message": message, "type": "fake_server_error", "code": None}}
    return Reply(status=status, body=json.dumps(body).encode())
