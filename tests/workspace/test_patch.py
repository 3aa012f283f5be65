"""The pending patch (H-22): bound to the file's content; apply re-checks and writes atomically."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from autopatch_j.workspace.errors import PatchConflict, PathOutsideProject
from autopatch_j.workspace.patch import PendingPatch, apply_patch, patch_state, propose, sha256_bytes

APP = "src/app.py"


def make(root: Path) -> PendingPatch:
    return propose(root, path=APP, search="eval(x)", replace="int(x)", explanation="no eval")


def test_propose_binds_the_edit_to_the_current_bytes(root: Path) -> None:
    patch = make(root)
    assert patch.path == APP
    assert patch.file_sha256 == sha256_bytes((root / APP).read_bytes())
    assert patch_state(root, patch) == "applies"
    assert patch.diff().splitlines() == [f"--- a/{APP}", f"+++ b/{APP}", "-eval(x)", "+int(x)"]


@pytest.mark.parametrize(
    ("search", "replace"),
    [("missing text", "x"), ("x", "y"), ("", "y"), ("eval(x)", "eval(x)")],  # "x" occurs several times
)
def test_propose_refuses_edits_that_are_not_exactly_one_change(root: Path, search: str, replace: str) -> None:
    with pytest.raises(PatchConflict):
        propose(root, path=APP, search=search, replace=replace, explanation="")


@pytest.mark.parametrize(
    "path",
    [
        "../x.py",
        "/etc/passwd",
        ".autopatch-j/memory.db",
        "src/app.py\x00",
        # On a case-insensitive file system (macOS, Windows) these ARE the state directory (issue 9.12).
        ".AUTOPATCH-J/memory.db",
        ".Autopatch-J/exports/x.json",
        ".autopatch-j./memory.db",
    ],
)
def test_propose_refuses_paths_outside_the_project(root: Path, path: str) -> None:
    with pytest.raises(PathOutsideProject):
        propose(root, path=path, search="a", replace="b", explanation="")


def test_apply_writes_the_edit_and_keeps_the_file_mode(root: Path) -> None:
    target = root / APP
    target.chmod(0o640)
    applied = apply_patch(root, make(root))
    assert target.read_text(encoding="utf-8") == "def f(x):\n    return int(x)\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert applied.new_sha256 == sha256_bytes(target.read_bytes())
    assert sorted(p.name for p in target.parent.iterdir()) == ["app.py"]  # no temporary file left


def test_apply_refuses_a_file_changed_since_the_proposal_and_writes_nothing(root: Path) -> None:
    patch = make(root)
    changed = "def f(x):\n    return eval(x)  # still here\n"
    (root / APP).write_text(changed, encoding="utf-8")
    assert patch_state(root, patch) == "file changed"
    with pytest.raises(PatchConflict, match="changed since"):
        apply_patch(root, patch)
    assert (root / APP).read_text(encoding="utf-8") == changed


def test_apply_refuses_a_deleted_file(root: Path) -> None:
    patch = make(root)
    (root / APP).unlink()
    assert patch_state(root, patch) == "file missing"
    with pytest.raises(PatchConflict):
        apply_patch(root, patch)


def test_apply_refuses_a_file_swapped_for_a_symlink_to_outside(root: Path, tmp_path: Path) -> None:
    patch = make(root)
    outside = tmp_path / "outside.py"
    outside.write_bytes((root / APP).read_bytes())
    (root / APP).unlink()
    (root / APP).symlink_to(outside)
    with pytest.raises(PatchConflict):
        apply_patch(root, patch)
    assert outside.read_text(encoding="utf-8") == "def f(x):\n    return eval(x)\n"


def test_apply_refuses_a_forged_patch_whose_search_no_longer_occurs_once(root: Path) -> None:
    forged = PendingPatch(
        path=APP, search="x", replace="y", file_sha256=sha256_bytes((root / APP).read_bytes()), explanation=""
    )
    assert patch_state(root, forged) == "does not match"
    with pytest.raises(PatchConflict):
        apply_patch(root, forged)


def test_a_failed_write_leaves_the_original_file_and_no_temporary_file(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = (root / APP).read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("autopatch_j.workspace.patch.os.replace", broken_replace)
    with pytest.raises(OSError):
        apply_patch(root, make(root))
    monkeypatch.undo()
    assert (root / APP).read_bytes() == before
    assert os.listdir(root / "src") == ["app.py"]


def test_a_patch_survives_a_round_trip_through_its_dict(root: Path) -> None:
    patch = make(root)
    assert PendingPatch.from_dict(patch.to_dict()) == patch
    with pytest.raises(ValueError):
        PendingPatch.from_dict({**patch.to_dict(), "extra": "x"})
