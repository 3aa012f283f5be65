"""Hard-wrapped renderings under a column that every line carries, whatever its characters, through
the public `redact`: a log record's header (the record's one timestamp repeated on every line,
maybe a stream and a tag after it), a batch comment's `REM `, a chat client's name before `> `. The
block is read under the column, every piece of the secret is redacted on its own line, every
column stays, and the same lines without a secret come back unchanged; lines stamped with
different times are separate records and are not joined."""

from __future__ import annotations

import random

import pytest

from autopatch_j.cloud.redaction import redact
from autopatch_j.cloud.secret_wrap_blocks import BLOCK_WIDTH_MIN
from tests.support.linear_time import assert_linear
from tests.support.wrapped_pieces import pieces_of

SECRET = "Vq7Lm2Xr9Kd4Tz8Wn3Hb6Pc1Fy5Js0Ga"
RENDERINGS = [
    f"worker[311]: reloading connector settings, upstream_password={SECRET} timeout=30s retries=4",
    f'PS C:\\ops> .\\Set-Config.ps1 -Site "North" -Name UpstreamAuth -Value "{SECRET}" -Verbose',
    f"ops note: the relay was reconfigured, new signing secret is {SECRET} - redeploy after 22:00",
]
LOOK_ALIKES = [
    "worker[311]: reloading connector settings, upstream_host=relay-2.internal timeout=30s retries=4 ok",
    "deploy 2026.05.1 finished; image registry.example.org/relay@sha256:"
    "5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592 is live",
    "The nightly export finished in 41 minutes and the dashboard now reads from the rewritten table.",
]
SEED = 20261205


def _stamp(rng: random.Random) -> str:
    day, hour, minute, second = rng.randint(10, 28), rng.randint(10, 23), rng.randint(10, 59), rng.randint(10, 59)
    return f"2026-05-{day}T{hour}:{minute}:{second}.{rng.randint(1000000, 9999999)}Z "


def columned(line: str, width: int, style: str, rng: random.Random) -> str:
    """`line` cut every `width` characters, each piece under the column of `style`: `cri` (one
    timestamp, `stdout F` on the first line, `stdout P` after), `stamped` (the record's timestamp on
    each line, as a CI runner prints it), or a fixed word column added to every line."""
    pieces = [line[i : i + width] for i in range(0, len(line), width)]
    if style == "cri":
        stamp = _stamp(rng)
        return "\n".join(f"{stamp}stdout {'F' if n == 0 else 'P'} {p}" for n, p in enumerate(pieces))
    if style == "stamped":
        stamp = _stamp(rng)
        return "\n".join(stamp + p for p in pieces)
    return "\n".join(style + p for p in pieces)


STYLES = ["cri", "stamped", "REM ", "钉钉> ", "ops-bot> "]
WIDTHS = [9, 23, 38, 51]
#: Every rendering, style and width whose lines are at least a block's least width (a fixed word
#: column on 9-character pieces makes lines too narrow to be a wrap at all).
CASES = [
    pytest.param(line, style, width, id=f"{name}-{style.strip()}-{width}")
    for name, line in zip(("log", "powershell", "note"), RENDERINGS, strict=True)
    for style in STYLES
    for width in WIDTHS
    if style in ("cri", "stamped") or len(style) + width >= BLOCK_WIDTH_MIN
]


@pytest.mark.parametrize(("line", "style", "width"), CASES)
def test_every_piece_of_a_secret_wrapped_under_a_column_is_redacted(line: str, style: str, width: int) -> None:
    text = columned(line, width, style, random.Random(SEED + width))
    out = redact(text)
    assert [piece for piece in pieces_of(SECRET, text) if piece in out] == [], out
    rows, written = out.split("\n"), text.split("\n")
    assert len(rows) == len(written), out
    if style in ("cri", "stamped"):
        column = len(_stamp(random.Random(SEED))) + (len("stdout P ") if style == "cri" else 0)
        assert all(row[:column] == old[:column] for row, old in zip(rows, written, strict=True)), out
    else:
        assert all(row.startswith(style) for row in rows), out
    assert redact(out) == out


@pytest.mark.parametrize("line", LOOK_ALIKES, ids=["log", "digest", "prose"])
@pytest.mark.parametrize("style", STYLES)
def test_look_alikes_under_a_column_come_back_unchanged(line: str, style: str) -> None:
    for width in WIDTHS:
        text = columned(line, width, style, random.Random(SEED + width))
        assert redact(text) == text, text


def test_log_records_of_one_width_are_not_joined_into_a_value() -> None:
    """Separate records (each its own time) that happen to have one width stay separate."""
    text = "\n".join(
        [
            "2026-05-11T10:11:12.1234567Z job 41 step build finished in 12s ok",
            "2026-05-11T10:11:13.1234567Z job 41 step tests finished in 98s ok",
            "2026-05-11T10:11:14.1234567Z job 41 step lint finished in 4s, ok",
            "2026-05-11T10:11:15.1234567Z job 41 done",
        ]
    )
    assert redact(text) == text


def test_a_value_ending_one_record_is_not_joined_to_the_next_record() -> None:
    text = "\n".join(
        [
            "2026-05-11T10:11:12.120Z [default]",
            "2026-05-11T10:11:12.233Z aws_secret_access_key = Vq7Lm2Xr9Kd4Tz8Wn3Hb6Pc1Fy5Js0Ga",
            "2026-05-11T10:11:12.340Z region = eu-west-1",
        ]
    )
    out = redact(text)
    assert SECRET not in out and out.endswith("\n2026-05-11T10:11:12.340Z region = eu-west-1"), out


def test_blocks_under_a_column_are_read_in_linear_time() -> None:
    def log(records: int) -> str:
        rng = random.Random(SEED)
        return "\n".join(columned(RENDERINGS[i % 3], 23 + i % 17, STYLES[i % 5], rng) for i in range(records))

    assert SECRET[:10] not in redact(log(10))
    assert_linear(redact, log, 120)
