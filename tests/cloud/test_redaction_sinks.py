"""Key material found by where it goes: a literal handed to a keyed primitive (an HMAC, a signature,
a checksum, a credentials object) or joined into a digest's input, base64 that decodes to
`user:password`, a key id and its secret side by side on a command line, a bare value that runs
past an `&` in a config line, and a value under a name ending in a signing or seed word. The
algorithm names, messages, digests, identifiers and URLs beside them come back unchanged, and so do
lowercase words after a key, a stored secret's name, a public key after its label and a value kept
encrypted (`ENC[…]`). Cases live in `data/redaction_sinks.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cloud.redaction import redact

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "redaction_sinks.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_key_material_is_redacted_where_it_goes(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    assert [piece for piece in case["pieces"] if piece in out] == []
    assert case["survives"] in out
    assert redact(out) == out


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_key_material_is_redacted_in_json(case: dict[str, Any]) -> None:
    text = json.dumps({"output": case["text"]})
    out = redact(text)
    assert [piece for piece in case["pieces"] if json.dumps(piece)[1:-1] in out] == []


@pytest.mark.parametrize("case", DATA["lookalikes"], ids=[c["name"] for c in DATA["lookalikes"]])
def test_a_look_alike_beside_a_sink_is_unchanged(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == case["text"]
