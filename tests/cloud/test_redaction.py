"""Redaction (C-24): one table row per token family, properties over random secrets, idempotence."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from autopatch_j.cloud.redaction import REDACTED, contains_secret, redact

ALNUM = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", min_size=12, max_size=40)

# (family, text, secret that must disappear, text that must survive)
TABLE = [
    ("api_key=", "api_key=abc123XYZ", "abc123XYZ", "api_key="),
    ("API-KEY: quoted", 'API-KEY: "quoted value"', "quoted value", "API-KEY"),
    ("password json", '{"password": "hunter2"}', "hunter2", '"password"'),
    ("db_password", "DB_PASSWORD=pa55word!", "pa55word!", "DB_PASSWORD="),
    ("secret", "client_secret = 's3cr3t'", "s3cr3t", "client_secret"),
    ("token", "access_token:tok_live_1", "tok_live_1", "access_token"),
    ("credential", "Credentials=usr:pw", "usr:pw", "Credentials="),
    ("authorization header", "Authorization: Basic dXNlcjpwYXNz", "dXNlcjpwYXNz", "Authorization:"),
    ("bearer", "curl -H 'x: Bearer abc.def-ghi'", "abc.def-ghi", "curl"),
    ("sk-", "key sk-abcdefghijklmnop0123 here", "sk-abcdefghijklmnop0123", "here"),
    ("sk-ant-", "sk-ant-api03-AbCdEfGhIjKlMnOp", "sk-ant-api03-AbCdEfGhIjKlMnOp", ""),
    ("sk-proj-", "use sk-proj-AbCdEfGhIjKlMnOp_qr", "sk-proj-AbCdEfGhIjKlMnOp_qr", "use"),
    ("ghp_", "ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123456789abcdefghij", ""),
    ("gho_", "gho_0123456789abcdefghij", "gho_0123456789abcdefghij", ""),
    ("ghu_", "ghu_0123456789abcdefghij", "ghu_0123456789abcdefghij", ""),
    ("ghs_", "ghs_0123456789abcdefghij", "ghs_0123456789abcdefghij", ""),
    ("ghr_", "ghr_0123456789abcdefghij", "ghr_0123456789abcdefghij", ""),
    ("github_pat_", "github_pat_11ABCDEFG0123456789_abcdefXYZ", "github_pat_11ABCDEFG", ""),
    ("xoxb-", "slack xoxb-1234567890-abcdefABCDEF", "xoxb-1234567890", "slack"),
    ("xoxp-", "xoxp-12345-67890-abcdef", "xoxp-12345", ""),
    ("xapp-", "xapp-1-A0123456789-abcdef", "xapp-1-A0123456789", ""),
    ("aws key id", "aws AKIAQ3FAKE7KEYID0042 ok", "AKIAQ3FAKE7KEYID0042", "ok"),
    ("aws sts id", "ASIAY34FZKBOKMUTVV7A", "ASIAY34FZKBOKMUTVV7A", ""),
    (
        "jwt",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.SflKxwRJSMeKKF2QT4fwpM",
        "SflKxwRJSMeKKF2QT4fwpM",
        "jwt",
    ),
    (
        "pem",
        "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\nafter",
        "MIIEowIBAAKCAQEA",
        "after",
    ),
    ("pem cut off", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "b3BlbnNzaC1rZXkt", ""),
    ("prose password", "note: the staging db password is Wq7-hunter2! (temporary)", "Wq7-hunter2!", "(temporary)"),
    ("prose token", "my token for the demo is Rz81kPq3Lm0x, expires friday", "Rz81kPq3Lm0x", "expires friday"),
    ("prose zh", "用这个口令登录：Tb5!qW9z，登录后改掉", "Tb5!qW9z", "登录后改掉"),
    ("url credentials", "git clone https://bob:hunter22@example.com/repo.git", "hunter22", "example.com/repo.git"),
    ("postgres url", "postgresql+psycopg://app:pw123@db:5432/x", "pw123", "@db:5432/x"),
]


@pytest.mark.parametrize(("family", "text", "secret", "kept"), TABLE, ids=[row[0] for row in TABLE])
def test_each_family_is_redacted(family: str, text: str, secret: str, kept: str) -> None:
    out = redact(text)
    assert secret not in out
    assert REDACTED in out
    assert kept in out
    assert redact(out) == out


@pytest.mark.parametrize(
    "text",
    [
        "plain prose about tokens and passwords",
        "sk-short",
        "the skeleton key",
        "https://example.com/a:b",
        "",
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",  # AWS's published docs example
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == text and not contains_secret(text)


FAMILIES = st.sampled_from(
    ["sk-", "sk-ant-", "sk-proj-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xoxb-", "xapp-"]
)


@settings(max_examples=150, derandomize=True, database=None)
@given(prefix=FAMILIES, body=ALNUM, before=st.text(max_size=30), after=st.text(max_size=30))
@example(prefix="sk-", body="A" * 12, before="", after="")
def test_prefixed_tokens_never_survive_in_any_context(prefix: str, body: str, before: str, after: str) -> None:
    token = prefix + body
    out = redact(f"{before} {token} {after}")
    assert token not in out
    assert redact(out) == out


@settings(max_examples=150, derandomize=True, database=None)
@given(
    key=st.sampled_from(["api_key", "apikey", "PASSWORD", "Secret", "token", "credential", "x-api-key"]),
    sep=st.sampled_from(["=", ": ", " = ", ":"]),
    quote=st.sampled_from(["", '"', "'"]),
    value=ALNUM,
)
def test_key_value_forms_never_keep_the_value(key: str, sep: str, quote: str, value: str) -> None:
    assume(len(set(value)) > 1)  # one character repeated is a fill, no secret (`secret_values.placeholder`)
    out = redact(f"config {key}{sep}{quote}{value}{quote} end")
    assert value not in out and key in out


@settings(max_examples=200, derandomize=True, database=None)
@given(st.text(max_size=300))
def test_redaction_is_idempotent_on_arbitrary_text(text: str) -> None:
    once = redact(text)
    assert redact(once) == once
