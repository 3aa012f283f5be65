"""Exactly once, as a property of the parsers: cut a session at ANY byte (a file being written),
parse what is there, then resume from the cursor on the whole file — every turn is seen exactly
once across the two reads, none twice, none lost."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from autopatch_j.transcripts import claude_code, codex
from autopatch_j.transcripts.jsonl import LineStats, iter_lines
from tests.transcripts.builders import FIXTURES, claude_lines, codex_lines

CLAUDE = "".join(claude_lines(0, 6, session="property", cwd="/p")).encode()
CODEX = "".join(codex_lines(0, 4, session="s", cwd="/p") + codex_lines(4, 3, session="s", cwd="/p", turn_ids=False))
CODEX_BYTES = CODEX.encode()


def _keys(parser: object, path: Path, offset: int) -> tuple[list[str], int]:
    stats = LineStats()
    parsed = parser.parse(iter_lines(path, offset=offset, stats=stats), start=offset, stats=stats)  # type: ignore[attr-defined]
    return [t.turn.key for t in parsed.turns], parsed.resume_offset


def _check(parser: object, data: bytes, cut: int, tmp: Path) -> None:
    path = tmp / "session.jsonl"
    path.write_bytes(data)
    everything, _ = _keys(parser, path, 0)
    path.write_bytes(data[:cut])
    first, cursor = _keys(parser, path, 0)
    assert 0 <= cursor <= cut
    path.write_bytes(data)
    rest, end = _keys(parser, path, cursor)
    assert not set(first) & set(rest), (cut, first, rest)
    assert first + rest == everything, (cut, first, rest)
    assert end == len(data)


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(min_value=0, max_value=len(CLAUDE)))
def test_claude_code_cut_anywhere_then_resume(cut: int, tmp_path_factory: object) -> None:
    _check(claude_code, CLAUDE, cut, tmp_path_factory.mktemp("c"))  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(min_value=0, max_value=len(CODEX_BYTES)))
def test_codex_cut_anywhere_then_resume(cut: int, tmp_path_factory: object) -> None:
    _check(codex, CODEX_BYTES, cut, tmp_path_factory.mktemp("x"))  # type: ignore[attr-defined]


FIXTURE_FILES = {
    "claude-code/11111111-1111-4111-8111-111111111111.jsonl": claude_code,
    "claude-code/22222222-2222-4222-8222-222222222222.jsonl": claude_code,
    "codex/new-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl": codex,
    "codex/old-5b4a3f2e-1d0c-4b9a-8f7e-6d5c4b3a2f10.jsonl": codex,
}


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(FIXTURE_FILES)), fraction=st.floats(min_value=0, max_value=1))
def test_fixtures_cut_anywhere_then_resume(name: str, fraction: float, tmp_path_factory: object) -> None:
    data = (FIXTURES / name).read_bytes()
    _check(FIXTURE_FILES[name], data, int(len(data) * fraction), tmp_path_factory.mktemp("f"))  # type: ignore[attr-defined]


def test_a_turn_read_before_the_user_rewound_past_it_stays_read(tmp_path: Path) -> None:
    data = (FIXTURES / "claude-code/33333333-3333-4333-8333-333333333333.jsonl").read_bytes()
    cut = data.index(b'"uuid": "u3-side"')  # the abandoned branch is still the newest one here
    cut = data.rindex(b"\n", 0, cut) + 1
    path = tmp_path / "s.jsonl"
    path.write_bytes(data[:cut])
    first, cursor = _keys(claude_code, path, 0)
    path.write_bytes(data)
    rest, _ = _keys(claude_code, path, cursor)
    assert first == ["uuid:u3-p1", "uuid:u3-p2"] and rest == ["uuid:u3-p2b"]  # documented in docs/import.md
