"""No module under src/autopatch_j is longer than 600 lines (issue 16; docs/architecture.md)."""

from __future__ import annotations

from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "autopatch_j"
MAX_LINES = 600


def oversized(root: Path, limit: int = MAX_LINES) -> list[str]:
    """`path: N lines` for every .py file under `root` longer than `limit` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        with path.open(encoding="utf-8") as handle:
            count = sum(1 for _ in handle)
        if count > limit:
            found.append(f"{path.relative_to(root.parent)}: {count} lines")
    return found


def test_every_module_is_at_most_600_lines() -> None:
    modules = list(SRC.rglob("*.py"))
    assert len(modules) > 100  # the walk really reads the package
    too_long = oversized(SRC)
    assert not too_long, f"split these by responsibility (limit {MAX_LINES}):\n" + "\n".join(too_long)


def test_the_check_flags_a_601_line_module(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "ok.py").write_text("x = 1\n" * MAX_LINES)
    (package / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert oversized(package) == ["pkg/sub/long.py: 601 lines"]
