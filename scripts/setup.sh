#!/usr/bin/env bash
# Create .venv (if missing) and install autopatch-j into it. Extra arguments select pip extras,
# e.g. `scripts/setup.sh cloud` or `scripts/setup.sh test` (which includes cloud). Idempotent and quiet;
# safe to run on every invocation. With no argument: the base package (CLI, Memory, import, MCP).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install --quiet --upgrade pip
fi
extras=""
if [ "$#" -gt 0 ]; then extras="[$(IFS=,; echo "$*")]"; fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${extras}"
