"""The web console over HTTP (C-42): sessions, CSRF, isolation, inert rendering of hostile text."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from autopatch_j.cloud.auto_memory import process_auto_memories
from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.memories import clean_content, create_project_memory, create_user_memory
from autopatch_j.cloud.records import Role
from tests.cloud.api_support import Api, make_app
from tests.cloud.console_support import csrf_of, post, sign_in
from tests.cloud.world import Actor, World

HOSTILE = ['<script>alert("x")</script>', '"><img src=x onerror=alert(1)>', "javascript:alert(document.cookie)"]


@pytest.fixture
def client(world: World) -> Iterator[TestClient]:
    with TestClient(make_app(world), follow_redirects=False) as c:
        yield c


@pytest.fixture
def alice(world: World) -> Actor:
    return world.user("alice")


def user_memory(world: World, who: Actor, content: str) -> int:
    with write_tx(world.engine) as conn:
        return create_user_memory(conn, user=who.user, content=clean_content(content), now=world.clock()).id


def project_memory(world: World, who: Actor, project_id: int, content: str) -> int:
    with write_tx(world.engine) as conn:
        return create_project_memory(
            conn, user=who.user, project_id=project_id, content=clean_content(content), now=world.clock()
        ).id


def set_cookie_headers(response: object) -> list[str]:
    return response.headers.get_list("set-cookie")  # type: ignore[attr-defined]


def test_sign_in_sets_a_strict_httponly_session_cookie(client: TestClient, alice: Actor) -> None:
    form = client.get("/console/sign-in")
    response = client.post("/console/sign-in", data={"csrf": csrf_of(form.text), "token": alice.token})
    assert response.status_code == 303 and response.headers["location"] == "/console/memories"
    session = next(h for h in set_cookie_headers(response) if h.startswith("apj_console="))
    flags = [part.strip().lower() for part in session.split(";")]
    assert "httponly" in flags and "samesite=strict" in flags and "path=/console" in flags
    assert "secure" not in flags  # plain HTTP here; see the HTTPS test below
    assert alice.token not in session
    assert "alice" in client.get("/console/memories").text


def test_cookies_are_secure_over_https(world: World, alice: Actor) -> None:
    with TestClient(make_app(world), base_url="https://testserver", follow_redirects=False) as c:
        form = c.get("/console/sign-in")
        assert "secure" in [p.strip().lower() for p in form.headers["set-cookie"].split(";")]
        response = c.post("/console/sign-in", data={"csrf": csrf_of(form.text), "token": alice.token})
        session = next(h for h in set_cookie_headers(response) if h.startswith("__Host-apj_console="))
        assert "secure" in [p.strip().lower() for p in session.split(";")]  # and `__Host-`: see test_console_sessions


def test_a_bad_token_is_refused_without_a_session(client: TestClient) -> None:
    form = client.get("/console/sign-in")
    response = client.post("/console/sign-in", data={"csrf": csrf_of(form.text), "token": "apj_wrong"})
    assert response.status_code == 401 and "That API token is not valid." in response.text
    assert not any(h.startswith("apj_console=") for h in set_cookie_headers(response))
    assert client.get("/console/memories").status_code == 303


def test_sign_in_form_needs_its_csrf_token(client: TestClient, alice: Actor) -> None:
    client.get("/console/sign-in")
    response = client.post("/console/sign-in", data={"csrf": "forged", "token": alice.token})
    assert response.status_code == 403


def test_pages_redirect_to_sign_in_without_a_session(client: TestClient) -> None:
    for path in ("/console/", "/console/memories", "/console/settings", "/console/log", "/console/projects"):
        response = client.get(path)
        assert response.status_code == 303 and response.headers["location"] == "/console/sign-in", path


def test_sign_out_ends_the_session_on_the_server(client: TestClient, alice: Actor) -> None:
    csrf = sign_in(client, alice.token)
    stolen, bound = client.cookies.get("apj_console"), client.cookies.get("apj_console_bind")
    response = post(client, "/console/sign-out", csrf)
    assert response.status_code == 303
    assert any(h.startswith("apj_console=") and "Max-Age=0" in h for h in set_cookie_headers(response))
    client.cookies.set("apj_console", stolen or "", path="/console")
    client.cookies.set("apj_console_bind", bound or "", path="/console")
    assert client.get("/console/memories").status_code == 303  # the old cookies no longer work


def test_settings_form_writes_through_the_api_function(client: TestClient, alice: Actor) -> None:
    csrf = sign_in(client, alice.token)
    fields = {
        "generate_memories": "1",
        "min_rate_limit_remaining_percent": "35.5",
        "idle_seconds": "60",
        "min_duration_seconds": "5",
        "min_result_chars": "10",
        "extract_model": "small-model",
        "consolidation_model": "",
    }
    assert post(client, "/console/settings", csrf, **fields).status_code == 303
    api = Api(client, alice.token)("GET", "/users/me/auto-memory-settings").json()
    assert api["generate_memories"] == 1 and api["use_memories"] == 0 and api["disable_on_external_context"] == 0
    assert api["min_rate_limit_remaining_percent"] == 35.5 and api["idle_seconds"] == 60
    assert api["extract_model"] == "small-model" and api["consolidation_model"] is None


def test_invalid_settings_show_the_api_message_inline_and_write_nothing(client: TestClient, alice: Actor) -> None:
    csrf = sign_in(client, alice.token)
    before = Api(client, alice.token)("GET", "/users/me/auto-memory-settings").json()
    response = post(client, "/console/settings", csrf, idle_seconds="-5", min_rate_limit_remaining_percent="abc")
    assert response.status_code == 422
    api_answer = Api(client, alice.token)("PUT", "/users/me/auto-memory-settings", {"idle_seconds": -5}).json()
    assert (
        "idle_seconds" in api_answer["detail"] and "Input should be greater than or equal to 0" in api_answer["detail"]
    )
    assert 'id="idle_seconds-error">Input should be greater than or equal to 0<' in response.text
    assert 'id="min_rate_limit_remaining_percent-error">' in response.text
    assert 'aria-invalid="true"' in response.text
    assert Api(client, alice.token)("GET", "/users/me/auto-memory-settings").json() == before


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_text_renders_inert(world: World, client: TestClient, alice: Actor, payload: str) -> None:
    project = world.project(alice, name=payload)
    task = world.complete(world.task(project, alice, prompt=payload, goal=payload), result=payload)
    user_memory(world, alice, payload)
    project_memory(world, alice, project.id, payload)
    sign_in(client, alice.token)
    pages = ["/console/memories", "/console/projects", f"/console/projects/{project.id}", f"/console/tasks/{task.id}"]
    for path in pages:
        html = client.get(path).text
        lowered = html.lower()
        assert "<script" not in lowered and "<img" not in lowered and 'href="javascript:' not in lowered, path
    memories_html = client.get("/console/memories").text
    escaped = payload.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
    assert escaped in memories_html


def test_responses_forbid_scripts_and_framing(client: TestClient, alice: Actor) -> None:
    response = client.get("/console/sign-in")
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src" not in policy
    assert response.headers["x-frame-options"] == "DENY"


def test_cross_site_posts_are_rejected(world: World, client: TestClient, alice: Actor) -> None:
    memory_id = user_memory(world, alice, "keep me")
    csrf = sign_in(client, alice.token)
    path = f"/console/memories/{memory_id}/delete"
    assert client.post(path, data={"x": "1"}).status_code == 403
    assert client.post(path, data={"csrf": "guess"}).status_code == 403
    assert client.post(path, data={"csrf": csrf}, headers={"Origin": "https://evil.example"}).status_code == 403
    assert client.post(path, data={"csrf": csrf}, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    assert client.post(path, json={"csrf": csrf}).status_code == 422  # only urlencoded forms are accepted
    assert "keep me" in client.get("/console/memories").text
    ok = client.post(
        path, data={"csrf": csrf}, headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}
    )
    assert ok.status_code == 303 and "keep me" not in client.get("/console/memories").text


def test_members_never_see_each_others_user_memories_or_foreign_projects(world: World, alice: Actor) -> None:
    bob, carol = world.user("bob"), world.user("carol")
    project = world.project(alice, name="shared-proj")
    other = world.project(carol, name="carols-secret-proj")
    world.member(project, alice, bob, Role.MEMBER)
    task = world.task(project, alice, prompt="alice task")
    carol_task = world.task(other, carol, prompt="carol task")
    alice_private = user_memory(world, alice, "alice private preference")
    project_memory(world, carol, other.id, "carol project fact")
    app = make_app(world)
    with TestClient(app, follow_redirects=False) as as_bob:
        csrf = sign_in(as_bob, bob.token)
        html = as_bob.get("/console/memories").text
        assert "alice private preference" not in html and "carol project fact" not in html
        assert "carols-secret-proj" not in as_bob.get("/console/projects").text
        assert as_bob.get(f"/console/projects/{other.id}").status_code == 404
        assert as_bob.get(f"/console/tasks/{carol_task.id}").status_code == 404
        assert as_bob.get("/console/tasks/999999").status_code == 404
        assert post(as_bob, f"/console/memories/{alice_private}/delete", csrf).status_code == 404
        assert post(as_bob, f"/console/tasks/{carol_task.id}/flags", csrf, use_memories="on").status_code == 404
        # bob may see alice's shared task, but not its effective prompt (it carries alice's user memories)
        task_html = as_bob.get(f"/console/tasks/{task.id}").text
        assert "alice task" in task_html and "Effective prompt" not in task_html
    with TestClient(app, follow_redirects=False) as as_alice:
        world.enable(alice)
        sign_in(as_alice, alice.token)
        task_html = as_alice.get(f"/console/tasks/{task.id}").text
        assert "Effective prompt" in task_html and "alice private preference" in task_html


def test_flags_form_sets_flags_and_viewers_are_refused(world: World, client: TestClient, alice: Actor) -> None:
    viewer = world.user("vic")
    project = world.project(alice)
    world.member(project, alice, viewer, Role.VIEWER)
    task = world.task(project, alice)
    csrf = sign_in(client, alice.token)
    assert (
        post(client, f"/console/tasks/{task.id}/flags", csrf, use_memories="off", generate_memories="on").status_code
        == 303
    )
    [row] = world.rows("task_auto_memory_flags")
    assert row["use_memories"] == 0 and row["generate_memories"] == 1
    assert post(client, f"/console/tasks/{task.id}/flags", csrf, use_memories="maybe").status_code == 422
    with TestClient(make_app(world), follow_redirects=False) as as_vic:
        vic_csrf = sign_in(as_vic, viewer.token)
        page = as_vic.get(f"/console/tasks/{task.id}").text
        assert "Save flags" not in page and "Only the task's owner" in page
        response = post(as_vic, f"/console/tasks/{task.id}/flags", vic_csrf, use_memories="on")
        assert (
            response.status_code == 403 and "only the task&#39;s owner may set its auto-memory flags." in response.text
        )


def test_redaction_is_shown_as_such(world: World, client: TestClient, alice: Actor) -> None:
    user_memory(world, alice, "deploy with api_key=sk-live1234567890abcdef please")
    sign_in(client, alice.token)
    html = client.get("/console/memories").text
    assert "sk-live1234567890" not in html
    assert '<mark class="redacted" title="A secret was removed here before storing">[REDACTED]</mark>' in html


def test_log_lists_reasons_and_filters(world: World, client: TestClient, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    extracted = world.complete(world.task(project, alice, prompt="long one"))
    short = world.complete(world.task(project, alice, prompt="short one"), result="tiny")
    process_auto_memories(world.engine, clock=world.clock, user_id=alice.user.id)
    sign_in(client, alice.token)
    html = client.get("/console/log").text
    assert f"#{extracted.id}" in html and f"#{short.id}" in html and "result_too_short" in html
    only_short = client.get("/console/log", params={"reason": "result_too_short"}).text
    assert f"#{short.id}<" in only_short and f"#{extracted.id}<" not in only_short
    by_task = client.get("/console/log", params={"task": str(extracted.id)}).text
    assert f"#{extracted.id}<" in by_task and f"#{short.id}<" not in by_task
    memories_html = client.get("/console/memories").text
    assert f'/console/tasks/{extracted.id}">task {extracted.id}</a>' in memories_html


def test_run_button_sweeps_like_the_api(world: World, client: TestClient, alice: Actor) -> None:
    project = world.project(alice)
    world.enable(alice)
    task = world.complete(world.task(project, alice))
    csrf = sign_in(client, alice.token)
    response = post(client, "/console/log/run", csrf)
    assert response.status_code == 303 and response.headers["location"] == "/console/log?scanned=1&extracted=1"
    assert Api(client, alice.token)("GET", "/users/me/auto-memory-log").json()[0]["task_id"] == task.id


def test_static_css_is_served_from_the_package(client: TestClient) -> None:
    response = client.get("/console/static/console.css")
    assert response.status_code == 200 and "mark.redacted" in response.text


def test_members_page_for_project_admins(world: World, client: TestClient, alice: Actor) -> None:
    bob, carol = world.user("bob"), world.user("carol")
    project = world.project(alice, name="team")
    csrf = sign_in(client, alice.token)
    path = f"/console/projects/{project.id}/members"
    assert post(client, path, csrf, user_id=str(bob.user.id), role="viewer").status_code == 303
    assert post(client, path, csrf, user_id=str(bob.user.id), role="member").status_code == 303
    api_roles = {p["id"]: p["role"] for p in Api(client, bob.token)("GET", "/projects").json()}
    assert api_roles == {project.id: "member"}
    stored = world.rows("project_members")
    missing = post(client, path, csrf, user_id="999999", role="member")  # same answer as the API: no probing
    assert missing.status_code == 303 and world.rows("project_members") == stored
    own = post(client, path, csrf, user_id=str(alice.user.id), role="viewer")
    assert own.status_code == 409 and 'id="member-error">an admin cannot lower their own role.<' in own.text
    bad = post(client, path, csrf, user_id="abc", role="owner")
    assert bad.status_code == 422 and "positive whole number" in bad.text
    html = client.get(path).text
    assert f"user {bob.user.id}" in html and 'value="member" selected' in html
    with TestClient(make_app(world), follow_redirects=False) as other:
        bob_csrf = sign_in(other, bob.token)
        assert other.get(path).status_code == 403
        assert post(other, path, bob_csrf, user_id=str(bob.user.id), role="admin").status_code == 403
        other.cookies.clear()
        sign_in(other, carol.token)
        assert other.get(path).status_code == 404


def test_an_admin_removes_a_member_through_the_api_function(world: World, client: TestClient, alice: Actor) -> None:
    bob, carol = world.user("bob"), world.user("carol")
    project = world.project(alice, name="team")
    world.member(project, alice, bob, Role.MEMBER)
    csrf = sign_in(client, alice.token)
    members = f"/console/projects/{project.id}/members"
    assert f'action="/console/projects/{project.id}/members/{bob.user.id}/remove"' in client.get(members).text
    response = post(client, f"{members}/{bob.user.id}/remove", csrf)
    assert response.status_code == 303 and response.headers["location"] == members
    assert Api(client, bob.token)("GET", "/projects").json() == []
    assert "bob" not in client.get(members).text
    assert post(client, f"{members}/{bob.user.id}/remove", csrf).status_code == 303  # idempotent, like the API
    with TestClient(make_app(world), follow_redirects=False) as other:
        world.member(project, alice, bob, Role.MEMBER)
        bob_csrf = sign_in(other, bob.token)  # a plain member is refused with the API's 403
        assert post(other, f"{members}/{alice.user.id}/remove", bob_csrf).status_code == 403
        other.cookies.clear()
        carol_csrf = sign_in(other, carol.token)  # an outsider gets the API's 404
        assert post(other, f"{members}/{bob.user.id}/remove", carol_csrf).status_code == 404
    assert {row["user_id"] for row in world.rows("project_members")} == {alice.user.id, bob.user.id}


def test_the_creator_cannot_be_removed_by_a_co_admin(world: World, client: TestClient, alice: Actor) -> None:
    bob = world.user("bob")
    project = world.project(alice, name="team")
    world.member(project, alice, bob, Role.ADMIN)
    members = f"/console/projects/{project.id}/members"
    before = world.rows("project_members")
    bob_csrf = sign_in(client, bob.token)
    refused = post(client, f"{members}/{alice.user.id}/remove", bob_csrf)
    assert refused.status_code == 403
    assert 'id="member-error">the project&#39;s creator cannot be removed by another admin.<' in refused.text
    assert "Members of team" in refused.text  # the members page again, with the message inline
    client.cookies.clear()
    alice_csrf = sign_in(client, alice.token)
    leaving = post(client, f"{members}/{alice.user.id}/remove", alice_csrf)
    assert leaving.status_code == 409 and "the project&#39;s creator cannot leave the project." in leaving.text
    assert world.rows("project_members") == before


def test_the_conversation_owner_sets_the_conversation_control(world: World, client: TestClient, alice: Actor) -> None:
    project = world.project(alice)
    first = world.task(project, alice, prompt="first")
    second = world.task(project, alice, prompt="second")
    world.followup(alice, first, second)
    world.enable(alice)  # the owner's setting: use and generate on
    csrf = sign_in(client, alice.token)
    page = client.get(f"/console/tasks/{second.id}").text
    assert "Save conversation control" in page and f"started by task #{first.id}" in page
    assert 'id="effective-use_memories">on<' in page
    path = f"/console/tasks/{second.id}/conversation-memory"
    assert post(client, path, csrf, use_memories="off", generate_memories="follow").status_code == 303
    api = Api(client, alice.token)("GET", f"/tasks/{first.id}/conversation-memory").json()
    assert api["root_task_id"] == first.id and api["use_memories"] is False and api["generate_memories"] is None
    assert api["effective_use_memories"] is False and api["effective_generate_memories"] is True
    page = client.get(f"/console/tasks/{second.id}").text
    assert 'id="effective-use_memories">off<' in page and 'id="effective-generate_memories">on<' in page
    assert '<option value="off" selected>Off for this conversation' in page
    assert post(client, path, csrf, use_memories="never").status_code == 422


def test_only_the_conversation_owner_may_change_it(world: World, client: TestClient, alice: Actor) -> None:
    bob = world.user("bob")
    project = world.project(alice)
    world.member(project, alice, bob, Role.ADMIN)
    task = world.task(project, alice)
    alice_csrf = sign_in(client, alice.token)
    assert (
        post(client, f"/console/tasks/{task.id}/conversation-memory", alice_csrf, generate_memories="off").status_code
        == 303
    )
    before = world.rows("conversation_memory_controls")
    with TestClient(make_app(world), follow_redirects=False) as as_bob:
        bob_csrf = sign_in(as_bob, bob.token)
        page = as_bob.get(f"/console/tasks/{task.id}").text
        assert "Save conversation control" not in page and "Only the conversation's owner can change this." in page
        assert "effective-generate_memories" not in page  # the API's rule: the owner's settings stay theirs
        response = post(as_bob, f"/console/tasks/{task.id}/conversation-memory", bob_csrf, generate_memories="on")
        assert response.status_code == 403 and "only the owner of the conversation" in response.text
    assert world.rows("conversation_memory_controls") == before


def test_the_new_forms_need_the_csrf_token_and_this_origin(world: World, client: TestClient, alice: Actor) -> None:
    bob = world.user("bob")
    project = world.project(alice)
    world.member(project, alice, bob, Role.MEMBER)
    task = world.task(project, alice)
    csrf = sign_in(client, alice.token)
    remove = f"/console/projects/{project.id}/members/{bob.user.id}/remove"
    control = f"/console/tasks/{task.id}/conversation-memory"
    members, controls = world.rows("project_members"), world.rows("conversation_memory_controls")
    for path, fields in ((remove, {"x": "1"}), (control, {"use_memories": "off"})):
        assert client.post(path, data=fields).status_code == 403
        assert client.post(path, data={"csrf": "guess", **fields}).status_code == 403
        cross = client.post(path, data={"csrf": csrf, **fields}, headers={"Origin": "https://evil.example"})
        assert cross.status_code == 403
        assert (
            client.post(path, data={"csrf": csrf, **fields}, headers={"Sec-Fetch-Site": "cross-site"}).status_code
            == 403
        )
    assert world.rows("project_members") == members and world.rows("conversation_memory_controls") == controls
    assert (
        post(client, remove, csrf).status_code == 303
        and post(client, control, csrf, use_memories="off").status_code == 303
    )
    assert world.rows("project_members") != members and world.rows("conversation_memory_controls") != controls


def test_the_creator_cannot_be_demoted_by_a_co_admin(world: World, client: TestClient, alice: Actor) -> None:
    bob = world.user("bob")
    project = world.project(alice, name="team")
    world.member(project, alice, bob, Role.ADMIN)
    before = world.rows("project_members")
    csrf = sign_in(client, bob.token)
    refused = post(client, f"/console/projects/{project.id}/members", csrf, user_id=str(alice.user.id), role="viewer")
    assert refused.status_code == 403
    assert 'id="member-error">the project&#39;s creator cannot be demoted by another admin.<' in refused.text
    assert world.rows("project_members") == before


def test_the_members_page_reveals_no_name_the_api_withholds(world: World, client: TestClient, alice: Actor) -> None:
    """Anyone can create a project and add ids to it; the API answers alike for real and unknown
    ids, so the members page shows ids and roles, and only the caller's own name."""
    bob = world.user("bob-the-secret-name")
    project = world.project(alice, name="probe")
    csrf = sign_in(client, alice.token)
    path = f"/console/projects/{project.id}/members"
    assert post(client, path, csrf, user_id=str(bob.user.id), role="viewer").status_code == 303
    html = client.get(path).text
    assert "bob-the-secret-name" not in html
    assert f"user {bob.user.id}" in html and "alice (you)" in html
