"""Deployment safety (C-44): a signature of the code a worker runs.

The signature is a sha256 over every module of the worker path, the auto-memory module included
(the seed's v1 left it out), and the migrations. A worker computes it at start and again after each
task; when the deployed code changed it finishes the current task and exits cleanly, so its
supervisor restarts it on the new code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent

WORKER_PATH_MODULES = (
    "audit",
    "auto_memory",
    "clock",
    "conversation_control",  # C-43 (issue 14)
    "db",
    "errors",
    "executors",
    "injection",
    "memories",
    "memory_costs",  # C-40 (issue 14)
    "memory_settings",
    "process_guard",
    "model_memory",  # C-40 (issue 14)
    "model_memory_input",  # C-40 (issue 14)
    "projects",
    "queue",
    "quotas",
    "records",
    "redaction",
    "schema",
    "secret_rules",
    "settings",
    "signature",
    "tables",
    "tasks",
    "users",
    "worker",
)


def worker_code_paths(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """The files whose change must restart a worker."""
    paths = [package_dir / f"{name}.py" for name in WORKER_PATH_MODULES]
    paths += sorted((package_dir / "migrations" / "versions").glob("*.py"))
    return paths


def code_signature(paths: Iterable[Path]) -> str:
    """sha256 over (name, content) of each file; a missing file counts as a change too."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(str(path).encode("utf-8") + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"\0missing\0")
        digest.update(b"\0")
    return digest.hexdigest()


def signer(paths: Iterable[Path] | None = None) -> Callable[[], str]:
    """A zero-argument function computing the current signature of `paths` (default: the worker path)."""
    fixed = list(paths) if paths is not None else worker_code_paths()
    return lambda: code_signature(fixed)
