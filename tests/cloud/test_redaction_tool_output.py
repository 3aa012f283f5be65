"""Secrets in what a coding agent's tools print back (issue 30): log lines that start with
timestamps, a URL-encoded diff, a CSV export, an argv list, a value alone on the line after its
announcement, the default of an environment lookup, base64 of a token with an empty user or of a
JSON document that carries a key, a literal handed to a cmdlet, a sign-in link's token, a key wrapped
behind a hanging indent, letter-group app passwords. The look-alikes come from the same outputs:
documentation example keys and config values in timestamped logs, templates that name their own
slots, checksums and a public key under a line that says "this is the output", a test vector's hex
of a word, a header's name, an environment variable read in code, markup between two attributes, a
commit id, a resource name, a public app id. Cases live in `data/redaction_tool_output.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from autopatch_j.cloud.redaction import redact

DATA: dict[str, Any] = json.loads(
    (Path(__file__).parent / "data" / "redaction_tool_output.json").read_text(encoding="utf-8")
)


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_a_secret_in_tool_output_is_redacted(case: dict[str, Any]) -> None:
    out = redact(case["text"])
    assert [piece for piece in case["pieces"] if piece in out] == []
    assert case["survives"] in out
    assert redact(out) == out


@pytest.mark.parametrize("case", DATA["secrets"], ids=[c["name"] for c in DATA["secrets"]])
def test_a_secret_in_tool_output_is_redacted_in_json(case: dict[str, Any]) -> None:
    out = redact(json.dumps({"type": "tool_result", "content": case["text"]}, ensure_ascii=False))
    assert [piece for piece in case["pieces"] if json.dumps(piece, ensure_ascii=False)[1:-1] in out] == []


@pytest.mark.parametrize("case", DATA["lookalikes"], ids=[c["name"] for c in DATA["lookalikes"]])
def test_a_look_alike_in_tool_output_is_unchanged(case: dict[str, Any]) -> None:
    assert redact(case["text"]) == case["text"]
