"""A private key or a key store pasted as bare base64 DER under a name that says nothing of a
secret (`RELEASE_BUNDLE_B64=…`, a CI variable dump, a JSON field), through the public `redact`:
the bytes themselves show it — the outer SEQUENCE starts with a private key's or a PKCS#12 store's
version — and it is redacted on one line and hard-wrapped over several. A certificate or a public
key in the same place (its outer SEQUENCE starts with another SEQUENCE) comes back unchanged."""

from __future__ import annotations

import base64
import random

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact


def der_blob(head: bytes, size: int, seed: int) -> str:
    """Base64 of a DER SEQUENCE of `size` bytes whose content starts with `head`, the rest random."""
    rng = random.Random(seed)
    body = head + bytes(rng.randrange(256) for _ in range(size - len(head)))
    return base64.b64encode(b"\x30\x82" + len(body).to_bytes(2, "big") + body).decode()


KEY_STORE = der_blob(b"\x02\x01\x03\x30\x82\x05\x00\x06\x09", 700, 7)  # PKCS#12, version 3
PRIVATE_KEY = der_blob(b"\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48", 600, 11)  # PKCS#8, version 0
CERTIFICATE = der_blob(b"\x30\x82\x03\x10\xa0\x03\x02\x01\x02", 700, 13)  # a tbsCertificate first


def placed(blob: str) -> list[str]:
    return [
        f"RELEASE_BUNDLE_B64={blob}",
        f"export ORCHARD_UPLOAD_BUNDLE='{blob}'",
        f'{{"name":"upload-bundle","data":"{blob}","scope":"release"}}',
    ]


def folded(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


@pytest.mark.parametrize("blob", [KEY_STORE, PRIVATE_KEY], ids=["pkcs12", "pkcs8"])
def test_a_key_store_in_bare_base64_is_redacted_whatever_names_it(blob: str) -> None:
    for text in placed(blob):
        out = redact(text)
        assert blob[8:40] not in out and REDACTED in out, out
        wrapped = folded(text, 64)
        out = redact(wrapped)
        assert all(row[-16:] not in out for row in wrapped.split("\n")[:-1] if blob.find(row[-16:]) > 0), out


def test_a_certificate_in_bare_base64_comes_back_unchanged() -> None:
    for text in placed(CERTIFICATE):
        assert redact(text) == text
