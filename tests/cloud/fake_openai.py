"""One fixed chat-completion reply for the real SDK path: a front-end over the tests' one loopback
OpenAI-compatible server (`tests/support/openai_server.py`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.support.openai_server import FakeOpenAIServer, RecordedRequest, Reply, completion_body


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

    def answer(self, request: RecordedRequest) -> Reply:
        body = request.body if isinstance(request.body, dict) else {}
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        if self.status != 200:
            error = {"error": {"message": "boom", "type": "server_error"}}
            return Reply(status=self.status, body=json.dumps(error).encode())
        usage = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }
        payload = completion_body(self.reply, usage=usage, model=body.get("model", "fake"))
        return Reply(body=json.dumps(payload).encode())


@contextmanager
def serve_fake_openai(fake: FakeOpenAI) -> Iterator[FakeOpenAI]:
    with FakeOpenAIServer(fallback=fake.answer) as server:
        fake.base_url = server.base_url
        yield fake
