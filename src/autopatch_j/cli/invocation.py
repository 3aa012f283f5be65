"""The AppContext of the running typer command (the root callback builds it once per process)."""

from __future__ import annotations

import typer

from autopatch_j.app.context import AppContext


def app_context(ctx: typer.Context) -> AppContext:
    """The AppContext of a running command (set by the root callback)."""
    obj = ctx.find_root().obj
    if not isinstance(obj, AppContext):
        obj = AppContext.from_environment()
        ctx.find_root().obj = obj
    return obj
