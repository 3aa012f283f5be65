"""Every CLI command is documented in the README and has help text (conventions: sqlite-utils test_docs)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
import typer.main

from autopatch_j.cli.app import app

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
DOCS = {p.name: p.read_text(encoding="utf-8") for p in (Path(__file__).resolve().parents[1] / "docs").glob("*.md")}


def _commands(group: click.Command, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    """Every command under `group`, through click's own listing (groups load their commands lazily)."""
    if not isinstance(group, click.Group):
        return
    ctx = click.Context(group)
    for name in sorted(group.list_commands(ctx)):
        command = group.get_command(ctx, name)
        assert command is not None, name
        path = (*prefix, name)
        yield path, command
        yield from _commands(command, path)


COMMANDS = list(_commands(typer.main.get_command(app)))


def test_the_tree_is_not_empty() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"memory status", "memory list", "memory show", "new", "reset", "cloud"} <= names


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p))
def test_every_command_has_help(path: tuple[str, ...]) -> None:
    command = dict(COMMANDS)[path]
    assert (getattr(command, "help", None) or "").strip(), f"`autopatch-j {' '.join(path)}` has no help text"


@pytest.mark.parametrize("path", [p for p, _ in COMMANDS], ids=lambda p: " ".join(p))
def test_every_command_is_documented(path: tuple[str, ...]) -> None:
    words = r"\s+".join(re.escape(w) for w in path)
    pattern = re.compile(rf"autopatch-j\s+{words}\b")
    where = [name for name, text in {"README.md": README, **DOCS}.items() if pattern.search(text)]
    if path[0] == "cloud":
        assert where, f"`autopatch-j {' '.join(path)}` is documented nowhere"
    else:
        assert "README.md" in where, f"`autopatch-j {' '.join(path)}` is missing from the README"
