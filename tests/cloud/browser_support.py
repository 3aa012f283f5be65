"""A live console server (uvicorn in a thread) and a headless system Chromium driven by Selenium.

No browser is downloaded: the driver is Debian's `chromedriver` and the browser Debian's
`chromium`. Without them the browser tests skip with that reason, unless
`AUTOPATCH_REQUIRE_BROWSER=1`, in which case they fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import uvicorn
from fastapi import FastAPI

CHROMIUM = os.environ.get("AUTOPATCH_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("AUTOPATCH_CHROMEDRIVER", "/usr/bin/chromedriver")
HEADLESS_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def require_browser() -> None:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not Path(path).exists()]
    if not missing:
        return
    reason = f"no system browser: {', '.join(missing)} missing (apt-get install chromium chromium-driver)"
    if os.environ.get("AUTOPATCH_REQUIRE_BROWSER") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@contextmanager
def live_server(app: FastAPI) -> Iterator[str]:
    """Serve `app` on a free loopback port in a thread; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", ws="none", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the live console server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def chromium(*, width: int = 1100, height: int = 900, phone: bool = False) -> Iterator[object]:
    """A headless Chromium with a new empty profile, closed (and its profile removed) afterwards;
    `phone` emulates a 390 px wide touch screen (a headless window cannot be narrower than 500 px)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="apj-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*HEADLESS_FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    if phone:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": 390, "height": 844}})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def screenshot_dir(tmp_path: Path) -> Path:
    """docs/console when AUTOPATCH_CONSOLE_SCREENSHOTS names it, else the test's temp directory."""
    target = Path(os.environ.get("AUTOPATCH_CONSOLE_SCREENSHOTS") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)
    return target
