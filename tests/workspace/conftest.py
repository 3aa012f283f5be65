from __future__ import annotations

from pathlib import Path

import pytest

from autopatch_j.workspace.store import ReviewWorkspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def f(x):\n    return eval(x)\n", encoding="utf-8")
    return project


@pytest.fixture
def workspace(root: Path) -> ReviewWorkspace:
    return ReviewWorkspace(directory=root / ".autopatch-j" / "workspace")
