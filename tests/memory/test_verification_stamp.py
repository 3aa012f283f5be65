"""The whole-file checks off the hot path (memory/stamp.py): a store whose file is exactly as the last
sound check (or our own commits since) left it skips `quick_check` and `foreign_key_check`; anything
else — a foreign write, raw byte damage, a failed check — runs them before any write.

The corruption matrix of test_bootstrap.py runs here again on stores that carry a sound stamp from
their last open: every damaged store is still found before a write, and its bytes stay untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from autopatch_j.memory.bootstrap import check_whole_file
from autopatch_j.memory.errors import MemorySchemaError, StorageCorruptError
from autopatch_j.memory.manager import MemoryManager
from autopatch_j.memory.records import Intent
from autopatch_j.memory.stamp import FAILED, SOUND, Stamp, observe, read_stamp, trusted, write_stamp
from autopatch_j.runtime import FakeClock
from tests.memory.test_bootstrap import CASES, _seed_healthy
from tests.transcripts.builders import claude_lines

WHOLE_FILE = ("PRAGMA quick_check", "PRAGMA foreign_key_check")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _open_traced(root: Path) -> tuple[MemoryManager, list[str]]:
    sent: list[str] = []
    m = MemoryManager(root=root, clock=FakeClock(), trace=sent.append, busy_timeout_ms=200)
    m.open()
    return m, sent


def _ran_whole_file(sent: list[str]) -> bool:
    return any(s in WHOLE_FILE for s in sent)


def _write_turns(m: MemoryManager, n: int) -> None:
    for i in range(n):
        ticket = m.begin_turn(f"From now on, answer first. {i} " + "x" * 300, Intent.GENERAL_CHAT)
        m.complete_turn(ticket, "OK.")


def _stamped_store(root: Path, turns: int = 40) -> Path:
    """A healthy store closed by its own process: its stamp vouches for the file as it is."""
    m = MemoryManager(root=root, clock=FakeClock(), owner="seed")
    assert m.open().ok
    _write_turns(m, turns)
    m.close()
    assert trusted(m.paths.db, observe(m.paths.db)), "our own commits and close did not carry the stamp"
    return m.paths.db


def _corrupt_page_of(db: Path, table: str, *, keep_times: bool = False) -> None:
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    conn.close()
    st = db.stat()
    with db.open("r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)
    if keep_times:  # the mtime set back; the ctime cannot be
        os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))


def test_a_store_left_by_our_own_commits_skips_the_whole_file_checks(tmp_path: Path) -> None:
    _stamped_store(tmp_path)
    m, sent = _open_traced(tmp_path)
    assert m.health.ok and not _ran_whole_file(sent)
    assert "PRAGMA user_version" in sent and any("sqlite_master" in s for s in sent)  # the cheap checks still run
    _write_turns(m, 3)
    m.close()
    again, sent = _open_traced(tmp_path)
    assert again.health.ok and not _ran_whole_file(sent)
    again.close()


def test_a_foreign_write_brings_the_whole_file_checks_back(tmp_path: Path) -> None:
    db = _stamped_store(tmp_path)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE turns SET user_text = 'edited elsewhere' WHERE id = 1")
    conn.close()
    m, sent = _open_traced(tmp_path)
    assert m.health.ok and _ran_whole_file(sent)
    m.close()
    again, sent = _open_traced(tmp_path)  # checked sound: stamped again
    assert again.health.ok and not _ran_whole_file(sent)
    again.close()


def test_a_foreign_commit_between_ours_breaks_the_chain(tmp_path: Path) -> None:
    """A commit by another connection while this process keeps the store open is never stamped as ours."""
    db = _stamped_store(tmp_path)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert m.open().ok
    _write_turns(m, 1)
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE turns SET assistant_text = 'rewritten elsewhere' WHERE id = 2")
    conn.close()
    _write_turns(m, 1)  # our commit after the foreign one must not vouch for it
    m.close()
    again, sent = _open_traced(tmp_path)
    assert again.health.ok and _ran_whole_file(sent)
    again.close()


@pytest.mark.parametrize("keep_times", [False, True], ids=["bytes", "bytes-mtime-restored"])
def test_raw_page_damage_to_a_stamped_store_is_found_before_a_write(tmp_path: Path, keep_times: bool) -> None:
    db = _stamped_store(tmp_path)
    _corrupt_page_of(db, "turns", keep_times=keep_times)
    before = _digest(db)
    m, sent = _open_traced(tmp_path)
    assert not m.health.ok and _ran_whole_file(sent)
    with pytest.raises(MemorySchemaError):
        m.begin_turn("hello", Intent.GENERAL_CHAT)
    m.close()
    assert _digest(db) == before
    stamp = read_stamp(db)
    assert stamp is not None and stamp.verdict == FAILED
    again, sent = _open_traced(tmp_path)  # a failed check is never skipped: checked again, still degraded
    assert not again.health.ok and _ran_whole_file(sent)
    assert _digest(db) == before


@pytest.fixture(params=sorted(CASES))
def stamped_then_damaged(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    case = CASES[request.param]
    db = _seed_healthy(tmp_path)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert m.open().ok  # the foreign seeding is checked, then stamped sound
    m.close()
    assert trusted(db, observe(db))
    case.corrupt(db)
    return tmp_path, case.reason


def test_the_corruption_matrix_on_stamped_stores(stamped_then_damaged: tuple[Path, str]) -> None:
    root, reason = stamped_then_damaged
    db = root / ".autopatch-j" / "memory.db"
    before = _digest(db)
    m = MemoryManager(root=root, clock=FakeClock(), busy_timeout_ms=200)
    health = m.open()
    assert not health.ok and health.reason and reason in health.reason
    with pytest.raises(MemorySchemaError):
        m.begin_turn("hello", Intent.GENERAL_CHAT)
    m.close()
    assert _digest(db) == before


def test_a_corrupt_page_behind_a_skipped_check_fails_the_statement_that_touches_it(tmp_path: Path) -> None:
    """The argument of docs/memory.md: even with the whole-file checks skipped (here: a stamp forged to
    vouch for a damaged file), the first statement that touches the corrupt page fails, writes nothing,
    and the store is degraded from then on — in this process and for every later start."""
    db = _stamped_store(tmp_path)
    _corrupt_page_of(db, "turns")
    write_stamp(db, Stamp(verdict=SOUND, state=observe(db) or ()))
    before = _digest(db)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert m.open().ok  # the cheap checks and the start-up recoveries never read the turns table's pages
    with pytest.raises(StorageCorruptError, match="malformed"):
        m.begin_turn("hello", Intent.GENERAL_CHAT)  # the first statement that touches the page fails
    assert _digest(db) == before
    assert not m.health.ok and "damaged page" in (m.health.reason or "")
    with pytest.raises(MemorySchemaError):
        m.begin_turn("hello", Intent.GENERAL_CHAT)  # and the manager writes nothing more
    m.close()
    assert _digest(db) == before
    stamp = read_stamp(db)
    assert stamp is not None and stamp.verdict == FAILED
    again, sent = _open_traced(tmp_path)
    assert not again.health.ok and _ran_whole_file(sent)
    assert _digest(db) == before


def test_a_long_lived_process_runs_the_whole_file_checks_in_the_background(tmp_path: Path) -> None:
    """A damaged page no start-up statement touches (the candidates), behind a stamp forged to vouch for
    it: the background check of a long-lived process finds it and the manager stops writing."""
    db = _stamped_store(tmp_path)
    _corrupt_page_of(db, "memory_candidates")
    write_stamp(db, Stamp(verdict=SOUND, state=observe(db) or ()))
    before = _digest(db)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert m.open().ok
    m.start_whole_file_checks()
    m.wait_whole_file_checks(timeout_s=30)
    assert not m.health.ok
    with pytest.raises(MemorySchemaError):
        m.begin_turn("hello", Intent.GENERAL_CHAT)
    m.close()
    assert _digest(db) == before
    stamp = read_stamp(db)
    assert stamp is not None and stamp.verdict == FAILED
    assert not MemoryManager(root=tmp_path, clock=FakeClock()).open().ok


def test_cli_status_is_degraded_after_page_damage_and_the_hook_writes_nothing(tmp_path: Path) -> None:
    """Through the real CLI processes: a stamped store, damaged on disk (its mtime set back), is found by
    the next command, and the Claude Code hook then writes nothing to it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTOPATCH_")}
    env["HOME"] = str(tmp_path / "home")
    cli = [sys.executable, "-m", "autopatch_j", "-C", str(tmp_path)]
    _stamped_store(tmp_path)

    def hook(session: str) -> None:
        transcript = tmp_path / f"{session}.jsonl"
        transcript.write_text("".join(claude_lines(0, 3, session=session, cwd=str(tmp_path))), encoding="utf-8")
        payload = {"session_id": session, "transcript_path": str(transcript), "cwd": str(tmp_path)}
        done = subprocess.run(
            [*cli, "hook", "claude-code"],
            env=env,
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0  # a hook never fails the agent; it reports a problem instead

    def status() -> dict[str, object]:
        done = subprocess.run(
            [*cli, "memory", "status", "--json"], env=env, capture_output=True, text=True, check=False
        )
        result: dict[str, object] = json.loads(done.stdout)
        return result

    hook("session-0")
    healthy = status()
    assert healthy["health"] == "healthy" and healthy["counts"] == {"turns": 43, "active_items": 0, "candidates": 0}
    db = tmp_path / ".autopatch-j" / "memory.db"
    _corrupt_page_of(db, "turns", keep_times=True)
    before = _digest(db)
    assert status()["health"] == "degraded"
    hook("session-1")
    assert _digest(db) == before


def test_an_abandoned_background_check_has_no_verdict(tmp_path: Path) -> None:
    """A long-lived process closing during its whole-file check stops it at once: no verdict, no stamp."""
    db = _stamped_store(tmp_path)
    _corrupt_page_of(db, "memory_candidates")  # a check run to the end would stamp this store failed
    before = read_stamp(db)
    m = MemoryManager(root=tmp_path, clock=FakeClock())
    assert check_whole_file(m.db, stop=lambda: True) is None
    assert read_stamp(db) == before
    assert check_whole_file(m.db, stop=lambda: False) is not None  # the same check, not stopped, decides
    stamp = read_stamp(db)
    assert stamp is not None and stamp.verdict == FAILED
