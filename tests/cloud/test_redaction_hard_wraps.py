"""One-line renderings hard-wrapped at a fixed column, through the public `redact` and through a
task result read over HTTP: an `env K=V …` exec line after a log stamp, a JSON debug line and a
config dump, cut at 40 to 80 columns, their continuation lines prefixed by nothing, two or four
spaces, `> ` or `| ` (counted in the width, as a terminal does, or added after the cut, as a log
viewer does). Wherever the cut falls, every piece of the secret is redacted on its own line and
the lines, their prefixes and the text around the secret stay."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult
from autopatch_j.cloud.redaction import REDACTED, redact
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.world import World
from tests.support.linear_time import assert_linear
from tests.support.wrapped_pieces import pieces_of

# (name, one-line rendering, the secret in it, a phrase that must survive)
RENDERINGS = [
    (
        "exec line after a log stamp",
        "[2026-11-03T08:12:44.301Z] exec: env PAYOUTS_SIGNING_KEY=Nq7Rv2LxW9mKd4Tz8Hb3Yc6Pf1Js5Ga0UeQm4r"
        " REGION=eu-west-1 ./deploy.sh --dry-run",
        "Nq7Rv2LxW9mKd4Tz8Hb3Yc6Pf1Js5Ga0UeQm4r",
        "eu-west-1",
    ),
    (
        "JSON debug line",
        '{"level":"debug","msg":"client init","cfg":{"endpoint":"https://ledger.example.net",'
        '"client_secret":"Hx4Lp9Qz2Wv7Nr3Kt8Ym5Bc1Df6Gs0JeT2","timeout_ms":2500}}',
        "Hx4Lp9Qz2Wv7Nr3Kt8Ym5Bc1Df6Gs0JeT2",
        "client init",
    ),
    (
        "config dump",
        "effective config: db.host=pg-3.internal db.user=ledger db.password=Zr8Kq3Wm7Xv2Lp9Tn4Hb6Yd1"
        " cache.ttl=300 log.level=info",
        "Zr8Kq3Wm7Xv2Lp9Tn4Hb6Yd1",
        "cache.ttl",
    ),
]
PREFIXES = ["", "  ", "    ", "> ", "| "]
WIDTHS = [40, 47, 58, 64, 80]


def hard_wrap(line: str, width: int, prefix: str, *, counted: bool) -> str:
    """`line` cut every `width` columns, each continuation line starting with `prefix`; with
    `counted` the prefix takes columns of the width (a terminal), else it is added after the cut."""
    first, rest = line[:width], line[width:]
    step = width - len(prefix) if counted else width
    pieces = [first] + [prefix + rest[i : i + step] for i in range(0, len(rest), step)]
    return "\n".join(pieces)


CASES = [
    (
        f"{name}, {width} cols, prefix {prefix!r}, {('added', 'counted')[counted]}",
        line,
        secret,
        kept,
        width,
        prefix,
        counted,
    )
    for name, line, secret, kept in RENDERINGS
    for width in WIDTHS
    for prefix in PREFIXES
    for counted in (True, False)
]


@pytest.mark.parametrize(
    ("name", "line", "secret", "kept", "width", "prefix", "counted"), CASES, ids=[case[0] for case in CASES]
)
def test_every_piece_of_a_hard_wrapped_secret_is_redacted(
    name: str, line: str, secret: str, kept: str, width: int, prefix: str, counted: bool
) -> None:
    text = hard_wrap(line, width, prefix, counted=counted)
    out = redact(text)
    assert [piece for piece in pieces_of(secret, text) if piece in out] == [], out
    assert out.count("\n") == text.count("\n"), out
    assert all(row.startswith(prefix) for row in out.split("\n")[1:]), out
    assert kept.split("-")[0] in out.replace("\n", "").replace(prefix, "")
    assert redact(out) == out


def test_a_wrapped_value_read_whole_is_marked_on_each_line() -> None:
    text = hard_wrap(RENDERINGS[0][1], 64, "  ", counted=True)
    rows = redact(text).split("\n")
    assert rows[0].endswith("PAYOUTS_SIGNING_KEY=" + REDACTED)
    assert rows[1].startswith("  " + REDACTED + " REGION=eu-west-1")


class WrappingExecutor:
    """An agent whose output is a log with one hard-wrapped exec line."""

    name = "wrapping"

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        wrapped = hard_wrap(RENDERINGS[0][1], 44, "> ", counted=True)
        return ExecutionResult(ok=True, text=f"starting the deploy\n{wrapped}\ndone", cost_usd=0.01)


def test_a_task_result_read_over_http_holds_no_piece_of_a_wrapped_secret(world: World) -> None:
    alice = world.user("alice")
    with TestClient(make_app(world)) as client:
        api = Api(client, alice.token)
        project = api("POST", "/projects", {"name": "p"}).json()
        task = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "Deploy"}).json()
        Worker(engine=world.engine, executor=WrappingExecutor(), clock=world.clock).run_loop(once=True)
        shown = api("GET", f"/tasks/{task['id']}").json()
    result = str(shown)
    wrapped = hard_wrap(RENDERINGS[0][1], 44, "> ", counted=True)
    assert REDACTED in result
    assert [piece for piece in pieces_of(RENDERINGS[0][2], wrapped) if piece in result] == []


LOOK_ALIKES = [
    "[2026-02-11T10:04:12.551Z] exec: env LOG_LEVEL=debug REGION=eu-west-1 WORKERS=4 ./bin/deploy --dry-run"
    " --tag release-2026.02",
    '{"ts":"2026-02-11T10:04:12Z","level":"debug","event":"build.done","commit":"0845cd0829f4c2a84f95f811ce67469'
    '73887972e","run_id":"6f1c2b7e-93a4-4d5e-8b1f-2c3d4e5f6a7b"}',
    "loaded settings: api_token=<your-token-here> db.password=${DB_PASSWORD} http.port=8080 cache.ttl=300",
    "The deployment finished without errors after the migration completed; the rollout of version 4.12.0 to"
    " the canary pool is next on the list.",
]


@pytest.mark.parametrize("line", LOOK_ALIKES)
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("width", WIDTHS)
def test_hard_wrapped_look_alikes_come_back_unchanged(line: str, prefix: str, width: int) -> None:
    for counted in (True, False):
        text = hard_wrap(line, width, prefix, counted=counted)
        assert redact(text) == text


def test_a_folded_blob_after_its_key_is_redacted_on_every_line_in_linear_time() -> None:
    """A value folded at 64 columns under its key, each line indented: every line is redacted
    however long the blob, and doubling it does not much more than double the time."""
    alphabet = "Kq7Rv2LxW9mDd4Tz8Hb3Yc6Pf1Js5Ga0Ue+/"

    def folded(lines: int) -> str:
        blob = "".join(alphabet[(i * 7 + i // 5) % len(alphabet)] for i in range(64 * lines))
        return "SIGNING_BLOB=" + "\n  ".join(blob[i : i + 64] for i in range(0, len(blob), 64))

    out = redact(folded(40))
    assert all(REDACTED in row for row in out.split("\n")), out

    assert_linear(redact, folded, 500)
