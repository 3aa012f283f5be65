"""`autopatch-j mcp`: serve the project's Memory to other agents over the Model Context Protocol.

The MCP SDK is imported only when this command runs, so every other command starts as fast as before
(bench/cold_start_bench.py). See docs/mcp.md for client configuration and what each tool returns.
"""

from __future__ import annotations

from typing import Annotated

import typer

from autopatch_j.cli.invocation import app_context

TRANSPORTS = ("stdio", "streamable-http")


def register(app: typer.Typer) -> None:
    """Add `mcp` to the root application."""

    @app.command("mcp")
    def mcp_command(
        ctx: typer.Context,
        read_only: Annotated[
            bool, typer.Option("--read-only", help="Serve only the read tools: no record_turn, no memory_forget.")
        ] = False,
        transport: Annotated[
            str,
            typer.Option("--transport", help="stdio (default) or streamable-http.", metavar="stdio|streamable-http"),
        ] = "stdio",
        host: Annotated[str, typer.Option("--host", help="streamable-http: address to bind (loopback only).")] = (
            "127.0.0.1"
        ),
        port: Annotated[int, typer.Option("--port", help="streamable-http: port to bind.", min=1, max=65535)] = 8765,
        allow_remote: Annotated[
            bool, typer.Option("--allow-remote", help="streamable-http: allow a non-loopback --host.")
        ] = False,
    ) -> None:
        """Serve this project's Memory as an MCP server (stdio by default) for Claude Code, Codex, Cursor, VS Code."""
        if transport not in TRANSPORTS:
            raise typer.BadParameter(f"{transport!r} is not one of: {', '.join(TRANSPORTS)}.", param_hint="--transport")
        from autopatch_j.mcp_server.server import ServeOptions, serve

        options = ServeOptions(
            read_only=read_only,
            transport="stdio" if transport == "stdio" else "streamable-http",
            host=host,
            port=port,
            allow_remote=allow_remote,
        )
        serve(app_context(ctx), options)
