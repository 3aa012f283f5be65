"""`ReviewWorkspace`: the repair flows' scratch state, as files under `.autopatch-j/workspace/` only.

    workspace/pending_patch.json   the one pending patch (H-22), absent when there is none
    workspace/scan.json            the last code audit: targets, findings, scanner status
    workspace/index.json           code index: path -> sha256, size, lines of files the audit read
    workspace/cache/<key>.json     request cache (e.g. Semgrep output keyed by the audited content)

Nothing here is Memory: `/new` drops the pending patch, `autopatch-j reset` deletes the whole
directory (H-23), and Memory is untouched by both. Every write is atomic (temp file + `os.replace`).
A file that cannot be parsed is a `WorkspaceStorageError` naming `autopatch-j reset`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from autopatch_j.workspace.errors import NoPendingPatch, WorkspaceStorageError
from autopatch_j.workspace.patch import AppliedPatch, PendingPatch, apply_patch

PENDING_PATCH_FILE = "pending_patch.json"
SCAN_FILE = "scan.json"
INDEX_FILE = "index.json"
CACHE_DIR = "cache"
MAX_CACHE_ENTRIES = 64


def cache_key(*parts: str) -> str:
    """A stable file-name-safe key for the request cache."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return digest.hexdigest()


class ReviewWorkspace:
    """File-backed review workspace; safe to share between the REPL thread and a request thread."""

    def __init__(self, *, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.RLock()

    # -- pending patch ------------------------------------------------------------------------------

    def pending_patch(self) -> PendingPatch | None:
        data = self._read_json(PENDING_PATCH_FILE)
        if data is None:
            return None
        try:
            return PendingPatch.from_dict(data)
        except (TypeError, ValueError) as exc:
            raise WorkspaceStorageError(
                f"The pending patch file is invalid ({exc}); "
                "`autopatch-j patch discard` or `autopatch-j reset` clears it."
            ) from exc

    def set_pending_patch(self, patch: PendingPatch) -> None:
        """Store `patch` as the one pending patch, replacing any earlier one."""
        self._write_json(PENDING_PATCH_FILE, patch.to_dict())

    def clear_pending_patch(self) -> bool:
        """Drop the pending patch; True if there was one."""
        return self._remove(PENDING_PATCH_FILE)

    def accept(self, root: Path) -> AppliedPatch:
        """Apply the pending patch atomically after re-checking the file, then drop it.

        `NoPendingPatch` without one; `PatchConflict` (nothing written, the patch stays pending so
        it can be shown or discarded) when the file changed or the search text no longer matches.
        """
        with self._lock:
            patch = self.pending_patch()
            if patch is None:
                raise NoPendingPatch()
            applied = apply_patch(root, patch)
            self.clear_pending_patch()
            return applied

    def discard(self) -> PendingPatch:
        """Drop the pending patch and return it; `NoPendingPatch` without one."""
        with self._lock:
            patch = self.pending_patch()
            if patch is None:
                raise NoPendingPatch()
            self.clear_pending_patch()
            return patch

    # -- scan results and code index ----------------------------------------------------------------

    def save_scan(self, scan: Mapping[str, Any]) -> None:
        self._write_json(SCAN_FILE, dict(scan))

    def last_scan(self) -> dict[str, Any] | None:
        return self._read_json(SCAN_FILE)

    def update_index(self, entries: Mapping[str, Mapping[str, Any]]) -> None:
        """Merge file entries (`path -> {sha256, size, lines}`) into the code index."""
        with self._lock:
            index = self.index()
            index.update({path: dict(entry) for path, entry in entries.items()})
            self._write_json(INDEX_FILE, index)

    def index(self) -> dict[str, Any]:
        return self._read_json(INDEX_FILE) or {}

    # -- request cache ------------------------------------------------------------------------------

    def cache_get(self, key: str) -> Any | None:
        data = self._read_json(f"{CACHE_DIR}/{key}.json", invalid_ok=True)
        return None if data is None else data.get("value")

    def cache_put(self, key: str, value: Any) -> None:
        with self._lock:
            self._write_json(f"{CACHE_DIR}/{key}.json", {"value": value})
            self._prune_cache()

    # -- whole workspace ----------------------------------------------------------------------------

    def clear(self) -> None:
        """Delete everything in the workspace (what `/reset` does with it)."""
        with self._lock:
            try:
                shutil.rmtree(self.directory)
            except FileNotFoundError:
                return
            except OSError as exc:
                raise WorkspaceStorageError(f"Cannot clear {self.directory}: {exc.strerror or exc}.") from exc

    # -- files --------------------------------------------------------------------------------------

    def _read_json(self, name: str, *, invalid_ok: bool = False) -> dict[str, Any] | None:
        path = self.directory / name
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise WorkspaceStorageError(f"Cannot read {path}: {exc}; `autopatch-j reset` clears it.") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            if invalid_ok:
                return None
            raise WorkspaceStorageError(f"{path} is not valid JSON; `autopatch-j reset` clears it.") from exc
        if not isinstance(data, dict):
            if invalid_ok:
                return None
            raise WorkspaceStorageError(f"{path} is not a JSON object; `autopatch-j reset` clears it.")
        return data

    def _write_json(self, name: str, value: Mapping[str, Any]) -> None:
        path = self.directory / name
        with self._lock:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as handle:
                        json.dump(value, handle, ensure_ascii=False, indent=2, sort_keys=True)
                    os.replace(tmp_name, path)
                except BaseException:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp_name)
                    raise
            except OSError as exc:
                raise WorkspaceStorageError(f"Cannot write {path}: {exc.strerror or exc}.") from exc

    def _remove(self, name: str) -> bool:
        with self._lock:
            try:
                (self.directory / name).unlink()
            except FileNotFoundError:
                return False
            except OSError as exc:
                raise WorkspaceStorageError(f"Cannot remove {self.directory / name}: {exc.strerror or exc}.") from exc
            return True

    def _prune_cache(self) -> None:
        entries = sorted((self.directory / CACHE_DIR).glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        for stale in entries[:-MAX_CACHE_ENTRIES]:
            with contextlib.suppress(OSError):
                stale.unlink()
