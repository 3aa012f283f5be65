#!/usr/bin/env bash
# Install the MCP Inspector (a client nobody here wrote) into a cache folder, once, and print the path of
# its CLI. tests/mcp_server/test_inspector.py calls this; so can a person:
#   "$(bash scripts/mcp_inspector.sh)" --cli .venv/bin/autopatch-j mcp --method tools/list
# Needs node and npm (the npm registry). AUTOPATCH_INSPECTOR_DIR overrides the cache folder.
set -euo pipefail
VERSION=0.15.0
DIR=${AUTOPATCH_INSPECTOR_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/autopatch-j/mcp-inspector-$VERSION}
BIN="$DIR/node_modules/.bin/mcp-inspector"
if [ ! -x "$BIN" ]; then
  mkdir -p "$DIR"
  npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/inspector@$VERSION" >&2
fi
echo "$BIN"
