"""A store whose index an older derivation of search keys built is rebuilt by the next command, through
the real CLI: no `memory reindex` by hand, once however many commands open it at once."""

from __future__ import annotations

import io
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from autopatch_j.app.context import AppContext
from autopatch_j.cli.status_cmd import run_status
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import MemoryKind
from autopatch_j.memory.rekey import KEY_VERSION
from tests.memory.item_factory import add_item_in_tx
from tests.memory.stale_index import OLDER, as_an_older_release_left_it, recorded_versions, store_with_a_plural_acronym

NOTICE = "rebuilt the search index for this release's search keys"


def _cli(root: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    """The real CLI's command line for `args` in `root`, and an environment without our settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("AUTOPATCH_")}
    return [sys.executable, "-m", "autopatch_j", "-C", str(root), *args], env


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command, env = _cli(root, *args)
    return subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=120)


def test_an_index_built_by_older_keys_is_rebuilt_by_the_next_search(tmp_path: Path) -> None:
    db = store_with_a_plural_acronym(tmp_path)
    as_an_older_release_left_it(db)
    found = _run(tmp_path, "memory", "search", "PR", "--json")
    assert found.returncode == 0, found.stderr
    assert [hit["title"] for hit in json.loads(found.stdout)] == ["Code review"]
    assert NOTICE in found.stderr and "(1 memory)" in found.stderr
    assert recorded_versions(db) == [(KEY_VERSION,)]
    again = _run(tmp_path, "memory", "search", "PR", "--json")
    assert [hit["title"] for hit in json.loads(again.stdout)] == ["Code review"]
    assert NOTICE not in again.stderr  # rebuilt once: the next command finds it current


def test_a_store_that_records_no_key_version_is_rebuilt(tmp_path: Path) -> None:
    db = store_with_a_plural_acronym(tmp_path)
    as_an_older_release_left_it(db, version=None)
    found = _run(tmp_path, "memory", "search", "PR", "--json")
    assert [hit["title"] for hit in json.loads(found.stdout)] == ["Code review"], found.stderr
    assert recorded_versions(db) == [(KEY_VERSION,)]


def test_a_store_an_older_release_emptied_the_index_of_is_rebuilt(tmp_path: Path) -> None:
    db = store_with_a_plural_acronym(tmp_path)
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("DELETE FROM memory_search_docs")  # its trigger drops the postings
        conn.execute("UPDATE memory_index_keys SET version = ?", (OLDER,))
    finally:
        conn.close()
    found = _run(tmp_path, "memory", "search", "approvals", "--json")
    assert [hit["title"] for hit in json.loads(found.stdout)] == ["Code review"], found.stderr


def test_two_commands_opening_a_stale_store_at_once_rebuild_it_once(tmp_path: Path) -> None:
    db = store_with_a_plural_acronym(tmp_path)
    manager = MemoryManager(root=tmp_path)
    assert manager.open().ok
    try:  # enough memories that a rebuild takes a while, so the two opens overlap
        with manager.db.write("test: add memories") as conn:
            for n in range(400):
                add_item_in_tx(
                    conn, kind=MemoryKind.PROJECT_DECISION, title=f"Rule {n}", content=f"Service {n} logs JSON."
                )
    finally:
        manager.close()
    as_an_older_release_left_it(db)
    runs = []
    for _ in range(2):
        command, env = _cli(tmp_path, "memory", "search", "PR", "--json")
        runs.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    assert [[hit["title"] for hit in json.loads(out)] for out, _ in outputs] == [["Code review"]] * 2
    assert sum(NOTICE in err for _, err in outputs) == 1
    assert recorded_versions(db) == [(KEY_VERSION,)]


def test_status_says_which_key_version_built_the_index(tmp_path: Path) -> None:
    store_with_a_plural_acronym(tmp_path)
    status = _run(tmp_path, "memory", "status", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["index_keys"] == {"built_by": KEY_VERSION, "current": KEY_VERSION}


def test_status_text_says_when_the_index_waits_for_a_rebuild(tmp_path: Path) -> None:
    """A store locked at open keeps its old index; `memory status` says which version built it."""
    db = store_with_a_plural_acronym(tmp_path)
    as_an_older_release_left_it(db)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # a writer that keeps the lock past the busy timeout
    manager = MemoryManager(root=tmp_path, busy_timeout_ms=100)
    try:
        assert manager.open().ok
        out = io.StringIO()
        console = Console(file=out, width=200)
        run_status(
            AppContext(root=tmp_path, environ={}, console=console, err_console=console, _manager=manager), as_json=False
        )
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        manager.close()
    assert (
        f"search index: built by key version {OLDER}, this release derives version {KEY_VERSION}; "
        "the next open that can write rebuilds it"
    ) in out.getvalue()


def _read_only_run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The CLI on `root` for a user who may not write its Memory file: as `nobody` when the tests run
    as root (whom file modes do not stop), else with the file made read-only."""
    command, env = _cli(root, *args)
    env["HOME"] = str(root)
    if os.geteuid() != 0:
        return subprocess.run(command, env=env, capture_output=True, text=True, check=False, timeout=120)
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: no user here is refused a write")
    drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    return subprocess.run([*drop, *command], env=env, capture_output=True, text=True, check=False, timeout=120)


def test_a_read_only_store_is_searched_through_its_old_index(tmp_path: Path) -> None:
    root = Path(tempfile.mkdtemp(prefix="read-only-", dir=tempfile.gettempdir()))  # `nobody` may enter it
    try:
        db = store_with_a_plural_acronym(root)
        as_an_older_release_left_it(db)
        for folder in (root, db.parent):
            folder.chmod(0o777)  # SQLite may make its -wal and -shm beside the file
        db.chmod(0o444)
        found = _read_only_run(root, "memory", "search", "approvals", "--json")
        assert found.returncode == 0, found.stderr
        assert [hit["title"] for hit in json.loads(found.stdout)] == ["Code review"]  # the old index answers
        assert NOTICE not in found.stderr
        assert recorded_versions(db) == [(OLDER,)]  # nothing written: a later open that can write rebuilds
        db.chmod(0o644)
        again = _run(root, "memory", "search", "PR", "--json")
        assert [hit["title"] for hit in json.loads(again.stdout)] == ["Code review"], again.stderr
    finally:
        shutil.rmtree(root, ignore_errors=True)
