"""The web console in a real headless Chromium (C-42): keyboard sign-in, settings, flags, the log
after a worker run, deleting a memory, and the negative cases (hostile text, cross-site posts,
another member's data). Set AUTOPATCH_CONSOLE_SCREENSHOTS=docs/console to refresh the screenshots."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from autopatch_j.cloud.db import write_tx
from autopatch_j.cloud.executors import ScriptedExecutor
from autopatch_j.cloud.memories import clean_content, create_project_memory, create_user_memory
from autopatch_j.cloud.records import Role
from autopatch_j.cloud.worker import Worker
from tests.cloud.api_support import auth, make_app
from tests.cloud.browser_support import chromium, live_server, require_browser, screenshot_dir
from tests.cloud.world import Actor, World

pytestmark = [
    pytest.mark.parametrize("db_url", ["sqlite"], indirect=True),  # the browser is the subject here
    pytest.mark.xdist_group("browser"),  # one Chromium at a time (docs/testing.md)
]


@pytest.fixture
def site(world: World) -> Iterator[str]:
    require_browser()
    with live_server(make_app(world)) as url:
        yield url


@pytest.fixture
def browser() -> Iterator[Any]:
    require_browser()
    with chromium() as driver:
        yield driver


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    return screenshot_dir(tmp_path)


@pytest.fixture
def alice(world: World) -> Actor:
    return world.user("alice")


def by(css: str) -> tuple[str, str]:
    from selenium.webdriver.common.by import By

    return (By.CSS_SELECTOR, css)


def click_and_wait(driver: Any, css: str) -> None:
    """Click an element that navigates, then wait until the old page is gone."""
    old_page = driver.find_element(*by("html"))
    driver.find_element(*by(css)).click()
    wait_gone(driver, old_page)


def wait_gone(driver: Any, old_page: Any) -> None:
    """Wait until `old_page` has left the document. Chromium sometimes answers a node that a
    navigation just detached with "Node with given id does not belong to the document" instead of
    a stale-element error (SeleniumHQ/selenium#15401); that answer means gone too."""
    from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    def gone(_driver: Any) -> bool:
        try:
            old_page.is_enabled()
        except StaleElementReferenceException:
            return True
        except WebDriverException as exc:
            if "does not belong to the document" in str(exc):
                return True
            raise
        return False

    WebDriverWait(driver, 15).until(gone)


def shoot(driver: Any, path: Path) -> None:
    """A full-page screenshot: grow the window to the page's height first."""
    width = driver.get_window_size()["width"]
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, max(600, min(int(height) + 140, 4000)))
    driver.save_screenshot(str(path))


def sign_in(driver: Any, site: str, token: str) -> None:
    """Keyboard only: the token field, then Enter."""
    from selenium.webdriver.common.keys import Keys

    driver.get(f"{site}/console/sign-in")
    field = driver.find_element(*by("#token"))
    old_page = driver.find_element(*by("html"))
    field.send_keys(token, Keys.ENTER)
    wait_gone(driver, old_page)
    assert driver.current_url.endswith("/console/memories"), driver.current_url


