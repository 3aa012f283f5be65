"""Console sessions live in the database: they survive a restart, work across `serve` processes,
end everywhere on sign-out and when the user's token is rotated or revoked (CLI and admin API);
a session needs its binding secret as well as its id; `__Host-` cookies under HTTPS."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from tests.cloud.api_support import Api, make_app
from tests.cloud.console_support import post, sign_in
from tests.cloud.world import Actor, World


@pytest.fixture
def alice(world: World) -> Actor:
    return world.user("alice")


def signed_in(client: TestClient) -> bool:
    response = client.get("/console/memories")
    return response.status_code == 200 and "alice" in response.text


def carry_cookies(source: TestClient, target: TestClient) -> None:
    for cookie in source.cookies.jar:
        target.cookies.set(cookie.name, cookie.value or "", path=cookie.path)


def test_a_session_survives_a_restart_and_works_in_another_process(world: World, alice: Actor) -> None:
    with TestClient(make_app(world), follow_redirects=False) as first:
        sign_in(first, alice.token)
        assert signed_in(first)
    with TestClient(make_app(world), follow_redirects=False) as restarted:  # a new app: a new process
        carry_cookies(first, restarted)
        assert signed_in(restarted)


def test_sign_out_ends_the_session_in_every_process(world: World, alice: Actor) -> None:
    with (
        TestClient(make_app(world), follow_redirects=False) as one,
        TestClient(make_app(world), follow_redirects=False) as other,
    ):
        csrf = sign_in(one, alice.token)
        carry_cookies(one, other)
        assert signed_in(other)
        assert post(one, "/console/sign-out", csrf).status_code == 303
        assert other.get("/console/memories").status_code == 303


def test_a_session_id_without_its_binding_secret_is_refused(world: World, alice: Actor) -> None:
    """A cookie planted by a page on another port of the same host carries an id, not its binding."""
    with TestClient(make_app(world), follow_redirects=False) as victim, TestClient(make_app(world)) as planted:
        sign_in(victim, alice.token)
        session = victim.cookies.get("apj_console")
        assert session and victim.cookies.get("apj_console_bind")
        planted.cookies.set("apj_console", session, path="/console")
        assert planted.get("/console/memories", follow_redirects=False).status_code == 303


def test_two_session_cookies_in_one_request_are_refused(world: World, alice: Actor) -> None:
    with TestClient(make_app(world), follow_redirects=False) as client:
        sign_in(client, alice.token)
        cookie = "; ".join(f"{c.name}={c.value}" for c in client.cookies.jar)
        tossed = client.get("/console/memories", headers={"cookie": f"apj_console=planted; {cookie}"})
        assert tossed.status_code == 303


def test_rotating_a_token_through_the_admin_api_ends_its_sessions(world: World, alice: Actor) -> None:
    admin = world.user("root", admin=True)
    with TestClient(make_app(world), follow_redirects=False) as client:
        sign_in(client, alice.token)
        assert Api(client, alice.token)("POST", f"/users/{alice.user.id}/token/rotate").status_code == 403
        rotated = Api(client, admin.token)("POST", f"/users/{alice.user.id}/token/rotate")
        assert rotated.status_code == 200 and rotated.json()["id"] == alice.user.id
        new_token = rotated.json()["token"]
        assert client.get("/console/memories").status_code == 303
        assert Api(client, alice.token)("GET", "/users/me").status_code == 401
        assert Api(client, new_token)("GET", "/users/me").json()["name"] == "alice"
        revoked = Api(client, admin.token)("POST", f"/users/{alice.user.id}/token/revoke")
        assert revoked.status_code == 204
        assert Api(client, new_token)("GET", "/users/me").status_code == 401
        assert Api(client, admin.token)("POST", "/users/999999/token/rotate").status_code == 404


def test_the_cli_rotates_and_revokes_a_token(world: World, alice: Actor, db_url: str) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "autopatch_j", "cloud", "user", "token", *args, "--db", db_url]
        return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)

    with TestClient(make_app(world), follow_redirects=False) as client:
        sign_in(client, alice.token)
        rotated = cli("rotate", "alice", "--json")
        assert rotated.returncode == 0, rotated.stderr
        new_token = json.loads(rotated.stdout)["token"]
        assert client.get("/console/memories").status_code == 303
        assert Api(client, new_token)("GET", "/users/me").status_code == 200
        assert cli("revoke", "alice").returncode == 0
        assert Api(client, new_token)("GET", "/users/me").status_code == 401
        unknown = cli("revoke", "nobody")
        assert unknown.returncode == 1 and unknown.stderr.startswith("error: ") and "Traceback" not in unknown.stderr


def test_host_prefixed_cookies_under_https(world: World, alice: Actor) -> None:
    with TestClient(make_app(world), base_url="https://testserver", follow_redirects=False) as client:
        form = client.get("/console/sign-in")
        assert form.headers["set-cookie"].startswith("__Host-")
        sign_in(client, alice.token)
        names = {c.name for c in client.cookies.jar}
        assert {"__Host-apj_console", "__Host-apj_console_bind"} <= names
        assert all(c.path == "/" and c.secure for c in client.cookies.jar if c.name.startswith("__Host-"))
        assert signed_in(client)
