"""Chat-completion answers a test scripts one by one (C-40): a front-end over the tests' one loopback
OpenAI-compatible server (`tests/support/openai_server.py`).

Each chat completion pops the next `Reply`: a content string with usage, an HTTP error status, or a
delay longer than the client's timeout (cut short when the server stops). The real `openai` SDK
talks to it through `OpenAIProvider`.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support import openai_server
from tests.support.openai_server import FakeOpenAIServer, RecordedRequest, completion_body


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

    def answer(self, request: RecordedRequest) -> openai_server.Reply:
        body = request.body if isinstance(request.body, dict) else {}
        self.requests.append(body)
        if self.replies:
            reply = self.replies.popleft()
        else:
            reply = self.responder(body) if self.responder else Reply(status=500)
        if reply.status != 200:
            error = {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}
            return openai_server.Reply(status=reply.status, body=json.dumps(error).encode(), delay_s=reply.delay_s)
        usage = {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens,
            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
        }
        payload = completion_body(reply.content, usage=usage, model=body.get("model", "scripted"))
        return openai_server.Reply(body=json.dumps(payload).encode(), delay_s=reply.delay_s)


@contextmanager
def serve_scripted_openai() -> Iterator[ScriptedOpenAI]:
    fake = ScriptedOpenAI()
    with FakeOpenAIServer(fallback=fake.answer) as server:
        fake.base_url = server.base_url
        yield fake
