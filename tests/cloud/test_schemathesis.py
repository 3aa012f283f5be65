"""Property-based API fuzzing with schemathesis over the ASGI app: zero server errors.

Bounded: at most 20 examples per operation, derandomized (fixed seed), on both backends. The
operations are driven directly through Hypothesis so each backend's app is fuzzed in one test.
"""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from tests.cloud.api_support import make_app
from tests.cloud.world import World

EXAMPLES_PER_OPERATION = 20


def test_api_never_answers_with_a_server_error(world: World) -> None:
    admin = world.user("root", admin=True)
    project = world.project(admin)
    parent = world.complete(world.task(project, admin, "first"))
    world.task(project, admin, "second", parent=parent.id)
    world.enable(admin)
    schema = schemathesis.openapi.from_asgi("/openapi.json", make_app(world))
    headers = {"Authorization": f"Bearer {admin.token}"}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 24  # 22 + the two conversation-memory routes (C-43, issue 14)
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
            case.call_and_validate(headers=headers, checks=[not_a_server_error])

        try:
            fuzz()
        except Exception as exc:  # collect every operation's failure, then report them together
            failures.append(f"{operation.label}: {str(exc)[:800]}")
    assert failures == []
