"""Hard-wrapped renderings whose continuation lines carry any short mark, through the public
`redact`: the block is read by its shape (lines of one width, the last shorter, a token cut), and
its continuation prefix is whatever run of marks and spaces those lines share — a comment marker
(`# `, `// `, `-- `, `;; `, `% `), a quote (`> `, `>> `, `| `, `│ `), a diff's `+ `, a prompt's
`... ` or `-> `, indentation or nothing — or its fold mark whatever run every cut line ends with
(` \\`). Every piece of the secret is redacted on its own line, the prefixes and marks stay, and the
same lines without a secret come back unchanged."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact
from tests.support.linear_time import assert_linear
from tests.support.wrapped_pieces import pieces_of

# (name, one-line rendering, the secret in it, a phrase that must survive)
RENDERINGS = [
    (
        "airflow task error",
        "[2026-04-02 11:20:07] {taskinstance.py:1937} ERROR - connection failed: warehouse_password="
        "Wq8Zr3Lx7Nv2Kp9Tm4Hc6Yb1Fd5Js0GeR3u host=dw-2.internal",
        "Wq8Zr3Lx7Nv2Kp9Tm4Hc6Yb1Fd5Js0GeR3u",
        "host=dw-2",
    ),
    (
        "ticket quote",
        'Customer wrote: "our integration stopped after rotating, the new api_secret is Pb4Xn9Rk2Lw7'
        'Qz3Hv8Mc1Tj6Yf0Gd5Ks and it still returns 401" - please check the gateway logs',
        "Pb4Xn9Rk2Lw7Qz3Hv8Mc1Tj6Yf0Gd5Ks",
        "gateway logs",
    ),
    (
        "exported setting",
        "notebook cell 12: %env FEATURE_STORE_TOKEN=Hd7Kq2Zx9Lm4Vr8Tn3Bw6Yc1Pf5Js0Ga after the restart"
        " the kernel picked it up",
        "Hd7Kq2Zx9Lm4Vr8Tn3Bw6Yc1Pf5Js0Ga",
        "kernel picked",
    ),
]
LOOK_ALIKES = [
    "[2026-04-02 11:20:07] {taskinstance.py:1937} INFO - marking task as SUCCESS. dag_id=orders_daily,"
    " task_id=load, run_id=scheduled__2026-04-01T00:00:00+00:00",
    "pip install --require-hashes torch==2.3.0 --hash=sha256:1a9b3c7e5d2f4a6b8c0e1d3f5a7b9c2e4d6f8a0b1c3e5d7f"
    "9a2b4c6d8e0f1a3b after the lock refresh",
    "The nightly export finished in 41 minutes; the partitions for the last three days were rewritten and"
    " the dashboard now reads from the new table.",
]
# a prefix added to every continuation line, or (" \\") a mark ending every cut line
STYLES = ["", "> ", "    ", "# ", "│ ", "+ ", "// ", "-- ", "\t", "... ", "| ", ">> ", "  ", " \\", ";; ", "% ", "-> "]
WIDTHS = [40, 49, 57, 66, 80]


def hard_wrap(line: str, width: int, style: str, *, counted: bool) -> str:
    """`line` cut every `width` columns; a prefix style starts each continuation line (taking
    columns of the width with `counted`), the style ` \\` ends each cut line instead."""
    if style == " \\":
        return " \\\n".join(line[i : i + width] for i in range(0, len(line), width))
    first, rest = line[:width], line[width:]
    step = width - len(style) if counted else width
    return "\n".join([first] + [style + rest[i : i + step] for i in range(0, len(rest), step)])


CASES = [
    (
        f"{rendering[0]}, {width} cols, style {style!r}, {('added', 'counted')[counted]}",
        *rendering[1:],
        width,
        style,
        counted,
    )
    for rendering in RENDERINGS
    for width in WIDTHS
    for style in STYLES
    for counted in ((True, False) if style.strip(" \\") or style == "\t" else (True,))
]


@pytest.mark.parametrize(
    ("name", "line", "secret", "kept", "width", "style", "counted"), CASES, ids=[case[0] for case in CASES]
)
def test_every_piece_of_a_secret_wrapped_in_any_style_is_redacted(
    name: str, line: str, secret: str, kept: str, width: int, style: str, counted: bool
) -> None:
    text = hard_wrap(line, width, style, counted=counted)
    out = redact(text)
    assert [piece for piece in pieces_of(secret, text) if piece in out] == [], out
    rows = out.split("\n")
    assert len(rows) == text.count("\n") + 1, out
    if style == " \\":
        assert all(row.endswith(" \\") for row in rows[:-1]), out
    else:  # a wrap that cuts no token is no block: its secret, on one line, may take the next mark
        assert all(row.startswith((style, REDACTED)) for row in rows[1:]), out
    assert kept in out.replace(" \\\n", "").replace("\n" + style, "") if style else kept in out.replace("\n", "")
    assert redact(out) == out


@pytest.mark.parametrize("line", LOOK_ALIKES, ids=["task log", "pip hash", "prose"])
@pytest.mark.parametrize("style", STYLES)
def test_look_alikes_wrapped_in_any_style_come_back_unchanged(line: str, style: str) -> None:
    for width in WIDTHS:
        for counted in (True, False):
            text = hard_wrap(line, width, style, counted=counted)
            assert redact(text) == text, text


def test_a_value_read_whole_across_a_comment_marked_wrap_is_marked_on_each_line() -> None:
    text = hard_wrap(RENDERINGS[0][1], 57, "-- ", counted=False)
    rows = redact(text).split("\n")
    assert rows[1].startswith("-- ") and rows[1].endswith(REDACTED), rows
    assert rows[2].startswith("-- " + REDACTED + " host=dw-2"), rows


def test_a_comment_after_a_long_value_line_is_not_joined_to_it() -> None:
    text = (
        "pip install torch==2.3.0 --hash=sha256:1a9b3c7e5d2f4a6b8c0e1d3f5a7b9c2e\n"
        "# pinned for the cluster image, see the lock file"
    )
    assert redact(text) == text


def test_blocks_in_any_style_are_read_in_linear_time() -> None:
    """A long log of wrapped records, each with a secret, under a prefix of marks and a trailing
    mark: doubling it does not much more than double the time."""

    def log(records: int) -> str:
        rows = [hard_wrap(RENDERINGS[i % 3][1], 49 + i % 7, STYLES[6 + i % 9], counted=True) for i in range(records)]
        return "\n".join(rows)

    out = redact(log(30))
    assert RENDERINGS[0][2][:12] not in out

    assert_linear(redact, log, 150)


def test_a_cut_before_a_values_own_colon_is_no_prefix() -> None:
    """A header cut right before its `: ` reads as a block of three lines with no prefix (the
    reading that explains most lines), not as a pair whose second line has the prefix `: `."""
    line = (
        '[2026-05-01T09:12:44Z] INFO  relay[311]: applying config: -H "RELAY-API-KEY: 5d1c0e9a7b3f42d8a6c4e2f0b9d7a5c3"'
        ' -H "RELAY-APP-KEY: 8f2a4c6e0b1d3f5a7c9e2b4d6f8a0c1e3b5d7f9a"'
    )
    cut = line.index(": 5d1c")
    text = line[:cut] + "\n" + line[cut : 2 * cut] + "\n" + line[2 * cut :]
    out = redact(text)
    assert "5d1c0e9a7b3f42d8" not in out and "8f2a4c6e0b1d" not in out, out
    assert out.split("\n")[1].startswith(": " + REDACTED), out


def test_a_list_of_codes_cut_before_a_dash_is_redacted_on_both_lines() -> None:
    """The `-` that starts the second line is the rest of a code, no prefix of a pair."""
    text = "<ops> pasted: recovery codes: 7kq2m-x9w4z b3n8p-h5t1v r6d2c\n-y4f7g q8s3j-w1k6n"
    out = redact(text)
    assert not any(code in out for code in ("7kq2m", "r6d2c", "y4f7g", "w1k6n")), out
