"""Rendering helpers: JSON for scripts, rich text for people; data is never parsed as markup (M-72).

The CLI's own stdout and stderr are `DeferredConsole`s: a rich `Console` is made only when something
needs one (a table, a status line with markup); `say` prints its literal, optionally styled line
through click without importing rich at all — `memory status` prints nothing else, and importing
rich was a third of its cold start (issue 16, bench/cold_start_bench.py). A console given by the REPL
(or a test) is a rich `Console` and is used as before.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from rich.console import Console

# `say` styles click can draw itself; any other word makes the line go through rich.
_ATTRIBUTES = frozenset({"bold", "dim", "italic", "underline"})
_COLOURS = frozenset({"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"})


def color_choice(environ: Mapping[str, str]) -> bool | None:
    """What rich would decide from the environment: NO_COLOR and TERM=dumb off, FORCE_COLOR on, else ask the tty."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    if environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return False
    return None


def _click_style(style: str | None) -> dict[str, Any] | None:
    """click.style keywords for a simple rich style ("bold red", "dim"), or None when click cannot draw it."""
    options: dict[str, Any] = {}
    for word in (style or "").split():
        if word in _ATTRIBUTES:
            options[word] = True
        elif word in _COLOURS and "fg" not in options:
            options["fg"] = word
        else:
            return None
    return options


class DeferredConsole:
    """The process's stdout or stderr; becomes a rich `Console` on first use of anything but `line`."""

    def __init__(self, *, environ: Mapping[str, str], stderr: bool = False) -> None:
        self._stderr = stderr
        self._color = color_choice(environ)
        self._console: Console | None = None

    def real(self) -> Console:
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr, highlight=False, soft_wrap=True)
        return self._console

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # never for our own attributes (a copy made without __init__)
            raise AttributeError(name)
        return getattr(self.real(), name)

    @property
    def file(self) -> IO[str]:
        if self._console is not None:
            return self._console.file
        return sys.stderr if self._stderr else sys.stdout

    def line(self, text: str, style: str | None = None) -> None:
        """Print `text` literally, in `style`; through rich only once rich is in use (or for a style click lacks)."""
        options = _click_style(style)
        if self._console is not None or options is None:
            _rich_line(self.real(), text, style)
            return
        click.echo(click.style(text, **options) if options else text, err=self._stderr, color=self._color)


def rich_console(console: Console | DeferredConsole) -> Console:
    """The rich Console behind `console` (made now if it was deferred): for live displays and progress bars."""
    return console.real() if isinstance(console, DeferredConsole) else console


def _rich_line(console: Console, text: str, style: str | None) -> None:
    from rich.text import Text

    console.print(Text(text, style=style or ""))


def emit_json(console: Console | DeferredConsole, value: Any) -> None:
    """Stable JSON on stdout: UTF-8, sorted keys, no rich formatting."""
    console.file.write(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    console.file.flush()


def say(console: Console | DeferredConsole, text: str, style: str | None = None) -> None:
    """Print plain text literally: `[bold]` or `[/]` inside it is shown, never interpreted."""
    if isinstance(console, DeferredConsole):
        console.line(text, style)
    else:
        _rich_line(console, text, style)


def timestamp(value: float | None) -> str | None:
    if value is None:
        return None
    return dt.datetime.fromtimestamp(value, tz=dt.UTC).isoformat(timespec="seconds")
