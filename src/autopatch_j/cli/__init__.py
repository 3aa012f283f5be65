"""Command line: REPL and subcommands (rendering only)."""
