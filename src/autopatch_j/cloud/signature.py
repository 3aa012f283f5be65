"""Deployment safety (C-44): a signature of the code a worker runs.

The signature is a sha256 over every module of the worker path and the migrations. The worker path is
derived from the package, not listed by hand (a hand list drifted silently): every `.py` file under
`autopatch_j/cloud/`, in every subpackage, except the HTTP side that only `cloud serve` runs
(`HTTP_ONLY`: `app.py`, `api/`, `console/`). A new module is on the worker path the moment it exists.
A worker computes the signature at start and again after each task; when the deployed code changed
it finishes the current task and exits cleanly, so its supervisor restarts it on the new code.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent

#: Paths (relative to the package, POSIX) that only the HTTP server runs: a file equal to one of
#: them, or under a directory named by one ending in `/`, is left out of the worker path.
HTTP_ONLY = ("app.py", "api/", "console/")


def _http_only(relative: str) -> bool:
    return any(relative == entry or (entry.endswith("/") and relative.startswith(entry)) for entry in HTTP_ONLY)


def worker_code_paths(package_dir: Path = PACKAGE_DIR) -> list[Path]:
    """The files whose change must restart a worker: every module of the package but the HTTP side."""
    return sorted(
        path
        for path in package_dir.rglob("*.py")
        if "__pycache__" not in path.parts and not _http_only(path.relative_to(package_dir).as_posix())
    )


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
