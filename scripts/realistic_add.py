"""Add realistic-session batch files to `eval/realistic/` and rewrite its manifest.

Usage: python scripts/realistic_add.py [--replace] FILE [FILE ...]

Each file is validated by the project's loader (strict schema, exact quotes), copied to
`eval/realistic/dev/<author>/<file name>` unchanged (byte for byte), and listed in
`eval/realistic/manifest.json` with its sha256 and author. Re-adding a file with the same name and
bytes is a no-op; different bytes under an existing name are refused (we never edit gold in place)
unless `--replace` is given: an author's own revision of a batch, taken whole — every figure on the
part is then measured again.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from autopatch_j.memory.errors import InvalidInputError
from autopatch_j.quality.realistic import MANIFEST, _read_batch, sha256_of

ROOT = Path(__file__).resolve().parent.parent / "eval" / "realistic"


def main(argv: list[str]) -> int:
    replace = "--replace" in argv
    argv = [a for a in argv if a != "--replace"]
    if not argv:
        print(__doc__.strip().splitlines()[2])
        return 2
    manifest_path = ROOT / MANIFEST
    entries = json.loads(manifest_path.read_text(encoding="utf-8"))["files"] if manifest_path.is_file() else []
    known = {e["file"]: e for e in entries}
    for name in argv:
        path = Path(name)
        try:
            batch = _read_batch(path)
        except InvalidInputError as exc:
            print(f"error: {exc}")
            return 1
        rel = f"dev/{batch.author}/{path.name}"
        digest = sha256_of(path)
        if rel in known and replace and known[rel]["sha256"] != digest:
            entries.remove(known.pop(rel))
        if rel in known:
            if known[rel]["sha256"] != digest:
                print(f"error: {rel} is already in the part with other bytes; gold is not edited in place")
                return 1
            continue
        target = ROOT / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        entry = {"file": rel, "sha256": digest, "author": batch.author, "part": "dev"}
        entries.append(entry)
        known[rel] = entry
        print(f"added {rel} ({len(batch.sessions)} sessions, sha256 {digest[:12]}…)")
    entries.sort(key=lambda e: e["file"])
    ROOT.mkdir(parents=True, exist_ok=True)
    manifest_path.write_text(json.dumps({"files": entries}, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
