"""The pieces a line wrap leaves of a secret: what the wrapped-secret tests require to be gone."""

from __future__ import annotations


def pieces_of(secret: str, wrapped: str) -> list[str]:
    """The pieces of `secret` as the wrap left them on their lines (the longest run of at least three
    characters of it on each line that holds one)."""
    out = []
    for line in wrapped.split("\n"):
        for size in range(len(secret), 2, -1):
            found = [secret[i : i + size] for i in range(len(secret) - size + 1) if secret[i : i + size] in line]
            if found:
                out.append(found[0])
                break
    return out
