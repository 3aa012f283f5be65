"""What a training script read, written down beside the table it wrote: the inputs' fingerprint.

A trainer (`scripts/train_*.py`) imports this module before any package module and calls
`record(out, argv)` after writing its table. While a trainer runs as a script, an audit hook
(`sys.addaudithook`) collects every file it opens for reading and every directory it lists inside
the checkout; `record` then writes, as sorted JSON:

- `table`, `table_sha256`: the table written, and its bytes' digest;
- `script`, `argv`: the trainer and its arguments, so the fit can be redone (without `--out`, and
  without `--threshold`: a threshold the table holds is passed back by the check);
- `scripts`: the digest of every script of `scripts/` the run executed (its settings are constants);
- `files`: the digest of every data file read (the training files, the fixes, the lexicon …);
- `listings`: the names in every directory listed (a training file added is an input changed).

Python sources of the package are not inputs here: a change of feature code is caught by the full
refit (`scripts/check_refits.py`, a step of `.ci/run`), not by this fingerprint (docs/testing.md).

The fingerprint of a table in the package goes to `scripts/fingerprints/<table stem>.json` (outside
the wheel); of a table written elsewhere, beside it as `<table name>.inputs.json`.
`stale_sentence(fingerprint, table)` says what changed since, in one sentence naming the command to
rerun (`scripts/check_refits.py --inputs`, which the suite runs).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
FINGERPRINTS = SCRIPTS / "fingerprints"
PACKAGE = ROOT / "src" / "autopatch_j"
_SKIPPED_PARTS = frozenset({".venv", ".git", "__pycache__", ".tools"})
_CODE_SUFFIXES = frozenset({".py", ".pyc", ".pyi", ".so"})
_BUILT_SUFFIXES = (".egg-info", ".dist-info")

_read: set[Path] = set()
_listed: set[Path] = set()


def _inside(raw: object) -> Path | None:
    """`raw` (an audit event's path) as an absolute path inside the checkout, or None."""
    if not isinstance(raw, str | bytes | os.PathLike):
        return None
    path = Path(os.path.abspath(os.fsdecode(raw)))
    if not path.is_relative_to(ROOT):
        return None
    parts = path.relative_to(ROOT).parts
    if _SKIPPED_PARTS & set(parts) or any(part.endswith(_BUILT_SUFFIXES) for part in parts):
        return None  # the environment, not an input: the virtualenv, caches, install metadata
    return path


def _hook(event: str, args: tuple[Any, ...]) -> None:
    if event == "open":
        mode = args[1] if len(args) > 1 and isinstance(args[1], str) else "r"
        path = _inside(args[0])
        if path is not None and not set(mode) & set("wax+") and path.suffix not in _CODE_SUFFIXES:
            _read.add(path)
    elif event in ("os.listdir", "os.scandir") and args:
        path = _inside(args[0] if args[0] is not None else ".")
        if path is not None:
            _listed.add(path)


def _is_code_dir(path: Path) -> bool:
    """A directory Python's import system lists (a package, or `scripts/` on `sys.path`)."""
    return (path / "__init__.py").exists() or path == SCRIPTS or path == ROOT / "src"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


def fingerprint_path(table: Path) -> Path:
    """Where the fingerprint of `table` lives (module docstring)."""
    table = Path(os.path.abspath(table))
    if table.is_relative_to(PACKAGE):
        return FINGERPRINTS / f"{table.stem}.json"
    return table.with_name(f"{table.name}.inputs.json")


_NOT_RECORDED = ("--out", "--threshold")


def _recorded(argv: list[str]) -> list[str]:
    """`argv` without where the table went and the threshold the table itself holds."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in _NOT_RECORDED:
            skip = True
        elif not arg.startswith(tuple(f"{flag}=" for flag in _NOT_RECORDED)):
            kept.append(arg)
    return kept


def record(out: Path, argv: list[str] | None = None) -> Path | None:
    """Write the fingerprint of the table just written to `out`; returns its path. Nothing is
    written (None) when no trainer runs as a script: a test calling a trainer's `main` saw no reads."""
    if not _WATCHING:
        return None
    out = Path(os.path.abspath(out))
    main_file = Path(os.path.abspath(sys.modules["__main__"].__file__ or ""))
    loaded = [getattr(m, "__file__", None) for m in list(sys.modules.values())]
    executed = {main_file} | {Path(os.path.abspath(f)) for f in loaded if isinstance(f, str)}
    executed = {p for p in executed if p.parent == SCRIPTS}
    executed.discard(Path(__file__).resolve())
    target = fingerprint_path(out)
    files = {p for p in _read if p.is_file() and p not in (out, target)}
    listings = {p for p in _listed if p.is_dir() and not _is_code_dir(p)}
    data = {
        "table": _relative(out),
        "table_sha256": _sha(out),
        "script": _relative(main_file),
        "argv": _recorded(sys.argv[1:] if argv is None else argv),
        "scripts": {_relative(p): _sha(p) for p in sorted(executed) if p.is_relative_to(ROOT)},
        "files": {_relative(p): _sha(p) for p in sorted(files)},
        "listings": {_relative(p): sorted(os.listdir(p)) for p in sorted(listings)},
    }
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def changes(fingerprint: dict[str, Any], table: Path) -> list[str]:
    """What differs today from what the fit that wrote `table` read: one phrase per input."""
    found: list[str] = []
    if not table.is_file():
        return [f"{_relative(table)} is missing"]
    if _sha(table) != fingerprint["table_sha256"]:
        found.append(f"{_relative(table)} itself was changed after the fit")
    for name, digest in {**fingerprint["scripts"], **fingerprint["files"]}.items():
        path = ROOT / name
        if not path.is_file():
            found.append(f"{name} is gone")
        elif _sha(path) != digest:
            found.append(f"{name} changed")
    for name, names in fingerprint["listings"].items():
        path = ROOT / name
        now = sorted(os.listdir(path)) if path.is_dir() else []
        added, removed = sorted(set(now) - set(names)), sorted(set(names) - set(now))
        if added:
            found.append(f"{name}/ gained {', '.join(added)}")
        if removed:
            found.append(f"{name}/ lost {', '.join(removed)}")
    return found


def stale_sentence(fingerprint: dict[str, Any], table: Path) -> str | None:
    """None when `table` was fitted on today's inputs; else one sentence naming what changed and
    the command to rerun."""
    found = changes(fingerprint, table)
    if not found:
        return None
    command = " ".join(["python", fingerprint["script"], *fingerprint["argv"]])
    shown = "; ".join(found[:3]) + (f" (and {len(found) - 3} more)" if len(found) > 3 else "")
    return f"{fingerprint['table']} was not fitted on today's inputs ({shown}): rerun `{command}`."


def _watching() -> bool:
    """True when the program running is a training script of `scripts/` (`train_*.py`), not a test
    or another script importing one."""
    path = getattr(sys.modules.get("__main__"), "__file__", None)
    if not isinstance(path, str):
        return False
    main = Path(os.path.abspath(path))
    return main.parent == SCRIPTS and main.name.startswith("train_")


_WATCHING = _watching()
if _WATCHING:
    sys.addaudithook(_hook)
