"""The CLI as another agent starts it: a real `python -m autopatch_j` process whose home, Codex home
and user-state folder are a test's own, and what it left in a project's Memory."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path


def run_cli(args: list[str], *, cwd: Path, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(home),
        "CODEX_HOME": str(home / ".codex"),
        "XDG_STATE_HOME": str(home / ".state"),
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    return subprocess.run(
        [sys.executable, "-m", "autopatch_j", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def stored_turns(project: Path) -> list[str]:
    """The user text of every turn in the project's Memory, in admission order."""
    conn = sqlite3.connect(project / ".autopatch-j" / "memory.db")
    try:
        return [r[0] for r in conn.execute("SELECT user_text FROM turns ORDER BY id")]
    finally:
        conn.close()
