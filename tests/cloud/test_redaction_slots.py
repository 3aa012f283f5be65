"""A value that sits where a credential sits is redacted whatever its prefix: after a camelCase key
and a space (`storePassword "…"`), after an English label before a corner bracket (`Secret「…」`), a
long generated key that starts with `$`, the value after a flag naming a secret in an argv list, and
a private key written as bare base64 DER (PKCS#8, SEC1), whole or cut at a fixed column. Certificates,
public keys, names and references beside them come back unchanged. The password of an auth pair
(`auth=("user", "…")`, `HTTPBasicAuth("user", "…")`) is redacted. Cases live in
`data/redaction_slots.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cloud.redaction import redact

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "redaction_slots.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_a_value_in_a_credential_slot_is_redacted(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    assert [piece for piece in case["pieces"] if piece in out] == []
    assert case["survives"] in out
    assert redact(out) == out


@pytest.mark.parametrize("case", DATA["lookalikes"], ids=[c["name"] for c in DATA["lookalikes"]])
def test_a_look_alike_beside_a_slot_is_unchanged(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == case["text"]
