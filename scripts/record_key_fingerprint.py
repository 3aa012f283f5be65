"""Record which search keys the current key version derives, as the fingerprint of a fixed sample.

A store rebuilds its search index when the key version that built it (`memory/rekey.py`,
`KEY_VERSION`) is not the code's, so every change of the keys needs a bump. This script derives the
keys of the fixed sample `tests/memory/data/key_sample.json` through the functions that build the
index and the question keys (`index.item_weights`: each memory's keys and stored weights;
`index.query_terms`: each question's keys and the shorter words it also asks for) and hashes them.
The learned and thesaurus alternatives of a question are left out: they are looked up in the index,
never stored in it, and their tables are refitted without changing what any store holds.

`tests/memory/data/key_fingerprint.json` keeps one fingerprint per key version. The script adds the
current version's, and refuses to change the fingerprint of a version already recorded (bump
`KEY_VERSION` first); `tests/memory/test_key_version.py` fails while the record and the code disagree.

    python scripts/record_key_fingerprint.py            # record (or confirm) KEY_VERSION's fingerprint
    python scripts/record_key_fingerprint.py --check    # say whether the record and the code agree
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from autopatch_j.memory.index import item_weights, query_terms
from autopatch_j.memory.rekey import KEY_VERSION

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "memory" / "data" / "key_sample.json"
RECORD = ROOT / "tests" / "memory" / "data" / "key_fingerprint.json"
COMMAND = "python scripts/record_key_fingerprint.py"
WHERE = "KEY_VERSION in src/autopatch_j/memory/rekey.py"


class Refused(Exception):
    """The record cannot take this fingerprint (a version's keys never change once recorded)."""


def sample_keys(sample: dict[str, Any]) -> dict[str, list[Any]]:
    """The keys of the sample: each memory's (key, stored weight) pairs, sorted, and each question's
    (key, shorter words) pairs in the question's order."""
    items = [
        sorted(
            item_weights(
                title=item["title"],
                content=item["content"],
                aliases=item.get("aliases", ()),
                keywords=item.get("keywords", ()),
                subject=item.get("subject", ""),
            ).items()
        )
        for item in sample["items"]
    ]
    questions = [[[term.key, list(term.parts)] for term in query_terms(question)] for question in sample["questions"]]
    return {"items": items, "questions": questions}


def fingerprint(sample: dict[str, Any]) -> str:
    """The SHA-256 of the sample's keys, as canonical JSON."""
    text = json.dumps(sample_keys(sample), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _latest(record: dict[str, Any]) -> dict[str, Any]:
    return max(record["versions"], key=lambda entry: entry["version"])


def verdict(record: dict[str, Any], *, version: int, found: str) -> str | None:
    """None when the newest recorded version is `version` with the fingerprint `found`; otherwise the
    one sentence that says what to do."""
    latest = _latest(record)
    if version == latest["version"] and found == latest["fingerprint"]:
        return None
    if version == latest["version"]:
        return (
            f"The search keys of the sample changed under key version {version}: bump {WHERE} and re-record "
            f"with `{COMMAND}`."
        )
    if version > latest["version"]:
        return (
            f"Key version {version} has no recorded fingerprint (the record ends at {latest['version']}): "
            f"re-record with `{COMMAND}`."
        )
    return (
        f"Key version {version} is older than the recorded {latest['version']}: a key version only goes up ({WHERE})."
    )


def recorded(record: dict[str, Any], *, version: int, found: str) -> dict[str, Any]:
    """The record with `found` as `version`'s fingerprint; `Refused` when that would rewrite a
    recorded version or go back."""
    versions = {entry["version"]: entry["fingerprint"] for entry in record["versions"]}
    if version in versions and versions[version] != found:
        raise Refused(f"Key version {version} is recorded with other keys: bump {WHERE} first, then re-record.")
    if version < max(versions, default=version):
        raise Refused(f"Key version {version} is older than the recorded {max(versions)}; nothing was written.")
    versions[version] = found
    return {"versions": [{"version": v, "fingerprint": f} for v, f in sorted(versions.items())]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="only say whether the record and the code agree")
    parser.add_argument("--record", type=Path, default=RECORD, help="the record file (default: the test data's)")
    args = parser.parse_args(argv)
    found = fingerprint(json.loads(SAMPLE.read_text(encoding="utf-8")))
    record = json.loads(args.record.read_text(encoding="utf-8")) if args.record.exists() else {"versions": []}
    if args.check:
        problem = verdict(record, version=KEY_VERSION, found=found) if record["versions"] else "Nothing is recorded."
        print(problem or f"Key version {KEY_VERSION}: {found}, as recorded.")
        return 1 if problem else 0
    try:
        new = recorded(record, version=KEY_VERSION, found=found)
    except Refused as exc:
        print(exc, file=sys.stderr)
        return 1
    args.record.write_text(json.dumps(new, indent=2) + "\n", encoding="utf-8")
    print(f"Key version {KEY_VERSION}: {found}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
