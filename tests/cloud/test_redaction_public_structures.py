"""Public values known by their structure come back unchanged through the public `redact`, under
the names a secret would have: an OpenSSH public key (its base64 opens with its own type as a
length-prefixed string), base64 of text in any script or of a file's bytes, the protocol version
after an HTTP request's path; and a value given as a command's `-Name X -Value …` pair is read
under that name."""

from __future__ import annotations

import base64
import random
import struct
from urllib.parse import quote

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact

SEED = 20261205


def _ssh_public(kind: str, size: int, rng: random.Random) -> str:
    def field(raw: bytes) -> bytes:
        return struct.pack(">I", len(raw)) + raw

    blob = field(kind.encode()) + field(rng.randbytes(size))
    return f"{kind} {base64.b64encode(blob).decode()}"


def _keys() -> list[str]:
    rng = random.Random(SEED)
    return [
        _ssh_public(kind, size, rng)
        for kind, size in (("ssh-ed25519", 32), ("ssh-rsa", 257), ("ecdsa-sha2-nistp256", 65))
    ]


@pytest.mark.parametrize("key", _keys(), ids=["ed25519", "rsa", "ecdsa"])
@pytest.mark.parametrize(
    "template",
    [
        "# ~/.ssh/authorized_keys\n{key} deploy@jump01",
        '{{\n  "SftpAuthorizedKey": "{key}"\n}}',
        '{{"event":"config","payload":"{{\\"sftp_authorized_key\\": \\"{key}\\"}}"}}',
        "https://sso.example.org/cb?sftp_authorized_key={url}&state=4a84",
        "部署公钥：{key}",
    ],
    ids=["file", "json", "escaped", "url", "zh"],
)
def test_an_openssh_public_key_comes_back_unchanged(key: str, template: str) -> None:
    text = template.format(key=key, url=quote(key, safe=""))
    assert redact(text) == text


def test_a_random_value_that_only_starts_like_base64_of_a_key_is_still_redacted() -> None:
    value = "AAAAQ2hpY2tlbnNvdXBp7Kq2Zx9Lm4Vr8Tn3Bw6Yc1Pf5Js0Ga"
    out = redact(f"deploy_secret = {value}")
    assert value not in out and REDACTED in out, out


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


DATA = [
    _b64("出院小结（示例）：患者术后恢复良好，第五天出院。".encode()),
    _b64(b"MSH|^~\\&|LAB|NORTH|BRIDGE|VENDOR|20260512||ORU^R01|951874|P|2.5.1\rOBX|1|NM|2345-7^GLUCOSE"),
    _b64(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>"),
    _b64(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00"),
]


@pytest.mark.parametrize("value", DATA, ids=["zh prose", "hl7 message", "pdf", "png"])
@pytest.mark.parametrize(
    "template",
    [
        '{{"resourceType":"Binary","contentType":"text/plain","data":"{value}"}}',
        "$attachmentData = '{value}'",
        "附件内容（Base64）：{value}",
    ],
    ids=["json", "code", "zh"],
)
def test_base64_of_text_in_any_script_or_of_a_file_comes_back_unchanged(value: str, template: str) -> None:
    text = template.format(value=value)
    assert redact(text) == text


@pytest.mark.parametrize("path", ["/oauth2/token", "/v1/auth/secret", "/api/keys/api_key"])
def test_an_http_request_line_keeps_its_protocol_version(path: str) -> None:
    text = (
        f"POST {path} HTTP/1.1\nHost: idp.example.org\nContent-Type: application/x-www-form-urlencoded\n\n"
        "grant_type=client_credentials"
    )
    assert redact(text) == text


@pytest.mark.parametrize(
    "line",
    [
        'PS C:\\ops> .\\Set-Setting.ps1 -Site "North" -Name UpstreamAuth -Value "{v}" -Verbose',
        "tool config set --key relay.auth --value {v} --scope site",
    ],
    ids=["powershell", "long flags"],
)
def test_a_value_given_as_a_name_value_parameter_pair_is_redacted(line: str) -> None:
    value = "Vq7Lm2Xr9Kd4Tz8Wn3Hb6Pc1Fy5Js0Ga"
    out = redact(line.format(v=value))
    assert value not in out and REDACTED in out, out
    assert redact(out) == out


def test_a_public_value_given_as_a_name_value_parameter_pair_comes_back_unchanged() -> None:
    text = 'PS C:\\ops> .\\Set-Setting.ps1 -Name SiteName -Value "Huashan North" -Verbose'
    assert redact(text) == text
