"""Seed secrets into task results, run the whole pipeline, dump every table: none of them is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.executors import ExecutionRequest, ExecutionResult
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import Api, make_app
from tests.cloud.test_redaction import TABLE
from tests.cloud.test_redaction_forms import FORMS
from tests.cloud.world import World

SECRETS = [secret for _family, _text, secret, _kept in TABLE]


class LeakyExecutor:
    """An agent that prints every secret family (or the given texts) in its output."""

    name = "leaky"

    def __init__(self, texts: list[str] | None = None) -> None:
        self.texts = texts if texts is not None else [text for _family, text, _secret, _kept in TABLE]

    def execute(self, request: ExecutionRequest) -> ExecutionResult:
        body = "\n\n".join(self.texts)
        return ExecutionResult(ok=True, text=f"{body}\n" + "padding " * 40, cost_usd=0.01)


def test_no_secret_in_any_form_reaches_any_table(world: World) -> None:
    """Form bodies, fixed-column wraps, argv lists, login calls and Chinese labels, as an agent
    prints them: the task result read over HTTP and every table hold none of their pieces."""
    alice = world.user("alice")
    with TestClient(make_app(world)) as client:
        api = Api(client, alice.token)
        project = api("POST", "/projects", {"name": "p"}).json()
        task = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "Print the config"}).json()
        executor = LeakyExecutor([text for _form, text, _pieces, _kept in FORMS])
        Worker(engine=world.engine, executor=executor, clock=world.clock).run_loop(once=True)
        shown = api("GET", f"/tasks/{task['id']}").json()
    assert shown["status"] == "completed" and "[REDACTED]" in shown["result_text"]
    pieces = [piece for _form, _text, form_pieces, _kept in FORMS for piece in form_pieces]
    dump = world.dump()
    assert [p for p in pieces if p in shown["result_text"]] == []
    assert [p for p in pieces if p in dump] == []


def test_no_seeded_secret_reaches_any_table(world: World) -> None:
    alice = world.user("alice")
    with TestClient(make_app(world)) as client:
        api = Api(client, alice.token)
        assert (
            api("PUT", "/users/me/auto-memory-settings", {"generate_memories": 1, "use_memories": 1}).status_code == 200
        )
        project = api("POST", "/projects", {"name": "p"}).json()
        first = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "Leak everything"}).json()
        worker = Worker(engine=world.engine, executor=LeakyExecutor(), clock=world.clock)
        worker.run_loop(once=True)
        report = api("POST", "/users/me/auto-memory/run", {"force": True}).json()
        assert report["extracted"] == [first["id"]]
        second = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "Next task"}).json()
        worker.run_loop(once=True)
        assert api("GET", f"/tasks/{second['id']}").json()["status"] == "completed"
        memories = api("GET", f"/projects/{project['id']}/memories").json()
        assert memories and "[REDACTED]" in memories[0]["content"]
    dump = world.dump()
    assert "worker_memory_injected" in dump and "auto_memory_extracted" in dump
    leaked = [secret for secret in SECRETS if secret in dump]
    assert leaked == []


# secrets without a prefix of their own, which the judge reads by shape and context (invented fakes)
JUDGED = [
    (
        "a .pgpass line",
        "pasted from ~/.pgpass: db-7.internal.example:5432:billing:svc_app:Qm7-vT2xLp9wRk4",
        "Qm7-vT2xLp9wRk4",
    ),
    ("docker login -p", "$ docker login -u ci-bot -p Zt8qLw2Vn5xKr3 registry.example.test", "Zt8qLw2Vn5xKr3"),
    (
        "an all-lowercase token after its variable",
        "export AZURE_DEVOPS_EXT_PAT=k4m2q7z9x3w8v5t1n6b0c4d8f2g7h3j9p5r1s6u0y2a8e4i7o3l5",
        "k4m2q7z9x3w8v5t1n6b0c4d8f2g7h3j9p5r1s6u0y2a8e4i7o3l5",
    ),
    (
        "a session cookie",
        'curl -b "PHPSESSID=3n7fq2k9r8v1m4c6x0z5b2" https://app.example.test/',
        "3n7fq2k9r8v1m4c6x0z5b2",
    ),
    (
        "值是 after a label",
        "刚才日志里打印了短信服务的凭据，值是 Lp4Wq9ZxT2mN7vB3kR8s，已经处理。",
        "Lp4Wq9ZxT2mN7vB3kR8s",
    ),
]
KEPT = [
    'File "/app/session.py", line 12, in load_session_token\n    raise SessionTokenMissing("no token")',
    "build 4f2a9c1 finished in 12.3s: 118 passed, 0 failed",
]


def test_secrets_without_a_prefix_never_reach_the_result_or_a_table(world: World) -> None:
    """A `.pgpass` field, a `docker login -p` argument, a token of no known prefix, a session cookie
    and a value after a Chinese label, printed by an agent: the result read over HTTP holds none of
    them, text around them and plain log lines stay as printed."""
    alice = world.user("alice")
    with TestClient(make_app(world)) as client:
        api = Api(client, alice.token)
        project = api("POST", "/projects", {"name": "p"}).json()
        task = api("POST", f"/projects/{project['id']}/tasks", {"prompt": "Print the config"}).json()
        executor = LeakyExecutor([text for _name, text, _secret in JUDGED] + KEPT)
        Worker(engine=world.engine, executor=executor, clock=world.clock).run_loop(once=True)
        shown = api("GET", f"/tasks/{task['id']}").json()
    assert shown["status"] == "completed"
    assert [name for name, _text, secret in JUDGED if secret in shown["result_text"]] == []
    assert [secret for _name, _text, secret in JUDGED if secret in world.dump()] == []
    assert all(text in shown["result_text"] for text in KEPT)
    assert "db-7.internal.example:5432:billing:svc_app:" in shown["result_text"]
    assert "registry.example.test" in shown["result_text"]


@pytest.mark.parametrize(
    ("case_file", "prompt"),
    [
        # a ticket, an app certificate, a master secret, a session ticket, an admin password in a JSON
        # tool result; look-alikes: a number before a YAML line, a file name before its digest,
        # identifiers after a Chinese label and a copula
        ("redaction_live_ops.json", "Print the build settings"),
        # a passphrase of letter groups after a label and as a here-string, a JSON Web Key's private
        # member; look-alikes: a key set's public members, a connection string whose password is
        # marked already, a password's digest labelled as a hash
        ("redaction_grid_ops.json", "Print the gateway's keys"),
        # a value after a command's one-letter option, a value on the line after a quoted reply's
        # line ending in a Chinese copula; look-alikes: a reference number after an authentication
        # word, command lines whose one-letter options take paths, ports and names
        ("redaction_meter_ops.json", "Publish the meter agent"),
        # values cut across lines by a fixed-width wrap: a table row whose key stands columns away,
        # a line with CJK cut at a count of characters under `↳ `, a comment pair with a `?` in the
        # value; look-alikes: the row layout with an identifier, a comment pair of words
        ("redaction_ramp_ops.json", "Print the ramp settings"),
        # an Oracle thin-driver login's password, a secret key holding slashes; look-alikes: a
        # thin-driver URL with no login, references that name a secret by its path
        ("redaction_campus_refs.json", "Print the accounting settings"),
        # a cloud secret key after its key id, a payment key secret beside its key id; look-alikes:
        # public halves of pairs alone (key ids, body signatures, a PSSH box, an OAuth client id)
        ("redaction_public_halves.json", "Print the payment settings"),
        # values shown under a label: a secret whose label's aside names a secret or negates the id;
        # look-alikes: ids after a label whose aside names an identifier (`（资源 ID）`, `(app id)`)
        ("redaction_ledger_labels.json", "Print the ledger notes"),
        # digits assigned to a password, a token beside its window; look-alikes: counts with their
        # unit, sizes and amounts under keys that name a token or a secret
        ("redaction_ledger_counts.json", "Print the ledger limits"),
        # secrets echoed on the last line of a JSON string printed over several lines; look-alikes:
        # a commit id and a version in the same place
        ("redaction_ledger_json.json", "Print the ledger tool results"),
        # a password in a URL's login, a key as its user, a random query value, values cut inside a
        # boxed table row under a hanging indent; look-alikes: URLs whose login holds no password
        # (a user name only, no login, a placeholder or a template in the password slot)
        ("redaction_course_links.json", "Print the tutoring settings"),
        # tool results as JSON objects: a value under its own label inside a member's whole text
        # (a log, an output); look-alikes: run ids inside a string whose envelope names a token
        # audit or a password rotation
        ("redaction_tool_envelopes.json", "Print the router tool results"),
        # credentials in a Markdown table's column of values, whole or cut inside the cell;
        # look-alikes: versions, batch ids, a serial, a UUID in the same column
        ("redaction_rotation_tables.json", "Print the greenhouse rotation sheets"),
        # a generated password alone on a compose log's record after a record announcing it;
        # look-alikes: a build id and a version announced the same way
        ("redaction_install_banners.json", "Print the greenhouse install logs"),
        # a secret after `-k=`, in a CDATA section, in a nested query, under an HMAC key named by its
        # digest, as a keyed header in a call's object, after a sentence naming a reset password;
        # look-alikes: a path, a note, plain fields, a digest, a request id, a date in those places
        ("redaction_dairy_ops.json", "Print the dairy ops notes"),
        # a password in a logon string, a login given to `-u` as `user,password`, an opaque refresh
        # token; look-alikes: a JDBC URL after `-u`, users after `-u`, a signature with its aside
        ("redaction_ferry_ops.json", "Print the ferry back office notes"),
        # a legacy DSN's secret, a token as a git remote's user; look-alikes: a DSN with only its
        # public key in three places, an image's bytes after a data URI
        ("redaction_courier_ops.json", "Print the courier app notes"),
        # key components beside check values of 8 and 10 hex digits, a literal under a key naming an
        # address; look-alikes: a digest beside a commit, an address and names under place keys
        ("redaction_vault_ops.json", "Print the key ceremony notes"),
        # a JWK's private member as a Python dict; look-alikes: its public members printed that way,
        # integrity digests cut by a wrap, references after `ref+` in a URL-encoded form
        ("redaction_clinic_refs.json", "Print the clinic client notes"),
        # keys of exactly a named cipher's size under any key; look-alikes: a path after `-field=…`,
        # a nonce of another size beside the cipher, a digest beside no cipher
        ("redaction_water_ops.json", "Print the water utility notes"),
    ],
)
def test_a_case_file_s_secrets_never_reach_the_result_and_its_look_alikes_stay(
    world: World, case_file: str, prompt: str
) -> None:
    """`data/<case_file>` printed by an agent: every secret is gone from the result read over HTTP and
    from every table, and every look-alike comes back as printed."""
    data = json.loads((Path(__file__).parent / "data" / case_file).read_text(encoding="utf-8"))
    alice = world.user("alice")
    with TestClient(make_app(world)) as client:
        api = Api(client, alice.token)
        project = api("POST", "/projects", {"name": "p"}).json()
        task = api("POST", f"/projects/{project['id']}/tasks", {"prompt": prompt}).json()
        texts = [case["text"] for case in data["secrets"]] + [case["text"] for case in data["lookalikes"]]
        Worker(engine=world.engine, executor=LeakyExecutor(texts), clock=world.clock).run_loop(once=True)
        shown = api("GET", f"/tasks/{task['id']}").json()
    assert shown["status"] == "completed"
    leaked = [case["name"] for case in data["secrets"] if any(p in shown["result_text"] for p in case["pieces"])]
    assert leaked == []
    dump = world.dump()
    assert [case["name"] for case in data["secrets"] if any(p in dump for p in case["pieces"])] == []
    assert [case["name"] for case in data["lookalikes"] if case["text"] not in shown["result_text"]] == []
