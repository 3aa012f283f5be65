"""Random-looking literals assigned in code under names that say nothing of a secret, through the
public `redact`: the place itself — a whole string literal, in any language's quotes, assigned to a
name or defined as a constant — is read by the judge (`code_literal`), so the value is redacted
whatever its name; the same places holding a digest, a version, a path or a reference come back
unchanged, and so do attributes inside a markup tag and comparisons."""

from __future__ import annotations

import pytest

from autopatch_j.cloud.redaction import REDACTED, redact
from autopatch_j.cloud.secret_places import code_literal
from tests.support.linear_time import assert_linear

# (a line of code, the value assigned in it)
ASSIGNED = [
    ('ORCHARD_CS ?= "Qm7Tz~Lx2Vb9Nr4Kd8Hc3Wy6Pf1Js5Ga0UeR"', "Qm7Tz~Lx2Vb9Nr4Kd8Hc3Wy6Pf1Js5Ga0UeR"),
    ("my $relay_agent = q{Wd3Hs8Kq1Zt6Np9Lx4Rc7Vm2Bj5Fy0Ga};", "Wd3Hs8Kq1Zt6Np9Lx4Rc7Vm2Bj5Fy0Ga"),
    ('ENV["RELAY_PULL"] = "Tq4Wn8Lr2Xc6Vb9Mz3Kp7Hd1Fs5Gj0Ye"', "Tq4Wn8Lr2Xc6Vb9Mz3Kp7Hd1Fs5Gj0Ye"),
    ('$env:LEDGER_PULL = "Hx4Lp9Qz2Wv7Nr3Kt8Ym5Bc1Df6Gs0Je"', "Hx4Lp9Qz2Wv7Nr3Kt8Ym5Bc1Df6Gs0Je"),
    ('let ledger_ks = r#"Zr8Kq3Wm7Xv2Lp9Tn4Hb6Yd1Fc5Gs0Ja"#;', "Zr8Kq3Wm7Xv2Lp9Tn4Hb6Yd1Fc5Gs0Ja"),
    ("define('RELAY_WS', 'Nq7Rv2LxW9mKd4Tz8Hb3Yc6Pf1Js5Ga0');", "Nq7Rv2LxW9mKd4Tz8Hb3Yc6Pf1Js5Ga0"),
    ('#define RELAY_LLM "Pb4Xn9Rk2Lw7Qz3Hv8Mc1Tj6Yf0Gd5Ks"', "Pb4Xn9Rk2Lw7Qz3Hv8Mc1Tj6Yf0Gd5Ks"),
    ('var relayPersonal = @"Gk2Vw8Nt5Rx1Lq7Zm4Hd9Bp3Cy6Fj0Ts";', "Gk2Vw8Nt5Rx1Lq7Zm4Hd9Bp3Cy6Fj0Ts"),
    ('RELAY_INT = """Yd6Mb1Xq8Kw3Rt9Lz5Nc2Hv7Gp4Sj0Fa"""', "Yd6Mb1Xq8Kw3Rt9Lz5Nc2Hv7Gp4Sj0Fa"),
    ("const relayUser = `Lc5Tv0Qw7Nk2Zx8Rb4Hm9Yp3Gd6Fs1Ja`;", "Lc5Tv0Qw7Nk2Zx8Rb4Hm9Yp3Gd6Fs1Ja"),
    ("relay_vendor <- 'Fs1Ja9Lc5Tv0Qw7Nk2Zx8Rb4Hm9Yp3Gd6'", "Fs1Ja9Lc5Tv0Qw7Nk2Zx8Rb4Hm9Yp3Gd6"),
]
# the same places holding no secret
UNCHANGED = [
    'PINNED_REVISION = "5f0c1a9e3b7d2c4e6a8b0d1f3e5c7a9b2d4f6e8a"',
    'BASE_IMAGE ?= "registry.example.org/orchard/base:2026.03.1"',
    "my $template = q{services/<service>/<purpose>};",
    'define("LEDGER_HOST", "ledger-3.internal.example.net");',
    'ENV["RELAY_REGION"] = "eu-west-1"',
    'relay_auth = "${RELAY_AUTH}"',
    '<input type="hidden" name="relay" value="Qm7TzLx2Vb9Nr4Kd8Hc3Wy6Pf1Js5Ga0UeR">',
    'if relay_mode == "Qm7TzLx2Vb9Nr4Kd8Hc3Wy6Pf1Js5Ga0UeR":',
]


@pytest.mark.parametrize(("line", "value"), ASSIGNED, ids=[line.split("=")[0][:24] for line, _ in ASSIGNED])
def test_a_random_literal_assigned_in_code_is_redacted_whatever_its_name(line: str, value: str) -> None:
    out = redact(line)
    assert value not in out and REDACTED in out, out
    assert redact(out) == out


@pytest.mark.parametrize("line", UNCHANGED)
def test_the_same_places_holding_no_secret_come_back_unchanged(line: str) -> None:
    assert redact(line) == line


@pytest.mark.parametrize(
    ("line", "value", "expected"),
    [
        ('KEY = "Qm7TzLx2Vb9"', "Qm7TzLx2Vb9", True),
        ('x <- "Qm7TzLx2Vb9"', "Qm7TzLx2Vb9", True),
        ('KEY = "Qm7TzLx2Vb9 and more"', "Qm7TzLx2Vb9", False),
        ('"key": "Qm7TzLx2Vb9"', "Qm7TzLx2Vb9", False),
        ('<a title="Qm7TzLx2Vb9">', "Qm7TzLx2Vb9", False),
        ('if key != "Qm7TzLx2Vb9"', "Qm7TzLx2Vb9", False),
    ],
)
def test_code_literal_reads_the_whole_literal_and_its_assignment(line: str, value: str, expected: bool) -> None:
    start = line.index(value)
    assert code_literal(line, start, start + len(value)) is expected


def test_assigned_literals_are_judged_in_linear_time() -> None:
    def source(lines: int) -> str:
        return "\n".join(ASSIGNED[i % len(ASSIGNED)][0] for i in range(lines))

    assert_linear(redact, source, 300)