def api_get(site: str, token: str, path: str) -> Any:
    response = httpx.get(site + path, headers=auth(token), timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def test_keyboard_sign_in_and_session_cookie_flags(site: str, browser: Any, alice: Actor, shots: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{site}/console/sign-in")
    shoot(browser, shots / "sign-in.png")
    browser.find_element(*by("body")).send_keys(Keys.TAB)
    assert browser.switch_to.active_element.text == "Skip to content"  # first tab stop
    old_page = browser.find_element(*by("html"))
    browser.find_element(*by("#token")).send_keys("apj_not-a-token", Keys.ENTER)
    wait_gone(browser, old_page)
    assert "That API token is not valid." in browser.find_element(*by("[role=alert]")).text
    sign_in(browser, site, alice.token)
    [cookie] = [c for c in browser.get_cookies() if c["name"] == "apj_console"]
    assert cookie["httpOnly"] is True and cookie["sameSite"] == "Strict" and cookie["path"] == "/console"
    assert browser.execute_script("return document.cookie") == ""  # invisible to page scripts
    click_and_wait(browser, ".signout button")
    assert browser.current_url.endswith("/console/sign-in")
    browser.get(f"{site}/console/memories")
    assert browser.current_url.endswith("/console/sign-in")


def test_a_changed_setting_is_what_the_api_returns(site: str, browser: Any, alice: Actor, shots: Path) -> None:
    sign_in(browser, site, alice.token)
    browser.get(f"{site}/console/settings")
    browser.find_element(*by("#use_memories")).click()
    idle = browser.find_element(*by("#idle_seconds"))
    idle.clear()
    idle.send_keys("120")
    browser.find_element(*by("#extract_model")).send_keys("gpt-small")
    click_and_wait(browser, "main form button[type=submit]")
    assert "Settings saved." in browser.find_element(*by("[role=status]")).text
    shoot(browser, shots / "settings.png")
    api = api_get(site, alice.token, "/users/me/auto-memory-settings")
    assert api["use_memories"] == 1 and api["idle_seconds"] == 120 and api["extract_model"] == "gpt-small"
    percent = browser.find_element(*by("#min_rate_limit_remaining_percent"))
    percent.clear()
    percent.send_keys("150")
    click_and_wait(browser, "main form button[type=submit]")
    error = browser.find_element(*by("#min_rate_limit_remaining_percent-error")).text
    assert error == "Input should be less than or equal to 100"
    assert browser.find_element(*by("#min_rate_limit_remaining_percent")).get_attribute("aria-invalid") == "true"
    shoot(browser, shots / "settings-invalid.png")
    assert api_get(site, alice.token, "/users/me/auto-memory-settings")["min_rate_limit_remaining_percent"] == 20.0


def test_flags_and_the_log_after_a_worker_run(site: str, browser: Any, world: World, alice: Actor, shots: Path) -> None:
    from selenium.webdriver.support.ui import Select

    project = world.project(alice, name="payments")
    world.enable(alice, idle_seconds=0, min_duration_seconds=0, min_result_chars=0)
    kept = world.task(project, alice, prompt="Fix the rounding bug in invoices")
    skipped = world.task(project, alice, prompt="Rename the settings module")
    world.flags(skipped, alice, generate_memories=False)
    worker = Worker(engine=world.engine, executor=ScriptedExecutor(), clock=world.clock, worker_id="w1")
    assert worker.run_one() is not None and worker.run_one() is not None
    worker.sweep()
    sign_in(browser, site, alice.token)
    browser.get(f"{site}/console/projects")
    click_and_wait(browser, "main table a")
    rows = browser.find_elements(*by("main tbody tr"))
    assert len(rows) == 2 and all("completed" in row.text for row in rows)
    shoot(browser, shots / "project.png")
    browser.get(f"{site}/console/log")
    # the worker's sweep reads generating candidates only; the console's run button sweeps all of yours
    assert f"#{skipped.id}" not in browser.find_element(*by("main table")).text
    click_and_wait(browser, "form[action$='/log/run'] button")
    log_text = browser.find_element(*by("main table")).text
    assert f"#{kept.id}" in log_text and "extracted" in log_text and "generate_disabled" in log_text
    Select(browser.find_element(*by("#reason"))).select_by_value("generate_disabled")
    click_and_wait(browser, "form.filters button")
    rows = browser.find_elements(*by("main tbody tr"))
    assert len(rows) == 1 and f"#{skipped.id}" in rows[0].text
    shoot(browser, shots / "log.png")
    browser.get(f"{site}/console/tasks/{kept.id}")
    Select(browser.find_element(*by("#use_memories"))).select_by_value("off")
    Select(browser.find_element(*by("#generate_memories"))).select_by_value("on")
    click_and_wait(browser, "form[action$='/flags'] button")
    assert Select(browser.find_element(*by("#use_memories"))).first_selected_option.get_attribute("value") == "off"
    [row] = [r for r in world.rows("task_auto_memory_flags") if r["task_id"] == kept.id]
    assert row["use_memories"] == 0 and row["generate_memories"] == 1
    assert browser.find_element(*by("#effective-generate_memories")).text == "on"
    Select(browser.find_element(*by("#conversation-generate_memories"))).select_by_value("off")
    click_and_wait(browser, "form[action$='/conversation-memory'] button")
    assert browser.find_element(*by("#effective-generate_memories")).text == "off"  # off at the conversation wins
    control = api_get(site, alice.token, f"/tasks/{kept.id}/conversation-memory")
    assert control["generate_memories"] is False and control["effective_generate_memories"] is False
    shoot(browser, shots / "task.png")


def test_deleting_a_memory_and_redaction_shown(
    site: str, browser: Any, world: World, alice: Actor, shots: Path
) -> None:
    project = world.project(alice, name="payments")
    with write_tx(world.engine) as conn:
        keep = create_user_memory(
            conn, user=alice.user, content=clean_content("Prefers pytest -x -q"), now=world.clock()
        )
        drop = create_user_memory(
            conn, user=alice.user, content=clean_content("Deploy key: token=ghp_abcdef123456"), now=world.clock()
        )
        create_project_memory(
            conn, user=alice.user, project_id=project.id, content=clean_content("Money is in cents"), now=world.clock()
        )
    sign_in(browser, site, alice.token)
    redacted = browser.find_element(*by(f"#memory-{drop.id} mark.redacted"))
    assert redacted.text == "[REDACTED]" and "ghp_abcdef" not in browser.page_source
    shoot(browser, shots / "memories.png")
    click_and_wait(browser, f"#memory-{drop.id} button")
    assert browser.find_elements(*by(f"#memory-{drop.id}")) == []
    ids = [m["id"] for m in api_get(site, alice.token, "/users/me/memories")]
    assert ids == [keep.id]
    with chromium(phone=True) as phone:
        sign_in(phone, site, alice.token)
        assert phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
        shoot(phone, shots / "memories-phone.png")


class Attacker(BaseHTTPRequestHandler):
    """Another site: one page whose form posts to the console with a (leaked) CSRF token."""

    page = b""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.end_headers()
        self.wfile.write(self.page)

    def log_message(self, *_args: object) -> None:
        pass


def test_negative_cases(site: str, browser: Any, world: World, alice: Actor) -> None:
    bob, carol = world.user("bob"), world.user("carol")
    project = world.project(alice, name="shared")
    hidden = world.project(carol, name="carol-only")
    world.member(project, alice, bob, Role.MEMBER)
    hostile = '<script>alert(1)</script> "><img src=x onerror=alert(2)> javascript:alert(3)'
    world.task(project, alice, prompt=hostile)
    with write_tx(world.engine) as conn:
        secret = create_user_memory(
            conn, user=alice.user, content=clean_content("alice only: " + hostile), now=world.clock()
        )
    sign_in(browser, site, alice.token)
    for path in ("/console/memories", f"/console/projects/{project.id}"):
        browser.get(site + path)
        assert hostile.split(">")[0] in browser.find_element(*by("main")).text  # shown as text
        assert browser.find_elements(*by("main img")) == [] and browser.find_elements(*by("main script")) == []
        assert browser.find_elements(*by("a[href^='javascript']")) == []
    from selenium.common.exceptions import NoAlertPresentException

    with pytest.raises(NoAlertPresentException):
        _ = browser.switch_to.alert.text
    token = browser.find_element(*by("input[name=csrf]")).get_attribute("value")
    action = f"{site}/console/memories/{secret.id}/delete"
    Attacker.page = (
        f'<form method="post" action="{action}"><input type="hidden" name="csrf" value="{token}">'
        '<button id="go">Win a prize</button></form>'
    ).encode()
    evil = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://localhost:{evil.server_address[1]}/")  # another site than 127.0.0.1
        click_and_wait(browser, "#go")
        # SameSite=Strict: the cross-site post carries no session, so the console asks to sign in
        assert browser.current_url.endswith("/console/sign-in"), browser.current_url
    finally:
        evil.shutdown()
        evil.server_close()
    assert [m["id"] for m in api_get(site, alice.token, "/users/me/memories")] == [secret.id]
    browser.delete_all_cookies()
    sign_in(browser, site, bob.token)
    assert "alice only" not in browser.find_element(*by("main")).text
    browser.get(f"{site}/console/projects/{hidden.id}")
    assert "does not exist or is not visible to you" in browser.find_element(*by("[role=alert]")).text


def test_admin_adds_changes_and_removes_members(
    site: str, browser: Any, world: World, alice: Actor, shots: Path
) -> None:
    from selenium.webdriver.support.ui import Select

    bob, carol = world.user("bob"), world.user("carol")
    project = world.project(alice, name="payments")
    sign_in(browser, site, alice.token)
    browser.get(f"{site}/console/projects/{project.id}")
    click_and_wait(browser, "main p a[href$='/members']")
    browser.find_element(*by("#new-user")).send_keys(str(bob.user.id))
    Select(browser.find_element(*by("#new-role"))).select_by_value("viewer")
    click_and_wait(browser, "form.card button")
    Select(browser.find_element(*by(f"#role-{bob.user.id}"))).select_by_value("member")
    click_and_wait(browser, f"tr:has(#role-{bob.user.id}) form:not([action$='/remove']) button")
    assert [p["role"] for p in api_get(site, bob.token, "/projects")] == ["member"]
    browser.find_element(*by("#new-user")).send_keys(str(carol.user.id))
    click_and_wait(browser, "form.card button")
    assert [p["role"] for p in api_get(site, carol.token, "/projects")] == ["member"]
    click_and_wait(browser, f"#remove-{carol.user.id}")
    assert api_get(site, carol.token, "/projects") == []
    assert not browser.find_elements(*by(f"#role-{carol.user.id}"))
    click_and_wait(browser, f"#remove-{alice.user.id}")
    assert browser.find_element(*by("[role=alert]")).text == "the project's creator cannot leave the project."
    assert {r["user_id"] for r in world.rows("project_members")} == {alice.user.id, bob.user.id}
    shoot(browser, shots / "members.png")
