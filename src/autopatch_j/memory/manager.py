"""`MemoryManager`: one project's Memory, as the CLI and the agents use it.

Construct it at the entry point with everything it needs (keyword-only), call `open()` once, then
use the typed methods. Guarded methods refuse with `MemorySchemaError` on a degraded store
(M-17); `status`, `show`, `export` and `clear` always work, for diagnosis and recovery.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from autopatch_j.memory import admission, items, jobs, threads, waiting
from autopatch_j.memory.bootstrap import bootstrap, check_whole_file
from autopatch_j.memory.db import DEFAULT_BUSY_TIMEOUT_MS, Database
from autopatch_j.memory.errors import (
    MemorySchemaError,
    NotConfirmedError,
    StorageBusyError,
    StorageCorruptError,
    StorageReadOnlyError,
)
from autopatch_j.memory.guard import require_operational
from autopatch_j.memory.jobs import Recovery
from autopatch_j.memory.owners import new_owner_id
from autopatch_j.memory.records import Health, Intent, Item, ItemDetail, MemoryKind, Thread, TurnTicket
from autopatch_j.memory.rekey import Rekey, rebuild_in_tx, rekey_if_stale
from autopatch_j.memory.status import StatusReport, read_status
from autopatch_j.runtime import Clock, Heartbeat, SystemClock
from autopatch_j.state_dir import ProjectPaths

if TYPE_CHECKING:
    from autopatch_j.memory.clear import ClearResult
    from autopatch_j.memory.context import HistoryTurn
    from autopatch_j.memory.export import ExportResult
    from autopatch_j.memory.publishing import PublishPage
    from autopatch_j.memory.search import ReadResult, SearchHit


@dataclass(frozen=True, slots=True)
class Released:
    """What `release_leases` gave back: job ids made due again, turn ids marked interrupted."""

    jobs: tuple[int, ...]
    turns: tuple[int, ...]


WHOLE_FILE_INTERVAL_S = 3600.0  # a long-lived process re-runs the whole-file checks this often


class MemoryManager:
    def __init__(
        self,
        *,
        root: Path,
        clock: Clock | None = None,
        owner: str | None = None,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        trace: Callable[[str], None] | None = None,
    ) -> None:
        self.paths = ProjectPaths.for_root(root)
        self.clock: Clock = clock or SystemClock()
        self.owner = owner or new_owner_id()
        self.db = Database(path=self.paths.db, busy_timeout_ms=busy_timeout_ms, trace=trace)
        self._health = Health.degraded("Memory has not been opened")
        self._heartbeat: Heartbeat | None = None
        self._checks_stop = threading.Event()
        self.startup_recovery: Recovery | None = None  # what `open` recovered (M-51)
        self.rekey: Rekey | None = None  # what `open` did about the index's key version
        self._checks_thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def open(self) -> Health:
        """Bootstrap (create or verify), then, when healthy, the rebuild of an index whose keys this
        code derives differently (memory/rekey.py: one bounded read when they agree) and the startup
        recoveries of M-51."""
        self._health = bootstrap(db=self.db, paths=self.paths, clock=self.clock)
        if self._health.ok:
            self.db.keep_open()
            self.rekey = rekey_if_stale(self.db)
            # A writer holding the lock past the busy timeout, or a file this process may only read, must
            # not make the store look broken: recovery is idempotent and runs again on the next start or
            # worker poll (a read-only store is still searched and read).
            with contextlib.suppress(StorageBusyError, StorageCorruptError, StorageReadOnlyError):
                self.recover_expired_turns()
                self.startup_recovery = self.recover_jobs()
        return self.health

    def start_whole_file_checks(self, interval_s: float = WHOLE_FILE_INTERVAL_S) -> None:
        """For a long-lived process (the REPL, the MCP server): run the whole-file checks in a daemon
        thread now — unless this open already ran them — and every `interval_s` after. A failed check
        makes this manager degraded at once, so it writes nothing more (M-17)."""
        if self._checks_thread is not None or not self._health.ok:
            return
        self._checks_stop.clear()
        first_wait = interval_s if self.db.whole_file_checked else 0.0

        def run() -> None:
            wait = first_wait
            while not self._checks_stop.wait(wait):
                wait = interval_s
                health = check_whole_file(self.db, stop=self._checks_stop.is_set)
                if health is None:  # interrupted: the process is closing
                    return
                if not health.ok and "locked" not in (health.reason or ""):
                    self.db.stamper = None
                    self._health = health
                    return

        self._checks_thread = threading.Thread(target=run, name="memory-whole-file-checks", daemon=True)
        self._checks_thread.start()

    def wait_whole_file_checks(self, timeout_s: float | None = None) -> None:
        """Wait until the background checks stopped (a failure, or `close`)."""
        if self._checks_thread is not None:
            self._checks_thread.join(timeout=timeout_s)

    def close(self) -> None:
        """Stop the heartbeat and the background checks, release the idle connection; the manager can be reopened."""
        self.stop_heartbeat()
        self._checks_stop.set()  # a whole-file check under way stops at once rather than hold up the exit
        if self._checks_thread is not None:
            self._checks_thread.join(timeout=5)
            self._checks_thread = None
        self.db.close()

    @property
    def health(self) -> Health:
        if self._health.ok and self.db.corruption is not None:
            self._health = Health.degraded(self.db.corruption)
        return self._health

    def _require_healthy(self) -> None:
        health = self.health
        if not health.ok:
            raise MemorySchemaError(
                f"Memory is degraded ({health.reason}); `autopatch-j memory status` explains, "
                "and `autopatch-j memory clear --confirm` starts over."
            )

    def recover_expired_turns(self) -> list[int]:
        self._require_healthy()
        with self.db.write("recover interrupted turns") as conn:
            return admission.recover_expired_turns_in_tx(conn, now=self.clock.now())

    def recover_jobs(self) -> Recovery:
        """Reclaim expired job leases and wake due retries (M-51); idempotent."""
        self._require_healthy()
        with self.db.write("recover Memory jobs") as conn:
            return jobs.recover_jobs_in_tx(conn, now=self.clock.now())

    def release_leases(self) -> Released:
        """Give up this process's leases on the way out (a signal, EOF): its job leases become due again at
        once with their attempt count unchanged, and its open turns are interrupted (kept, as lease expiry
        would do 120 s later). Never raises for a degraded store: there is nothing to release then."""
        if not self._health.ok:
            return Released(jobs=(), turns=())
        with self.db.read("look for this process's Memory leases") as conn:
            if not waiting.holds_leases_in_tx(conn, owner=self.owner):
                return Released(jobs=(), turns=())  # the usual case: no write lock taken at exit
        now = self.clock.now()
        with self.db.write("release this process's Memory leases") as conn:
            turns = admission.interrupt_owner_turns_in_tx(conn, owner=self.owner, now=now)
            released = jobs.release_owner_leases_in_tx(conn, owner=self.owner, now=now)
        return Released(jobs=released, turns=tuple(turns))

    def waiting_jobs(self) -> waiting.WaitingJobs:
        """How many jobs wait, and why (leased elsewhere until T, retry_wait until T, behind a lease)."""
        self._require_healthy()
        with self.db.read("summarise waiting Memory jobs") as conn:
            return waiting.waiting_jobs_in_tx(conn, now=self.clock.now())

    # -- admission -------------------------------------------------------------------------

    def begin_turn(self, user_text: str, intent: Intent) -> TurnTicket:
        self._require_healthy()
        with self.db.write("store the message") as conn:
            return admission.begin_turn_in_tx(
                conn, user_text=user_text, intent=intent, owner=self.owner, now=self.clock.now()
            )

    def complete_turn(self, ticket: TurnTicket, assistant_text: str) -> admission.TurnOutcome:
        with self.db.write("store the answer") as conn:
            return admission.complete_turn_in_tx(
                conn, ticket=ticket, assistant_text=assistant_text, now=self.clock.now()
            )

    def admit_completed_turns(self, exchanges: Sequence[tuple[str, str, Intent]]) -> list[TurnTicket]:
        """Admit finished (user, assistant, intent) exchanges in ONE transaction: all of them or none."""
        self._require_healthy()
        tickets: list[TurnTicket] = []
        with self.db.write("store the conversation") as conn:
            for user_text, assistant_text, intent in exchanges:
                now = self.clock.now()
                ticket = admission.begin_turn_in_tx(conn, user_text=user_text, intent=intent, owner=self.owner, now=now)
                admission.complete_turn_in_tx(conn, ticket=ticket, assistant_text=assistant_text, now=now)
                tickets.append(ticket)
        return tickets

    def fail_turn(self, ticket: TurnTicket, error: str) -> admission.TurnOutcome:
        with self.db.write("mark the turn failed") as conn:
            return admission.fail_turn_in_tx(conn, ticket=ticket, error=error, now=self.clock.now())

    def heartbeat(self) -> int:
        with self.db.write("renew turn leases") as conn:
            return admission.heartbeat_in_tx(conn, owner=self.owner, now=self.clock.now())

    def start_heartbeat(self, interval_s: float = admission.HEARTBEAT_SECONDS) -> None:
        """Renew this owner's open-turn leases in a daemon thread until `stop_heartbeat`; a failed
        renewal (busy, degraded) is retried at the next beat."""
        if self._heartbeat is not None:
            return

        def renew() -> bool:
            self.heartbeat()
            return True

        self._heartbeat = Heartbeat(renew, interval=interval_s, name="memory-heartbeat", transient=(Exception,))
        self._heartbeat.start()

    def stop_heartbeat(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.stop()
            self._heartbeat = None

    # -- threads ---------------------------------------------------------------------------

    def active_thread(self) -> Thread:
        self._require_healthy()
        with self.db.read("read the active thread") as conn:
            op = require_operational(conn)
            thread = threads.get_thread_in_tx(conn, thread_id=op.active_thread_id)
            assert thread is not None
            return thread

    def start_new_thread(self) -> tuple[Thread, Thread]:
        """Archive the active thread and create a new one (the storage half of `/new`)."""
        self._require_healthy()
        with self.db.write("start a new thread") as conn:
            return threads.start_new_thread_in_tx(conn, now=self.clock.now())

    # -- items -----------------------------------------------------------------------------

    def list_items(self) -> list[Item]:
        self._require_healthy()
        with self.db.read("list memories") as conn:
            op = require_operational(conn)
            return items.list_active_in_tx(conn, thread_id=op.active_thread_id)

    def show_item(self, memory_id: int) -> ItemDetail:
        """Works on a degraded store, as long as the item tables can be read."""
        with self.db.read("read the memory") as conn:
            return items.show_in_tx(conn, memory_id=memory_id)

    def publishable(self, *, kind: MemoryKind, limit: int) -> PublishPage:
        """The newest `limit` active memories of `kind` and how many there are (`memory publish`)."""
        from autopatch_j.memory.publishing import publishable_in_tx

        self._require_healthy()
        with self.db.read("read the memories to publish") as conn:
            return publishable_in_tx(conn, kind=kind, limit=limit)

    def items_fingerprint(self) -> tuple[int, int, int, int, float]:
        """A value that changes whenever `list_items()` may have changed (see `items.fingerprint_in_tx`)."""
        self._require_healthy()
        with self.db.read("check for Memory changes") as conn:
            return items.fingerprint_in_tx(conn)

    def forget(self, memory_id: int) -> Item:
        self._require_healthy()
        with self.db.write("forget the memory") as conn:
            require_operational(conn)
            return items.forget_in_tx(conn, memory_id=memory_id, now=self.clock.now())

    def reindex(self) -> int:
        """Rebuild the search terms of every active memory and record the key version that built them;
        returns how many were indexed."""
        self._require_healthy()
        with self.db.write("rebuild the search terms") as conn:
            require_operational(conn)
            return rebuild_in_tx(conn)

    # -- retrieval and context (bound to the admission-time thread id, M-22) ----------------------

    def search(self, *, thread_id: int, query: str, limit: int = 5) -> list[SearchHit]:
        from autopatch_j.memory.search import search_in_tx

        self._require_healthy()
        with self.db.read("search Memory") as conn:
            return search_in_tx(conn, thread_id=thread_id, query=query, limit=limit)

    def read_memory(self, *, thread_id: int, memory_id: int) -> ReadResult | None:
        from autopatch_j.memory.reading import read_in_tx

        self._require_healthy()
        if not items.in_id_range(memory_id):
            return None  # no memory has an id SQLite cannot hold
        with self.db.read("read a memory") as conn:
            return read_in_tx(conn, thread_id=thread_id, memory_id=memory_id)

    def history(self, *, thread_id: int) -> list[HistoryTurn]:
        from autopatch_j.memory.context import history_in_tx

        self._require_healthy()
        with self.db.read("read the conversation history") as conn:
            require_operational(conn)
            return history_in_tx(conn, thread_id=thread_id)

    def routing_context(self, *, thread_id: int) -> str:
        from autopatch_j.memory.context import routing_context_in_tx

        self._require_healthy()
        with self.db.read("build the Memory context") as conn:
            require_operational(conn)
            return routing_context_in_tx(conn, thread_id=thread_id)

    # -- diagnosis and recovery --------------------------------------------------------------

    def status(self) -> StatusReport:
        return read_status(db=self.db, health=self.health)

    def export(self) -> ExportResult:
        from autopatch_j.memory.export import export_snapshot

        return export_snapshot(db=self.db, exports_dir=self.paths.exports, clock=self.clock)

    def clear(self, *, confirm: bool) -> ClearResult:
        from autopatch_j.memory.clear import clear_memory

        if not confirm:
            raise NotConfirmedError()
        self.paths.state_dir.mkdir(parents=True, exist_ok=True)
        self.db.close()  # a rebuilt file must not be shadowed by a connection to the old inode
        result = clear_memory(db=self.db, clock=self.clock, damaged=not self.health.ok, damaged_dir=self.paths.damaged)
        self._health = bootstrap(db=self.db, paths=self.paths, clock=self.clock)
        if self._health.ok:
            self.db.keep_open()
        return result
