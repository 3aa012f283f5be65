"""Hard-wrapped renderings whose continuation lines carry the marks of the tool that folded them,
through the public `redact`: a continuation prefix of a PowerShell error record (`   + `), an
ellipsis (`… `), a doubled quote (`>> `) or a tab, and a mark at the end of every cut line (`\\`,
`↵`, `=`) that an editor or a pager adds where it folded. Every piece of the secret is redacted on
its own line, the marks and prefixes stay, and the same lines without a secret come back
unchanged. A `=` is read as a fold mark only when at least two cut lines end with it; psql's ` +`
ends a table row whose last cell goes on on the next line."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact
from tests.support.wrapped_pieces import pieces_of

# (name, one-line rendering, the secret in it, a phrase that must survive)
RENDERINGS = [
    (
        "setx line",
        'C:\\build> setx ORCHARD_RELAY_SECRET "Tq4Wn8Lr2Xc6Vb9Mz3Kp7Hd1Fs5Gj0YeR8u" /M && net start relay',
        "Tq4Wn8Lr2Xc6Vb9Mz3Kp7Hd1Fs5Gj0YeR8u",
        "net start",
    ),
    (
        "gradle call",
        "[ci] ./gradlew publish -PuploadPassword=Wd3Hs8Kq1Zt6Np9Lx4Rc7Vm2Bj5Fy0GaQ2e -Pgroup=org.orchard"
        " --no-daemon --stacktrace",
        "Wd3Hs8Kq1Zt6Np9Lx4Rc7Vm2Bj5Fy0GaQ2e",
        "--no-daemon",
    ),
]
PREFIXES = ["   + ", "… ", ">> ", "\t"]
MARKERS = ["", "\\", "↵", "="]
WIDTHS = [41, 53, 67]


def folded(line: str, width: int, prefix: str, marker: str) -> str:
    """`line` cut every `width` characters, each continuation starting with `prefix` and each cut
    line ending with `marker`."""
    rows = [line[i : i + width] for i in range(0, len(line), width)]
    return (marker + "\n" + prefix).join(rows)


CASES = [
    (f"{name}, {width} cols, prefix {prefix!r}, marker {marker!r}", line, secret, kept, width, prefix, marker)
    for name, line, secret, kept in RENDERINGS
    for width in WIDTHS
    for prefix in PREFIXES
    for marker in MARKERS
    # a `=` at the end of a single cut line reads as the empty value of a setting: not a fold mark
    if marker != "=" or len(line) > 2 * width
]


@pytest.mark.parametrize(
    ("name", "line", "secret", "kept", "width", "prefix", "marker"), CASES, ids=[c[0] for c in CASES]
)
def test_every_piece_of_a_secret_folded_with_marks_is_redacted(
    name: str, line: str, secret: str, kept: str, width: int, prefix: str, marker: str
) -> None:
    text = folded(line, width, prefix, marker)
    out = redact(text)
    assert [piece for piece in pieces_of(secret, text) if piece in out] == [], out
    assert out.count("\n") == text.count("\n"), out
    assert all(row.startswith(prefix) for row in out.split("\n")[1:]), out
    assert all(row.endswith(marker) for row in out.split("\n")[:-1]), out
    assert REDACTED in out
    assert redact(out) == out


LOOK_ALIKES = [
    'C:\\build> setx ORCHARD_RELAY_URL "https://relay.orchard.example/v2/ingest" /M && net start relay',
    "[ci] ./gradlew publish -PuploadUser=release-bot -Pgroup=org.orchard -Pversion=4.12.0 --no-daemon --stacktrace",
    "[ci] verified artifact sha256=9f2c4e7a1b3d5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8 for"
    " orchard-4.12.0.aab",
]


@pytest.mark.parametrize("line", LOOK_ALIKES)
@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("marker", MARKERS)
def test_folded_look_alikes_with_marks_come_back_unchanged(line: str, prefix: str, marker: str) -> None:
    for width in WIDTHS:
        text = folded(line, width, prefix, marker)
        assert redact(text) == text


NOTES = [
    (
        "【变更记录 CHG-2207】巡检发现 edge-07 推送失败，值班同学确认推送服务的签名密钥已轮换为"
        " Hq3Zp8Wm1Kx6Vt9Nr4Lb7Yc2Fd5Gs0JaR ，请同步到产线烧录脚本和值班手册。",
        "Hq3Zp8Wm1Kx6Vt9Nr4Lb7Yc2Fd5Gs0JaR",
    ),
    (
        "同步一下：仓库 .env.release 里 RELAY_AUTH_SECRET=Xk5Tq9Lm2Wv7Rb4Nz8Hc3Yp6Df1Gs0Je ，"
        "这是昨晚夜间构建失败的原因，已经在 CI 变量里换成新值。",
        "Xk5Tq9Lm2Wv7Rb4Nz8Hc3Yp6Df1Gs0Je",
    ),
]


@pytest.mark.parametrize("note", NOTES, ids=["change record", "chat message"])
@pytest.mark.parametrize("prefix", ["", "> ", "   + "])
def test_a_chinese_note_folded_at_a_count_of_characters_is_redacted(note: tuple[str, str], prefix: str) -> None:
    """A note with wide characters cut every N characters (not display columns), as a text
    wrapper or a log viewer does, wherever the cut falls in the value."""
    line, secret = note
    at = line.index(secret)
    for cut in range(at + 3, at + len(secret) - 3, 5):
        width = cut
        text = folded(line, width, prefix, "")
        out = redact(text)
        assert [piece for piece in pieces_of(secret, text) if piece in out] == [], out
        assert out.count("\n") == text.count("\n"), out


def test_a_fold_whose_first_continuation_starts_with_a_plus_of_its_own_keeps_its_marks() -> None:
    """The rendering's own ` + ` lands right after the two-space prefix of the first continuation
    line of a fold marked with `↵`: the prefix the other lines share still makes the block, every
    piece is redacted and every mark stays (a reading of one line takes none of them)."""
    secret = "Qm4Xr8Tn2Lw6Zp9Hk3Vb7Yc1Fd5Js0Ga"
    for header in ("2026-04-02T09:15:27Z [nightly-android]", "2026-04-02T09:15:27.118Z [release-train-ios]"):
        width = len(header)
        line = f"{header} + ./gradlew assembleRelease -PreleaseSigningSeed={secret} -Pflavor=prod --no-daemon"
        rows = [header] + ["  " + line[i : i + width - 2] for i in range(width, len(line), width - 2)]
        text = "↵\n".join(rows)
        assert text.split("\n")[1].startswith("   + ")
        out = redact(text)
        assert [piece for piece in pieces_of(secret, text) if piece in out] == [], out
        assert out.count("↵") == text.count("↵"), out


PSQL_ROWS = [
    (
        "| prod | 行情网关 | md-gw-9.lab.example | gw_token | tkn1.Xq7 +\nBw9Lr2Zt5Kp8Mn3Vc6Hd4Jf | 张伟 | 轮换 |",
        "tkn1.Xq7",
    ),
    ("| prod | pay | pay-3.lab.example | pay_key | Mi +\nd-server-Qz8Lw3Nr5Xt2Vb7Kp9 | ops | 2025-02-01 |", "Mi"),
    ("│ uat │ relay │ mq-2.lab.example │ mq_pass │ Hq3wE +\nr9Tz!Lp5 │ ops │", "Hq3wE"),
]


@pytest.mark.parametrize(("text", "head"), PSQL_ROWS, ids=["token", "prefixed key", "box table"])
def test_a_table_cell_psql_continues_with_a_plus_is_redacted_whole(text: str, head: str) -> None:
    """A table row ending in psql's ` +` goes on in its last cell on the next line: both pieces of the
    value are redacted, the mark and the other cells stay."""
    out = redact(text)
    rest = text.split("\n")[1].split(" ")[0]
    assert head not in out.split("\n")[0].split("|")[-1] and rest not in out, out
    assert out.split("\n")[0].endswith(f"{REDACTED} +"), out
    assert out.count("|") + out.count("│") == text.count("|") + text.count("│"), out


def test_notes_psql_continues_with_a_plus_stay() -> None:
    """Prose and short words in a cell psql continues with ` +` are no secret."""
    text = " id | note\n----+------------------\n  1 | first line of a note +\n    | second line of it\n"
    text += "| svc | owner +\n| api | team-a |\n"
    assert redact(text) == text
