"""A value placed where a credential goes in an ops config, a table or a command is redacted with no
trigger word before it: a key named by an abbreviation of a secret's words (`cs`, `KS`, `appsec`,
`bindpw`), a login whose password is empty (its user is the key), a signed token after a short
prefix, a key file printed under a root prompt, a password option after a user option, a password
set in SQL, a secret after its encryption type, a literal piped into a login that reads stdin, a
sealed cookie (base64 of a JSON document carrying a MAC). Public values placed the same way come back
unchanged: a public key or a documentation example in a form body, a template's slot glued to a
host, paths, a label said to be absent, a cache key, placeholders and references, a port, a
publishable token. Cases live in `data/redaction_placements.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cloud.redaction import redact

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "redaction_placements.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_a_value_placed_where_a_credential_goes_is_redacted(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    assert [piece for piece in case["pieces"] if piece in out] == []
    assert case["survives"] in out
    assert redact(out) == out


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_a_value_placed_where_a_credential_goes_is_redacted_in_json(case: dict[str, Any]) -> None:
    text = json.dumps({"output": case["text"]}, ensure_ascii=False)
    out = redact(text)
    assert [piece for piece in case["pieces"] if json.dumps(piece, ensure_ascii=False)[1:-1] in out] == []


@pytest.mark.parametrize("case", DATA["lookalikes"], ids=[c["name"] for c in DATA["lookalikes"]])
def test_a_public_value_placed_the_same_way_is_unchanged(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == case["text"]
