"""`ReviewWorkspace`: everything lives under `.autopatch-j/workspace/`, written atomically."""

from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.workspace.errors import NoPendingPatch, PatchConflict, WorkspaceStorageError
from autopatch_j.workspace.patch import propose
from autopatch_j.workspace.store import MAX_CACHE_ENTRIES, PENDING_PATCH_FILE, ReviewWorkspace, cache_key


def all_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_a_fresh_workspace_is_empty_and_creates_nothing(root: Path, workspace: ReviewWorkspace) -> None:
    assert workspace.pending_patch() is None and workspace.last_scan() is None and workspace.index() == {}
    assert not workspace.directory.exists()


def test_everything_is_stored_under_the_workspace_directory(root: Path, workspace: ReviewWorkspace) -> None:
    before = set(all_files(root))
    workspace.set_pending_patch(propose(root, path="src/app.py", search="eval(x)", replace="int(x)", explanation=""))
    workspace.save_scan({"findings": []})
    workspace.update_index({"src/app.py": {"sha256": "abc", "lines": 2}})
    workspace.cache_put(cache_key("semgrep", "x"), {"status": "ok"})
    created = set(all_files(root)) - before
    assert created and all(workspace.directory in p.parents for p in created)
    workspace.clear()
    assert set(all_files(root)) == before


def test_the_pending_patch_round_trips_and_is_one_at_a_time(root: Path, workspace: ReviewWorkspace) -> None:
    first = propose(root, path="src/app.py", search="eval(x)", replace="int(x)", explanation="a")
    second = propose(root, path="src/app.py", search="eval(x)", replace="float(x)", explanation="b")
    workspace.set_pending_patch(first)
    workspace.set_pending_patch(second)
    assert ReviewWorkspace(directory=workspace.directory).pending_patch() == second
    assert workspace.clear_pending_patch() is True
    assert workspace.clear_pending_patch() is False


def test_accept_applies_and_drops_the_patch_but_keeps_it_on_conflict(root: Path, workspace: ReviewWorkspace) -> None:
    with pytest.raises(NoPendingPatch):
        workspace.accept(root)
    patch = propose(root, path="src/app.py", search="eval(x)", replace="int(x)", explanation="")
    workspace.set_pending_patch(patch)
    (root / "src" / "app.py").write_text("def f(x):\n    return eval(x)\n\n", encoding="utf-8")
    with pytest.raises(PatchConflict):
        workspace.accept(root)
    assert workspace.pending_patch() == patch
    assert workspace.discard() == patch
    with pytest.raises(NoPendingPatch):
        workspace.discard()


def test_a_corrupt_pending_patch_file_is_a_storage_error_naming_the_fix(workspace: ReviewWorkspace) -> None:
    workspace.directory.mkdir(parents=True)
    (workspace.directory / PENDING_PATCH_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(WorkspaceStorageError, match="autopatch-j reset"):
        workspace.pending_patch()
    (workspace.directory / PENDING_PATCH_FILE).write_text('{"path": 1}', encoding="utf-8")
    with pytest.raises(WorkspaceStorageError, match="patch discard"):
        workspace.pending_patch()


def test_the_request_cache_is_bounded_and_tolerates_corrupt_entries(workspace: ReviewWorkspace) -> None:
    for n in range(MAX_CACHE_ENTRIES + 10):
        workspace.cache_put(cache_key(str(n)), n)
    assert len(list((workspace.directory / "cache").glob("*.json"))) == MAX_CACHE_ENTRIES
    key = cache_key("broken")
    (workspace.directory / "cache" / f"{key}.json").write_text("garbage", encoding="utf-8")
    assert workspace.cache_get(key) is None
    assert workspace.cache_get(cache_key("missing")) is None


def test_the_index_merges_entries(workspace: ReviewWorkspace) -> None:
    workspace.update_index({"a.py": {"sha256": "1", "lines": 1}})
    workspace.update_index({"b.py": {"sha256": "2", "lines": 2}, "a.py": {"sha256": "3", "lines": 1}})
    assert workspace.index() == {"a.py": {"sha256": "3", "lines": 1}, "b.py": {"sha256": "2", "lines": 2}}
