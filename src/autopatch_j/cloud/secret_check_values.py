"""A symmetric key printed in clear beside what only a key has: its check value or its form under a
master key (C-24).

A payment HSM's keys (a zone master key's components, a terminal PIN key, a MAC key) are written as
16, 32 or 48 hex digits — a DES key of one, two or three lengths —, the shape of a digest too. What
tells the key from a digest is the context the family shares: a key is printed beside its key check
value (six hex digits, `MAK_KCV=7C1E0A`, `Key check value: 3A9F0C`; beside a key in capitals, as an
HSM prints it, 4 to 10 — the 2 to 5 bytes a scheme keeps, `KCV : 6ad3a280`) or beside itself encrypted
under the HSM's master key (a key scheme's letter and hex, `under-lmk=U8F90…`, `Encrypted key:
U6b1a…`). `beside_check_value` reads that: the value's neighbouring lines (`NEIGHBOUR_LINES` each
way, at most `LINE_REACH` characters apart) hold a field whose whole value is one of them. The word
naming the field decides nothing; the judge weighs the signal with the value's shape.
"""

from __future__ import annotations

import re

__all__ = ["NEIGHBOUR_LINES", "beside_check_value"]

NEIGHBOUR_LINES = 3
LINE_REACH = 160
# a DES key of one, two or three lengths, in one case
_KEY_HEX = re.compile(r"(?:[0-9A-F]{16}){1,3}|(?:[0-9a-f]{16}){1,3}")
# a field's whole value that only a key has beside it: a check value (six hex digits, a digit and a
# letter among them) or the key under a master key (a key scheme's letter and 16-48 hex digits)
_CHECK_FIELD = re.compile(
    r"[=:：][ \t]*+[\"']?(?:(?=[0-9A-Fa-f]{0,5}[A-Fa-f])(?=[A-Fa-f]{0,5}[0-9])[0-9A-Fa-f]{6}|[UTXY][0-9A-Fa-f]{16,48})"
    r"[\"']?,?[ \t\r]*+\Z"
)
# beside a key printed as an HSM prints it, in capitals: a check value of any length a scheme takes
# (2 to 5 bytes, 4 to 10 hex digits); lowercase hex beside a short hex field is a digest beside a
# commit (`sha256: <hex>` / `rev: 3fa9c1e`)
_UPPER_KEY = re.compile(r"(?:[0-9A-F]{16}){1,3}")
_ANY_CHECK_FIELD = re.compile(
    r"[=:：][ \t]*+[\"']?(?:(?=[0-9A-Fa-f]{0,9}[A-Fa-f])(?=[A-Fa-f]{0,9}[0-9])[0-9A-Fa-f]{4,10}"
    r"|[UTXY][0-9A-Fa-f]{16,48})[\"']?,?[ \t\r]*+\Z"
)


def beside_check_value(view: str, start: int, end: int) -> bool:
    """`view[start:end]` is hex of a DES key's length and a line within `NEIGHBOUR_LINES` before or
    after its own ends in a field holding a check value or a key under a master key."""
    if _KEY_HEX.fullmatch(view, start, end) is None:
        return False
    line_start = view.rfind("\n", max(0, start - LINE_REACH), start) + 1
    line_end = view.find("\n", end, end + LINE_REACH)
    if line_end == -1:
        line_end = len(view)
    low = max(0, line_start - NEIGHBOUR_LINES * LINE_REACH)
    high = min(len(view), line_end + NEIGHBOUR_LINES * LINE_REACH)
    before = view[low : max(low, line_start - 1)].split("\n")[-NEIGHBOUR_LINES:] if line_start > 0 else []
    after = view[line_end + 1 : high].split("\n")[:NEIGHBOUR_LINES] if line_end < len(view) else []
    check = _ANY_CHECK_FIELD if _UPPER_KEY.fullmatch(view, start, end) else _CHECK_FIELD
    return any(check.search(line) is not None for line in (*before, *after) if line)
