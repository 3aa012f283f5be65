"""Membership (issue 10, item 13): removal, the creator's protection, no user-id existence leak."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.cloud.api_support import Api, make_app
from tests.cloud.world import World


def test_an_admin_removes_a_member_who_then_loses_access(world: World) -> None:
    owner, bob = world.user("owner"), world.user("bob")
    project = world.project(owner)
    with TestClient(make_app(world)) as client:
        as_owner, as_bob = Api(client, owner.token), Api(client, bob.token)
        added = as_owner("POST", f"/projects/{project.id}/members", {"user_id": bob.user.id, "role": "member"})
        assert added.is_success
        assert as_bob("GET", f"/projects/{project.id}/tasks").status_code == 200
        assert as_bob("DELETE", f"/projects/{project.id}/members/{owner.user.id}").status_code == 403
        removed = as_owner("DELETE", f"/projects/{project.id}/members/{bob.user.id}")
        assert removed.status_code == 204
        assert as_bob("GET", f"/projects/{project.id}/tasks").status_code == 404
        assert as_bob("DELETE", f"/projects/{project.id}/members/{owner.user.id}").status_code == 404
        assert as_owner("DELETE", f"/projects/{project.id}/members/{bob.user.id}").status_code == 204  # idempotent


def test_a_co_admin_cannot_demote_or_remove_the_creator(world: World) -> None:
    owner, co = world.user("owner"), world.user("co")
    project = world.project(owner)
    with TestClient(make_app(world)) as client:
        as_owner, as_co = Api(client, owner.token), Api(client, co.token)
        assert as_owner("POST", f"/projects/{project.id}/members", {"user_id": co.user.id, "role": "admin"}).is_success
        for role in ("member", "viewer"):
            demoted = as_co("POST", f"/projects/{project.id}/members", {"user_id": owner.user.id, "role": role})
            assert demoted.status_code == 403 and "creator" in demoted.json()["detail"]
        removed = as_co("DELETE", f"/projects/{project.id}/members/{owner.user.id}")
        assert removed.status_code == 403 and "creator" in removed.json()["detail"]
        assert as_owner("DELETE", f"/projects/{project.id}/members/{owner.user.id}").status_code == 409
        assert [p["role"] for p in as_owner("GET", "/projects").json()] == ["admin"]
        assert as_owner("DELETE", f"/projects/{project.id}/members/{co.user.id}").status_code == 204


def test_adding_a_member_does_not_reveal_whether_a_user_id_exists(world: World) -> None:
    owner, stranger = world.user("owner"), world.user("stranger")
    project = world.project(owner)
    unknown = stranger.user.id + 1000
    with TestClient(make_app(world)) as client:
        as_owner = Api(client, owner.token)
        answers = []
        for user_id in (stranger.user.id, unknown):
            got = as_owner("POST", f"/projects/{project.id}/members", {"user_id": user_id, "role": "viewer"})
            body = got.json()
            body.pop("user_id")
            answers.append((got.status_code, body))
        assert answers[0] == answers[1] and answers[0][0] == 200
        for user_id in (stranger.user.id, unknown):  # removing them again answers alike too
            assert as_owner("DELETE", f"/projects/{project.id}/members/{user_id}").status_code == 204
        readd = as_owner("POST", f"/projects/{project.id}/members", {"user_id": stranger.user.id, "role": "viewer"})
        assert readd.status_code == 200
        assert Api(client, stranger.token)("GET", f"/projects/{project.id}/tasks").status_code == 200
        assert str(unknown) not in {str(r["user_id"]) for r in world.rows("project_members")}
