#!/usr/bin/env python3
"""Check a held-out secrets file.

    python3 check.py secrets.json
The file: {"author": str, "secrets": [...], "lookalikes": [...]}.
Each secret: id, family, form (plain | json_escaped | url_encoded | wrapped | quoted | zh_labelled),
text, must_not_contain (non-empty list of exact substrings of text, each >= 6 characters).
Each look-alike: id, text (holds no secret; must come back unchanged from redaction).
Also: ids unique; every family present in all six forms; no look-alike matches the C-24 trigger regex
below (a look-alike the spec itself asks to redact is not a look-alike).
"""

import json
import re
import sys
from collections import defaultdict

FORMS = ("plain", "json_escaped", "url_encoded", "wrapped", "quoted", "zh_labelled")
C24 = re.compile(
    r"(?i)(?:api[_-]?key|password|secret|token|credential)\s*[:=]\s*['\"]?[^\s'\"]{4,}"
    r"|authorization\s*:|bearer\s+[A-Za-z0-9._~+/-]{8,}|\b(?:sk-|ghp_|gho_|xox[a-z]-)[A-Za-z0-9_-]{6,}"
)


def main(path):
    p = []
    try:
        with open(path, encoding="utf-8") as handle:
            doc = json.load(handle)
    except (OSError, ValueError) as exc:
        print(f"{path}: cannot read: {exc}")
        return 1
    if not isinstance(doc, dict) or set(doc) != {"author", "secrets", "lookalikes"}:
        print(f"{path}: top level must be exactly author, secrets, lookalikes")
        return 1
    ids = set()
    forms = defaultdict(set)
    for i, s in enumerate(doc["secrets"]):
        w = s.get("id", f"secret #{i}") if isinstance(s, dict) else f"secret #{i}"
        if not isinstance(s, dict) or set(s) != {"id", "family", "form", "text", "must_not_contain"}:
            p.append(f"{w}: fields must be exactly id, family, form, text, must_not_contain")
            continue
        if s["id"] in ids:
            p.append(f"{w}: duplicate id")
        ids.add(s["id"])
        if s["form"] not in FORMS:
            p.append(f"{w}: form must be one of {FORMS}")
        forms[s["family"]].add(s["form"])
        pieces = s["must_not_contain"]
        if not isinstance(pieces, list) or not pieces:
            p.append(f"{w}: must_not_contain must be a non-empty list")
            continue
        for piece in pieces:
            if not isinstance(piece, str) or len(piece) < 6:
                p.append(f"{w}: piece {piece!r} shorter than 6 characters")
            elif piece not in s["text"]:
                p.append(f"{w}: piece {piece[:40]!r} is not an exact substring of text")
    for fam, got in sorted(forms.items()):
        if set(FORMS) - got:
            p.append(f"family {fam}: missing forms {sorted(set(FORMS) - got)}")
    for i, look in enumerate(doc["lookalikes"]):
        w = look.get("id", f"lookalike #{i}") if isinstance(look, dict) else f"lookalike #{i}"
        if not isinstance(look, dict) or set(look) != {"id", "text"}:
            p.append(f"{w}: fields must be exactly id, text")
            continue
        if look["id"] in ids:
            p.append(f"{w}: duplicate id")
        ids.add(look["id"])
        m = C24.search(look["text"])
        if m:
            hit = m.group(0)[:40]
            p.append(f"{w}: matches a C-24 trigger ({hit!r}); the spec redacts that, so it is no look-alike")
    if p:
        print(f"{path}: {len(p)} problem(s)")
        for x in p[:200]:
            print("  " + x)
        return 1
    print(f"{path}: ok ({len(doc['secrets'])} secrets in {len(forms)} families, {len(doc['lookalikes'])} look-alikes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
