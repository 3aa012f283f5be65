"""Rendering helpers: JSON for scripts, rich text for people; data is never parsed as markup (M-72).

The CLI's own stdout and stderr are `DeferredConsole`s: a rich `Console` is made only when something
needs one (a table, a status line with markup); `say` prints its literal, optionally styled line
itself, exactly as click would, without importing rich or click — `memory status` prints nothing
else, and either import would be a large part of its cold start (bench/cold_start_bench.py). A console
given by the REPL (or a test) is a rich `Console` and is used as before.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

# `say` styles click can draw itself; any other word makes the line go through rich.
_ATTRIBUTES = frozenset({"bold", "dim", "italic", "underline"})
_COLOUR_ORDER = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")  # SGR 30 … 37
_COLOURS = frozenset(_COLOUR_ORDER)


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
        _echo(self.file, text, options, self._color)


# The SGR codes click.style writes for the styles `say` draws itself, in click's order (fg first).
_SGR_ORDER = ("fg", "bold", "dim", "underline", "italic")
_SGR = {"bold": 1, "dim": 2, "italic": 3, "underline": 4}
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")


def _echo(file: IO[str], text: str, options: dict[str, Any], color: bool | None) -> None:
    """What `click.echo(click.style(text, **options), color=color)` prints, without importing click: SGR
    codes around the text when colour is on, and any escape sequence stripped when it is off (colour
    `None`: on for a terminal only)."""
    on = color if color is not None else _isatty(file)
    if not on:
        text = _ANSI.sub("", text)
    elif options:
        codes = [
            f"\033[{30 + _COLOUR_ORDER.index(options['fg'])}m" if key == "fg" else f"\033[{_SGR[key]}m"
            for key in _SGR_ORDER
            if key in options
        ]
        text = "".join(codes) + text + "\033[0m"
    file.write(text + "\n")
    file.flush()


def _isatty(file: IO[str]) -> bool:
    try:
        return file.isatty()
    except (AttributeError, ValueError):
        return False


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
