"""The loopback OpenAI-compatible server behaves like the endpoint it stands in for."""

from __future__ import annotations

import http.client
import json
import time

import pytest

from tests.support.openai_server import FakeOpenAIServer, FakeToolCall, Reply


def _post(server: FakeOpenAIServer, body: object, path: str = "/v1/chat/completions", timeout: float = 5):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json", "X-Test": "1"})
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()


def _events(raw: bytes) -> list[str]:
    return [line[len("data: ") :] for line in raw.decode().split("\n\n") if line.startswith("data: ")]


def test_listens_on_loopback_with_a_free_port(openai_server):
    assert openai_server.base_url == f"http://127.0.0.1:{openai_server.port}/v1"
    assert openai_server.port > 0


def test_json_reply_and_request_recording(openai_server):
    openai_server.reply_json("hello", usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3})
    status, content_type, raw = _post(openai_server, {"model": "m", "messages": []})
    assert (status, content_type) == (200, "application/json")
    body = json.loads(raw)
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "hello"}
    assert body["usage"]["completion_tokens"] == 2
    request = openai_server.last_request()
    assert (request.method, request.path, request.body) == (
        "POST",
        "/v1/chat/completions",
        {"model": "m", "messages": []},
    )
    assert request.headers["x-test"] == "1"


def test_stream_reply_is_sse_ending_with_done(openai_server):
    openai_server.reply_stream(["a", "b"], tool_calls=[FakeToolCall("c", "f", '{"k": "long value"}')])
    status, content_type, raw = _post(openai_server, {"stream": True})
    assert (status, content_type) == (200, "text/event-stream")
    events = _events(raw)
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    args = "".join(
        tc["function"].get("arguments", "") for c in chunks for tc in c["choices"][0]["delta"].get("tool_calls", [])
    )
    assert text == "ab"
    assert args == '{"k": "long value"}'
    assert sum("tool_calls" in c["choices"][0]["delta"] for c in chunks) > 2  # arguments arrive in pieces
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_error_reply_with_body_and_headers(openai_server):
    openai_server.reply_error(429, {"error": {"message": "slow down"}}, headers={"Retry-After": "1"})
    status, _, raw = _post(openai_server, {})
    assert status == 429 and json.loads(raw) == {"error": {"message": "slow down"}}


def test_replies_are_served_in_order_then_500(openai_server):
    openai_server.reply_json("1").reply_json("2")
    assert json.loads(_post(openai_server, {})[2])["choices"][0]["message"]["content"] == "1"
    assert json.loads(_post(openai_server, {})[2])["choices"][0]["message"]["content"] == "2"
    status, _, raw = _post(openai_server, {})
    assert status == 500 and b"no scripted reply" in raw
    assert openai_server.pending() == 0 and len(openai_server.requests) == 3


def test_handler_sees_the_request(openai_server):
    openai_server.enqueue(lambda r: Reply(status=201, body=json.dumps(r.body).encode()))
    status, _, raw = _post(openai_server, {"echo": [1, 2]})
    assert status == 201 and json.loads(raw) == {"echo": [1, 2]}


def test_unknown_route_is_404(openai_server):
    openai_server.reply_json("unused")
    assert _post(openai_server, {}, path="/v1/embeddings")[0] == 404


def test_delay_holds_the_reply(openai_server):
    openai_server.reply_json("late", delay_s=0.3)
    start = time.monotonic()
    assert _post(openai_server, {})[0] == 200
    assert time.monotonic() - start >= 0.3


def test_stop_cuts_a_long_delay_short():
    server = FakeOpenAIServer().start()
    server.reply_json("never", delay_s=30)
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
    conn.request("POST", "/v1/chat/completions", "{}")
    deadline = time.monotonic() + 5
    while not server.requests and time.monotonic() < deadline:  # the reply is now being delayed
        time.sleep(0.005)
    assert server.requests
    start = time.monotonic()
    server.stop()
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        conn.getresponse()
    conn.close()
    assert time.monotonic() - start < 5


def _serves_chat_completions(source: str) -> bool:
    """A module that runs its own HTTP server and speaks the chat-completions API."""
    runs_a_server = "HTTPServer(" in source or "BaseHTTPRequestHandler" in source or "uvicorn" in source
    return runs_a_server and ("chat/completions" in source or '"chat.completion' in source)


def test_it_is_the_one_fake_openai_server_of_the_tests():
    """Other fakes (tests/cloud/fake_openai.py, scripted_openai.py) are front-ends over it, never servers."""
    from pathlib import Path

    tests = Path(__file__).resolve().parents[1]
    servers = sorted(
        path.relative_to(tests).as_posix()
        for path in tests.rglob("*.py")
        if path != Path(__file__).resolve() and _serves_chat_completions(path.read_text(encoding="utf-8"))
    )
    assert servers == ["support/openai_server.py"]
    assert _serves_chat_completions('ThreadingHTTPServer(("127.0.0.1", 0), H)  # POST /v1/chat/completions')
    assert not _serves_chat_completions('class Attacker(BaseHTTPRequestHandler): ...  # serves "/evil"')
