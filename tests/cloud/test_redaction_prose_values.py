"""Values stated in prose after an English copula, through the public `redact`: a warning or a
ticket that names no secret (`… the string pasted from the console was <value>`) still hands the
judge the value (`stated`), and so does a clause of prose ending in a colon before it (`presented`),
whole when the line is hard-wrapped; a digest, a commit or a UUID stated
the same way comes back unchanged."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact
from tests.support.linear_time import assert_linear

VALUE = "Rb7Kx2Qm9Vt4Lz8Nw3Hc6Pd1Fy5Js0GaTe"
SENTENCES = [
    f"orchard: WARNING job 7f3kq2 saved its settings; the string pasted from the console was {VALUE} and it worked",
    f"Ticket 40211: customer says the one they rotated yesterday is {VALUE} - please advise",
    f"[relay] config reloaded, the credential string WAS {VALUE}; retrying in 30s",
]
LOOK_ALIKES = [
    "HEAD is now at 4e1d2c9b7a05 and origin/main is 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
    "the run id was 3b1f0c2e-8a4d-4e6f-9b2a-7c5d1e0f3a48, see the dashboard",
    "sha256 of the bundle orchard-3.2.0.tar.gz is 5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592",
    "The release is 2026.03.1 and the image is registry.example.org/orchard:2026.03.1",
]


def hard_wrap(line: str, width: int, prefix: str) -> str:
    return "\n".join([line[:width]] + [prefix + line[i : i + width] for i in range(width, len(line), width)])


@pytest.mark.parametrize("sentence", SENTENCES, ids=["warning", "ticket", "log"])
def test_a_random_value_stated_in_prose_is_redacted(sentence: str) -> None:
    out = redact(sentence)
    assert VALUE not in out and REDACTED in out, out
    assert redact(out) == out


@pytest.mark.parametrize("width", [41, 56, 73])
@pytest.mark.parametrize("prefix", ["| ", "│ ", "-- ", ""])
def test_a_value_stated_in_a_hard_wrapped_warning_is_redacted_on_each_line(width: int, prefix: str) -> None:
    text = hard_wrap(SENTENCES[0], width, prefix)
    out = redact(text)
    assert [row for row in text.split("\n") if VALUE[:6] in row or VALUE[-6:] in row]
    assert VALUE[:6] not in out and VALUE[-6:] not in out, out
    assert out.count("\n") == text.count("\n")


@pytest.mark.parametrize("text", LOOK_ALIKES, ids=["commit", "uuid", "digest", "version"])
def test_a_digest_or_an_id_stated_in_prose_comes_back_unchanged(text: str) -> None:
    assert redact(text) == text


def test_prose_is_read_in_linear_time() -> None:
    def ticket(sentences: int) -> str:
        return "\n".join(SENTENCES[i % 3] if i % 4 == 0 else LOOK_ALIKES[i % 4] for i in range(sentences))

    assert_linear(redact, ticket, 200)


PRESENTED = [
    f"alex pasted this in #ops while we were chasing the 502s on the relay, do not copy it anywhere else: `{VALUE}`",
    f"Ticket 40211, customer attached the line from their settings page: {VALUE}",
    f"从客服后台导出的工单附件里看到这一行（relay 的配置），先记在这里： {VALUE}",
    f'the override applied on the canary pods, the value used was "{VALUE}"',
]
PRESENTED_LOOK_ALIKES = [
    "alex pasted this in #ops while we were chasing the 502s, the commit was: 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
    "Ticket 40211, customer attached the run id from their settings page: 3b1f0c2e-8a4d-4e6f-9b2a-7c5d1e0f3a48",
    "从客服后台导出的工单附件里看到这一行（relay 的配置），版本号： 2026.03.1",
    "Host: relay-2.internal",
    "the relay's request body (base64): CgVhbGljZRILaGVsbG8gdGhlcmU=",
]


@pytest.mark.parametrize("sentence", PRESENTED, ids=["chat", "ticket", "zh ticket", "quoted copula"])
def test_a_random_value_presented_after_a_clause_of_prose_is_redacted(sentence: str) -> None:
    out = redact(sentence)
    assert VALUE not in out and REDACTED in out, out
    assert redact(out) == out


@pytest.mark.parametrize(
    "text", PRESENTED_LOOK_ALIKES, ids=["commit", "uuid", "version", "header", "base64 after a bracket"]
)
def test_an_id_or_a_version_presented_after_prose_comes_back_unchanged(text: str) -> None:
    assert redact(text) == text
