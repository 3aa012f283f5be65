"""Keep `eval/corpus/manifest.json` in step with the corpus files beside it.

    .venv/bin/python scripts/corpus_manifest.py          # rewrite every listed file's sha256
    .venv/bin/python scripts/corpus_manifest.py --check  # exit 1 when a sha256 is stale or a file unlisted

Only the sha256 is computed; author, part, use, account and first_look are written by hand (a new
file is added as a new entry, by hand, with what is known about it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parents[1] / "eval" / "corpus"
MANIFEST = FOLDER / "manifest.json"


def problems(folder: Path = FOLDER) -> list[str]:
    """What differs between the manifest and the files ([] when they agree)."""
    data = json.loads((folder / MANIFEST.name).read_text(encoding="utf-8"))
    listed = {entry["file"]: entry["sha256"] for entry in data["files"]}
    names = sorted(p.name for p in folder.glob("*.json") if p.name != MANIFEST.name)
    found = [f"{name} is not listed" for name in names if name not in listed]
    for name, digest in listed.items():
        path = folder / name
        if not path.is_file():
            found.append(f"{name} is listed but missing")
        elif hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            found.append(f"{name}: sha256 differs from the manifest")
    return found


def refresh(folder: Path = FOLDER) -> int:
    """Rewrite the sha256 of every listed file that exists; returns how many changed."""
    path = folder / MANIFEST.name
    data = json.loads(path.read_text(encoding="utf-8"))
    changed = 0
    for entry in data["files"]:
        if not (folder / entry["file"]).is_file():
            continue
        digest = hashlib.sha256((folder / entry["file"]).read_bytes()).hexdigest()
        changed += digest != entry["sha256"]
        entry["sha256"] = digest
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report; exit 1 when the manifest is stale")
    args = parser.parse_args(argv)
    if args.check:
        found = problems()
        print("\n".join(found) if found else f"{MANIFEST} agrees with its files")
        return 1 if found else 0
    print(f"{refresh()} sha256 refreshed in {MANIFEST}")
    unlisted = [p for p in problems() if p.endswith("is not listed")]
    if unlisted:
        print("add by hand: " + "; ".join(unlisted), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
