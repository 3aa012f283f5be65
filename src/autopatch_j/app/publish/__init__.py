"""`memory publish`: the project's decisions (and, with `--user`, personal preferences) in a managed
block of the files coding agents read at start — AGENTS.md and CLAUDE.md (docs/publish.md).

`service` is what every face calls (the CLI command, the drain's automatic publish, the hooks, the
MCP tool); `blocks` renders a block from memories (pure); `block_file` edits one file byte for byte
outside the block, atomically; `settings` reads the `publish` setting.
"""

#: The files a project publishes to, by the names `--to` and the `publish` setting use.
TARGETS = ("agents", "claude")
