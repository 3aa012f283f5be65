"""Secrets hard-wrapped across lines, through the public `redact`: the line break falls inside the
credential (a terminal wrap, a `> ` mail quote, an indented log continuation, a `│ ` TUI box, a
`kubectl describe` block, a base64 blob cut at 64 or 76 columns), and each piece on each line is
redacted while the lines, their indentation and their prefixes stay. Look-alikes wrapped the same
way (prose, digests, public keys) come back unchanged, and redacting twice changes nothing."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact
from tests.support.linear_time import assert_linear

# (name, text, pieces that must not survive, text that must survive)
WRAPPED = [
    (
        "box prefix, terminal wrap cutting the key and the value",
        "│ kubectl create secret generic ledger --from-literal=LEDGER_SIGNING_SE\n"
        "│ CRET=Qm4rTz8vLp2Wn6Xk9Hd3Ys7Bf5Jc1Ga0Ue --namespace ledger-prod --dr\n"
        "│ y-run=client -o yaml",
        ["Qm4rTz8vLp2Wn6Xk9Hd3Ys7Bf5Jc1Ga0Ue"],
        "--namespace ledger-prod",
    ),
    (
        "box prefix, random halves",
        "│ REPORTS_DB_URL=postgres://reports_ro:Vq8Lm2Zx7Kp4Rt9Wn3Y\n│ s6Hd1Jc5@pg-7.int.example:5432/reports",
        ["Vq8Lm2Zx7Kp4Rt9Wn3Y", "s6Hd1Jc5"],
        "pg-7.int.example",
    ),
    (
        "mail quote on the continuation, word-like halves inside quotes",
        "2026-05-02 14:03:11 INFO restarting with LEDGER_DB_PASSWORD='Pelican\n> harbor4471!' ./start.sh",
        ["Pelican", "harbor4471!"],
        "./start.sh",
    ),
    (
        "indented log continuation, a password in double quotes",
        'worker-7 | {"SMTP_USER": "mailer", "SMTP_PASS": "Copperfal\n    con2208&"} loaded',
        ["Copperfal", "con2208&"],
        '"SMTP_USER": "mailer"',
    ),
    (
        "git log body indent on every line, cut inside the value",
        "    fix: rotate the webhook, new WEBHOOK_SIGNING_SECRET=Tk3vQ9mLx2Rb7Nc4Wd8Z\n"
        "    f6Hs1Jp5Ya0Ue3Gi and redeploy the consumer service now that the old\n"
        "    one has been revoked",
        ["Tk3vQ9mLx2Rb7Nc4Wd8Z", "f6Hs1Jp5Ya0Ue3Gi"],
        "redeploy the consumer",
    ),
    (
        "kubectl describe args, fixed column with an indent",
        "    Args:\n"
        "      --db-host=orders-db.internal --db-user=orders --db-password=Wn8Rx\n"
        "      2Lq7Vz4Kt9Pm3Yd6Hs --log-level=info --metrics-port=9102 --tracin\n"
        "      g=on",
        ["Wn8Rx", "2Lq7Vz4Kt9Pm3Yd6Hs"],
        "--log-level=info",
    ),
    (
        "base64 private key blob cut at 64 columns under a quote prefix",
        "> SERVICE_PRIVATE_KEY_B64=TUlJRXZnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2d3Z2dTa0FnRUFBb0lC\n"
        "> QVFDN3N4S2pQbVZyWm5UeDlMcTJXYzRSZzhIZDFKeTZOZjNCcTdLbTBWdDVYYjJM\n"
        "> cDlReDRNczhOejFHaDZUeTNEdzdSazA=\n"
        "> (rotate after the incident)",
        [
            "TUlJRXZnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NCS2d3Z2dTa0FnRUFBb0lC",
            "QVFDN3N4S2pQbVZyWm5UeDlMcTJXYzRSZzhIZDFKeTZOZjNCcTdLbTBWdDVYYjJM",
            "cDlReDRNczhOejFHaDZUeTNEdzdSazA=",
        ],
        "(rotate after the incident)",
    ),
]

LOOK_ALIKES = [
    (
        "prose hard-wrapped in a mail quote",
        "> We should rotate the signing secret before the release, and make sure the new\n"
        "> one is stored in the vault instead of the repository; the old token was leaked\n"
        "> in a screenshot last week.",
    ),
    (
        "a digest wrapped in a box",
        "│ sha256sum dist/ledger-2.4.1.tar.gz\n"
        "│ 9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d\n"
        "│ 7e8  dist/ledger-2.4.1.tar.gz",
    ),
    (
        "a public key wrapped with an indent",
        "    authorized_keys: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHq7Lm2Vx9Rt4Wz8Kp3Nb6Yd1Jc5Gh0\n"
        "    Fs7Ua2Qe ops@bastion-2",
    ),
    (
        "a commit id and a request id wrapped in a log",
        "2026-05-02 14:03:11 INFO deployed commit 3b9e1c7d5a2f4e6b8d0c1a3e5f7b9d2c4e6a8f0b1\n"
        "    request_id=7c1e9a3b-5d2f-4e6a-8b0c-1d3e5f7a9b2c region=eu-west-1",
    ),
    (
        "a quoted sentence cut at the column",
        '> she wrote: "the staging token expires at midnight, so rerun the job bef\n> ore then" and logged off',
    ),
]


@pytest.mark.parametrize(("name", "text", "pieces", "kept"), WRAPPED, ids=[w[0] for w in WRAPPED])
def test_each_piece_of_a_wrapped_secret_is_redacted_on_its_own_line(
    name: str, text: str, pieces: list[str], kept: str
) -> None:
    out = redact(text)
    assert not [piece for piece in pieces if piece in out], out
    assert kept in out
    assert out.count("\n") == text.count("\n"), out  # the lines stay, each piece redacted on its own
    assert redact(out) == out


def test_the_continuation_prefix_stays_and_both_pieces_are_marked() -> None:
    text = "│ REPORTS_DB_URL=postgres://reports_ro:Vq8Lm2Zx7Kp4Rt9Wn3Y\n│ s6Hd1Jc5@pg-7.int.example:5432/reports"
    out = redact(text)
    first, second = out.split("\n")
    assert first.startswith("│ ") and first.endswith(REDACTED)
    assert second.startswith("│ " + REDACTED + "@pg-7")


@pytest.mark.parametrize(("name", "text"), LOOK_ALIKES, ids=[w[0] for w in LOOK_ALIKES])
def test_wrapped_look_alikes_come_back_unchanged(name: str, text: str) -> None:
    assert redact(text) == text


def test_many_wrapped_lines_are_redacted_in_linear_time() -> None:
    """Lines with an open quote, a box prefix and a random run at every break: doubling the
    input must not much more than double the time (generous bounds for a shared machine)."""
    assert_linear(redact, lambda n: "│ X='Ab3dEf9hKq2m\n" * n, 2_000)


def test_a_value_after_a_redacted_login_is_not_judged_anew_on_a_second_pass() -> None:
    """A JSON log line whose escaped newline the joined view crosses (`…/PAYDB7` + `deploy@jump-4`):
    what follows `[REDACTED]:` was judged beside the login the mark replaced."""
    text = (
        '{"msg":"deploy@jump-4:~$ cat creds.txt\\njdbc:oracle:thin:pay_app/Rq7vLw2Xz9KpT4m@//pay-db.corp.example'
        ':1521/PAYDB7\\ndeploy@jump-4:~$ history -c","ts":1764755000}'
    )
    once = redact(text)
    assert "Rq7vLw2Xz9KpT4m" not in once
    assert redact(once) == once
