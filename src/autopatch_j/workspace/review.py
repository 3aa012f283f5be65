"""The review workspace's public names, in one import: `ReviewWorkspace` and the patch values."""

from __future__ import annotations

from autopatch_j.workspace.patch import AppliedPatch, PendingPatch, apply_patch, propose
from autopatch_j.workspace.store import ReviewWorkspace

__all__ = ["AppliedPatch", "PendingPatch", "ReviewWorkspace", "apply_patch", "propose"]
