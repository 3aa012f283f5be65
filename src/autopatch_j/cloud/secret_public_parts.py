"""The public part of a credential pair, read from its documented shape (`secret_public_parts.json`).

Many credentials come in two parts: an id that names the credential and a secret that proves it
(an AWS access key id and its secret access key, a Razorpay key id and its key secret, a Google
OAuth client id and its client secret), a publishable key beside a secret one, or a signature a
sender computes from a body with a shared secret (`X-Hub-Signature-256: sha256=…`). The public part
grants nothing by itself. The table holds, per family, the shape of its public part — a regular
expression the whole value matches, or an ISO-BMFF box type (`pssh`: a DRM system's initialisation
data) whose base64 the value starts with —, names the secret part, and gives `half`, a pattern that
finds the secret half (its key, `RAZORPAY_KEY_SECRET`, or its own shape, `sk_live_…`) written
beside it. An AWS access key id is not in the table: it names an account and a user, and alone it
stays redacted. `public_part(value)` says which family's public part a value is: the judge reads it as a
feature (`public_part`, also a signal that lets it overrule a key-word rule's span), so how much it
weighs beside its secret half is learned. `alone(view, start, end, family)`: no secret half within
`REACH` characters before or after the value in its paragraph — a public part alone is no secret
whatever names it (the judge scores it 0). Bounded work per call.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

__all__ = ["REACH", "PublicPart", "alone", "public_part", "public_parts"]

_KEYS = frozenset({"family", "public", "shape", "secret", "half"})
_BOX_KEYS = frozenset({"family", "public", "box", "secret", "half"})
# how far from a public part its secret half is looked for (a line or two of a config, a JSON object)
REACH = 160
# a public part is never longer than this (a signature of three digests, a client id)
_LONGEST = 256


@dataclass(frozen=True)
class PublicPart:
    """One family's public part: its `shape` (a full-match pattern) or `box` (a box type), and
    `half`, what finds its secret half beside it."""

    family: str
    public: str
    secret: str
    half: re.Pattern[str]
    shape: re.Pattern[str] | None = None
    box: bytes | None = None


@cache
def public_parts() -> tuple[PublicPart, ...]:
    """The table, checked: an entry with an unknown or missing key is an error."""
    raw = resources.files("autopatch_j.cloud").joinpath("secret_public_parts.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    if set(data) != {"about", "families"}:
        raise ValueError("secret_public_parts.json: expected exactly 'about' and 'families'")
    out = []
    for entry in data["families"]:
        if set(entry) == _KEYS:
            shape = re.compile(entry["shape"])
            out.append(PublicPart(entry["family"], entry["public"], entry["secret"], re.compile(entry["half"]), shape))
        elif set(entry) == _BOX_KEYS and len(entry["box"]) == 4:
            box = entry["box"].encode("ascii")
            out.append(
                PublicPart(entry["family"], entry["public"], entry["secret"], re.compile(entry["half"]), box=box)
            )
        else:
            raise ValueError(f"secret_public_parts.json: bad entry {entry!r}")
    return tuple(out)


def _box_type(value: str) -> bytes | None:
    """The type of the ISO-BMFF box whose base64 `value` starts with (a 32-bit size, then four
    letters), if it starts with one."""
    if not value.startswith("AAAA") or len(value) < 12:
        return None
    try:
        head = base64.b64decode(value[:12], validate=True)
    except (ValueError, binascii.Error):
        return None
    kind = head[4:8]
    return kind if kind.isalpha() else None


def public_part(value: str) -> str | None:
    """The family whose documented public part `value` is, or None."""
    if len(value) > _LONGEST:
        return None
    box = _box_type(value)
    for part in public_parts():
        if part.shape is not None and part.shape.fullmatch(value):
            return part.family
        if part.box is not None and box == part.box:
            return part.family
    return None


def alone(view: str, start: int, end: int, family: str) -> bool:
    """Whether no secret half of `family` (its `half` pattern) stands within `REACH` characters
    before `start` or after `end` in the same paragraph (no blank line between)."""
    low, high = max(0, start - REACH), min(len(view), end + REACH)
    blank = view.rfind("\n\n", low, start)
    low = low if blank == -1 else blank + 2
    blank = view.find("\n\n", end, high)
    high = high if blank == -1 else blank
    part = next(p for p in public_parts() if p.family == family)
    return part.half.search(view, low, start) is None and part.half.search(view, end, high) is None
