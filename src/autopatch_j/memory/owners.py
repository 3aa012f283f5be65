"""Lease owners: who holds a lease, and whether that holder is provably gone.

An owner id is `host:pid:start:nonce` — the host name, the process id, the process's start time
(clock ticks since boot, from `/proc/<pid>/stat`; `0` where the platform does not tell) and a random
nonce that keeps two managers of one process apart. A lease's holder is provably gone only when all
of these hold: the id has this form, it names this host, it names a start time, and the process id
is either not running or now belongs to a process that started at another time (the id was reused).
Anything else — another host, an id of another form, a process we may not signal, no start time —
is treated as alive, and its lease runs out on its own (120 s, M-47).

Taking over a gone holder's leases is safe for the same reason expiry is: every commit of a claim is
fenced by owner, batch and generation (jobs.py), so a holder that was not gone after all could
never write its result back.
"""

from __future__ import annotations

import os

_HOST = os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")


def process_start(pid: int) -> int | None:
    """The start time of process `pid` in clock ticks since boot, or None (no such process, or no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    # Field 2 (the command name) is in parentheses and may hold spaces; field 22 is the start time.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return int(fields[19])
    except (IndexError, ValueError):
        return None


def new_owner_id() -> str:
    """A lease owner id unique to this process and manager."""
    pid = os.getpid()
    return f"{_HOST}:{pid}:{process_start(pid) or 0}:{os.urandom(6).hex()}"


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, under another user
    return True


def provably_gone(owner: str) -> bool:
    """True only when `owner` names a process of this host that is no longer running (see the module doc)."""
    parts = owner.split(":")
    if len(parts) != 4 or parts[0] != _HOST:
        return False
    try:
        pid, start = int(parts[1]), int(parts[2])
    except ValueError:
        return False
    if pid <= 0 or start <= 0 or pid == os.getpid():
        return False
    if not _running(pid):
        return True
    now_start = process_start(pid)
    return now_start is not None and now_start != start
