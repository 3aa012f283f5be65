"""Rendering helpers: JSON for scripts, rich text for people; data is never parsed as markup (M-72)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from rich.console import Console
from rich.text import Text


def emit_json(console: Console, value: Any) -> None:
    """Stable JSON on stdout: UTF-8, sorted keys, no rich formatting."""
    console.file.write(json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    console.file.flush()


def say(console: Console, text: str, style: str | None = None) -> None:
    """Print plain text literally: `[bold]` or `[/]` inside it is shown, never interpreted."""
    console.print(Text(text, style=style or ""))


def timestamp(value: float | None) -> str | None:
    if value is None:
        return None
    return dt.datetime.fromtimestamp(value, tz=dt.UTC).isoformat(timespec="seconds")
