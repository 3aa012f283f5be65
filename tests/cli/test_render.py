"""`say` on the CLI's own consoles prints what click would print, without importing click (cold start)."""

from __future__ import annotations

import io
import itertools

import click
import pytest

from autopatch_j.app.render import DeferredConsole, say

STYLES = [None, "", "dim", "bold", "yellow", "bold red", "green", "italic underline cyan", "dim white bold"]


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("style", "color", "tty"), list(itertools.product(STYLES, [None, True, False], [False, True])))
def test_say_prints_exactly_what_click_prints(
    style: str | None, color: bool | None, tty: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = "Memory: healthy [bold] \x1b[31mraw escape\x1b[0m — 结论"
    ours, theirs = (Tty() if tty else io.StringIO()), (Tty() if tty else io.StringIO())
    environ = {} if color is None else {"FORCE_COLOR": "1"} if color else {"NO_COLOR": "1"}
    monkeypatch.setattr("sys.stdout", ours)
    say(DeferredConsole(environ=environ), text, style)
    words = (style or "").split()
    options: dict[str, object] = {w: True for w in words if w in ("bold", "dim", "italic", "underline")}
    colours = [w for w in words if w not in options]
    if colours:
        options["fg"] = colours[0]
    click.echo(click.style(text, **options) if options else text, file=theirs, color=color)
    assert ours.getvalue() == theirs.getvalue()
