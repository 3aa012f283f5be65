"""Property-based API fuzzing with schemathesis against the live app: zero failures of any check.

Every built-in check runs (server errors, status codes, content types, headers and bodies against the
declared schema, negative data rejected, positive data accepted, missing headers, unsupported
methods, auth ignored, use after free, …). The app is served by a real uvicorn server on a free
loopback port in a background thread. Bounded: at most 20 examples per operation, derandomized
(fixed seed), on both backends. The operations are driven directly through Hypothesis so each
backend's server is fuzzed in one test.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import schemathesis
import uvicorn
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import CHECKS, load_all_checks

from tests.cloud.api_support import make_app
from tests.cloud.world import World

EXAMPLES_PER_OPERATION = 20


@contextmanager
def live_server(world: World) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(make_app(world), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield base
    finally:
        server.should_exit = True
        thread.join(30)


def test_api_passes_every_schemathesis_check(world: World) -> None:
    load_all_checks()
    checks = CHECKS.get_all()
    assert len(checks) >= 14
    admin = world.user("root", admin=True)
    project = world.project(admin)
    parent = world.complete(world.task(project, admin, "first"))
    world.task(project, admin, "second", parent=parent.id)
    world.enable(admin)
    headers = {"Authorization": f"Bearer {admin.token}"}
    with live_server(world) as base:
        assert httpx.get(f"{base}/health").status_code == 200
        schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
        operations = [result.ok() for result in schema.get_all_operations()]
        assert len(operations) == 28  # + conversation memory (C-43) and token rotate/revoke
        failures: list[str] = []
        for operation in operations:

            @given(case=operation.as_strategy())
            @settings(
                max_examples=EXAMPLES_PER_OPERATION,
                deadline=None,
                derandomize=True,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            def fuzz(case: Any) -> None:
                case.call_and_validate(base_url=base, headers=headers, checks=checks)

            try:
                fuzz()
            except (Exception, BaseExceptionGroup) as exc:  # collect every operation's failure, then report
                failures.append(f"{operation.label}: {str(exc)[:800]}")
    assert failures == []


def test_every_route_documents_its_error_answers(world: World) -> None:
    """401/403/404/409/413/422 per route, each with the one-sentence error body the app really sends."""
    spec = make_app(world).openapi()
    for path, methods in spec["paths"].items():
        for method, op in methods.items():
            codes = set(op["responses"])
            assert "413" in codes and "503" in codes, (method, path)
            if path != "/health":
                assert {"401", "422"} <= codes, (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
            for code in codes - {"200", "201", "204"}:
                ref = op["responses"][code]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/ErrorOut"), (method, path, code)
    assert "HTTPValidationError" not in spec["components"]["schemas"]
