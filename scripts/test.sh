#!/usr/bin/env bash
# Quick start, command 2: set up and run lint, type checks and the whole test suite — on SQLite
# and, when a PostgreSQL server can be installed/started here, on PostgreSQL too.
# CI (.ci/run) runs exactly this script with AUTOPATCH_REQUIRE_PG=1, which turns a missing
# PostgreSQL into failures instead of skips. Extra arguments are passed to pytest.
# It installs only inside the repository: Python packages into .venv/, and — when node and npm are
# present — the MCP Inspector into .tools/ (scripts/mcp_inspector.sh). It never installs system
# packages: an installed PostgreSQL is used, a missing one makes the cloud tests run on SQLite only.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
if [ -z "${AUTOPATCH_TEST_PG_URL:-}" ] && [ "${AUTOPATCH_SKIP_PG:-0}" != "1" ]; then
  # shellcheck source=/dev/null
  source .ci/postgres.sh
  if ! pg_start; then
    echo "PostgreSQL could not be started; cloud tests run on SQLite only." >&2
  fi
fi
echo "== ruff"
.venv/bin/ruff check src tests bench scripts
.venv/bin/ruff format --check src tests bench scripts
echo "== mypy"
.venv/bin/mypy
echo "== pytest"
# Two workers (pytest-xdist); tests that share an expensive fixture or a server carry an xdist_group
# mark and run on one worker (docs/testing.md). AUTOPATCH_TEST_WORKERS=0 runs in one process; later
# arguments win, so `scripts/test.sh tests/x -n 0` works too.
.venv/bin/python -m pytest -q -n "${AUTOPATCH_TEST_WORKERS:-2}" --dist loadgroup "$@"
