"""Suite-wide: the session's scratch files on a RAM disk when this machine has one.

Most tests open SQLite databases under `tmp_path` (and the eval under `tempfile`'s directory), and
each commit is an fsync: on a disk-backed /tmp the fsyncs, not the work, set much of the suite's
pace. When `/dev/shm` is a writable tmpfs with room to spare, the session points `TMPDIR` at a fresh
directory there before pytest picks its base temporary directory, so `tmp_path`, `tempfile` and
every subprocess a test starts use it; the directory is removed when the session ends.
`AUTOPATCH_TEST_TMPFS=0` (or an explicit `--basetemp`) keeps everything where it was.

What the tests prove does not change: the crash and fault tests kill processes (kill -9), and what
survives a process's death — the page cache — survives alike on a tmpfs; nothing here simulates a
power cut, which is the one thing an fsync is for.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

RAM_DISK = Path("/dev/shm")
RAM_DISK_MIN_FREE = 2 << 30  # the suite's scratch stays far below; leave the machine its memory
_SWITCH = "AUTOPATCH_TEST_TMPFS"
_made: list[str] = []


def ram_disk(path: Path = RAM_DISK, min_free: int = RAM_DISK_MIN_FREE) -> Path | None:
    """`path` when it is a writable tmpfs with `min_free` bytes free, else None."""
    try:
        if not path.is_dir() or not os.access(path, os.W_OK):
            return None
        if not any(line.split()[1:3] == [str(path), "tmpfs"] for line in Path("/proc/mounts").read_text().splitlines()):
            return None
        stat = os.statvfs(path)
    except (OSError, IndexError):
        return None
    return path if stat.f_bavail * stat.f_frsize >= min_free else None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp or os.environ.get(_SWITCH, "1").strip() == "0":
        return
    disk = ram_disk()
    if disk is None:
        return
    scratch = tempfile.mkdtemp(prefix="autopatch-tests-", dir=disk)
    os.chmod(scratch, 0o1777)  # like /tmp: a test's own PostgreSQL cluster runs as `postgres` below it
    _made.append(scratch)
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = None  # recomputed from TMPDIR on next use


def pytest_unconfigure(config: pytest.Config) -> None:
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)
