"""Jinja2 rendering with autoescape on for every template; user data is never marked safe."""

from __future__ import annotations

import functools
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse

from autopatch_j.cloud.redaction import REDACTED


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("autopatch_j.cloud.console", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["redaction_parts"] = redaction_parts
    env.filters["when"] = lambda value: "" if value is None else value.strftime("%Y-%m-%d %H:%M:%S UTC")
    return env


def redaction_parts(text: str) -> list[tuple[str, bool]]:
    """Split text around `[REDACTED]` so templates can show each redaction as such (still escaped)."""
    parts: list[tuple[str, bool]] = []
    for i, chunk in enumerate(text.split(REDACTED)):
        if i:
            parts.append((REDACTED, True))
        if chunk:
            parts.append((chunk, False))
    return parts


def page(request: Request, template: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    base = str(request.scope.get("root_path") or "")
    html = environment().get_template(template).render(base=base, **context)
    return HTMLResponse(html, status_code=status_code)
