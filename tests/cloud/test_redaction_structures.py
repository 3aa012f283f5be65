"""Redacting twice changes nothing on texts a rule once read differently the second time: a call's
default argument that already holds `[REDACTED]`, a `htpasswd -b` line with a second flag."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import redact

# texts the rules once read differently a second time (a call's default holding `[REDACTED]`, a
# `htpasswd` line with a second flag)
TWICE = [
    'API_TOKEN = os.environ.get("API_TOKEN", "Zq4Lm8vTx2Kp9Rw3Hy6N")',
    "htpasswd -b -B /etc/nginx/.htpasswd ops.bot 'Kp9!Rw3Hy6Nz'",
]


@pytest.mark.parametrize("text", TWICE)
def test_redacting_twice_changes_nothing(text: str) -> None:
    once = redact(text)
    assert once != text
    assert redact(once) == once
