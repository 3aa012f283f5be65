"""Scripts of the repository (bench/, scripts/) in tests: loaded as a module, or run over a session."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def load_script(relative: str) -> ModuleType:
    """The module of `ROOT / relative`, registered under its file name (dataclasses need that), with
    its folder on `sys.path` as when it runs as a script (its sibling imports, e.g. `refit_inputs`)."""
    path = ROOT / relative
    if str(path.parent) not in sys.path:
        sys.path.append(str(path.parent))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def run_over_session(
    relative: str, session: dict[str, Any], author: str, tmp_path: Path, *options: str
) -> subprocess.CompletedProcess[str]:
    """The script at `ROOT / relative` run with `--corpus` over a realistic part holding `session`
    alone (one batch of `author`), with `options`, in `tmp_path`."""
    folder = tmp_path / "part"
    folder.mkdir()
    batch = {"author": author, "batch": 1, "sessions": [session]}
    (folder / "batch.json").write_text(json.dumps(batch), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(ROOT / relative), "--corpus", str(folder), *options],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
