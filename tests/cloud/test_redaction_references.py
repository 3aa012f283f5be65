"""Values beside a secret's key word that hold no secret, through the public `redact`: a reference
to a constant of a generated settings class (`AppSecrets.UPLOAD_TOKEN`), plain or inside a
percent-encoded paste link, and an MD5 digest of a build artefact under its `md5` key inside an
agent's JSON tool result. They come back unchanged, while a random value in the same place is
redacted."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact


def pasted(snippet: str) -> str:
    return "https://paste.example.org/new?text=" + quote(snippet, safe="")


def tool_result(inner: str) -> str:
    return '{"type":"tool_result","content":"' + inner.replace('"', '\\"') + '"}'


REFERENCES = [
    "let uploadToken = AppSecrets.UPLOAD_TOKEN  // set by the pipeline, not in git",
    "val signingPassword = ReleaseSettings.STORE_PASSWORD // injected at build time",
]
DIGESTS = [
    '{"artifact":"orchard-3.1.0.apk","md5":"9e107d9d372bb6826bd81d3542a419d6","size":48213}',
    '{"file":"gateway-fw-2.0.7.bin","md5":"0cc175b9c0f1b6a831c399e269772661","channel":"beta"}',
]


@pytest.mark.parametrize("snippet", REFERENCES)
def test_a_reference_to_a_settings_constant_is_no_secret(snippet: str) -> None:
    assert redact(snippet) == snippet
    assert redact(pasted(snippet)) == pasted(snippet)


@pytest.mark.parametrize("document", DIGESTS)
def test_an_md5_digest_in_a_tool_result_is_no_secret(document: str) -> None:
    assert redact(tool_result(document)) == tool_result(document)


def test_a_random_value_in_the_same_places_is_redacted() -> None:
    value = "Wd3Hs8Kq1Zt6Np9Lx4Rc7Vm2Bj5Fy0GaQ2e"
    assert REDACTED in redact(pasted(f"let uploadToken = {value!r}  // set by the pipeline"))
    assert value not in redact(tool_result(f'{{"artifact":"orchard.apk","upload_token":"{value}"}}'))


# public values in the places a secret takes: an environment reference closing an inline code
# span, a JWT's header alone (base64url of a JSON document, no signature), a certificate's
# fingerprint and a directory named by a Chinese label before the copula `是`
PUBLIC_VALUES = [
    "## Setup\n1. `relayctl login --token $RELAY_TOKEN`\n2. Keep the token in your keychain.",
    "JWKS lookup failed for token header eyJhbGciOiJFUzI1NiIsImtpZCI6IjdjMWUwYjlhNDRkMmYzZThhNmI1YzBkOWUx"
    "ZjJhM2I0YzVkNmU3ZjgiLCJ0eXAiOiJKV1QifQ (kid not in the key set)",
    "客户补充：网关证书指纹是 3F9A0C71B2D48E65A91C07F3D2B84E19C6A05D72，可以公开。",
    "排查记录：缓存块目录是 cachemgr-5d2e8a41-9b7c-4f03-a6e1-2c8d7b9f0e34，已清理。",
]


@pytest.mark.parametrize("text", PUBLIC_VALUES, ids=["env reference in code span", "jwt header", "fingerprint", "dir"])
def test_public_values_in_a_secrets_place_come_back_unchanged(text: str) -> None:
    assert redact(text) == text
    assert redact(pasted(text)) == pasted(text)


def test_a_literal_token_in_an_inline_code_span_is_redacted_and_the_span_closed() -> None:
    out = redact("run `relayctl login --token Wd3Hs8Kq1Zt6Np9Lx4Rc7Vm2Bj5Fy0GaQ2e` once")
    assert out == f"run `relayctl login --token {REDACTED}` once"
