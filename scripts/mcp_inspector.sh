#!/usr/bin/env bash
# Install the MCP Inspector (a client nobody here wrote) into the repository's ignored `.tools/` folder,
# once, and print the path of its CLI. tests/mcp_server/test_inspector.py calls this; so can a person:
#   "$(bash scripts/mcp_inspector.sh)" --cli .venv/bin/autopatch-j mcp --method tools/list
# Needs node and npm (the npm registry). Nothing is written outside the repository: npm's download cache
# is `.tools/npm-cache`. AUTOPATCH_INSPECTOR_DIR overrides the install folder.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
VERSION=0.15.0
DIR=${AUTOPATCH_INSPECTOR_DIR:-$REPO/.tools/mcp-inspector-$VERSION}
BIN="$DIR/node_modules/.bin/mcp-inspector"
if [ ! -x "$BIN" ]; then
  mkdir -p "$DIR"
  npm install --prefix "$DIR" --cache "$REPO/.tools/npm-cache" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/inspector@$VERSION" >&2
fi
echo "$BIN"
