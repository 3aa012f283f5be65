# shellcheck shell=bash
# Start a throwaway PostgreSQL cluster on a free loopback port for the cloud test suite.
#
# Usage (from .ci/run):   source .ci/postgres.sh && pg_start
#                         trap pg_stop EXIT        # (pg_start also registers pg_stop on EXIT when no
#                                                  #  EXIT trap exists yet)
# After pg_start:         AUTOPATCH_TEST_PG_URL=postgresql+psycopg://autopatch@127.0.0.1:PORT/autopatch_test
#                         AUTOPATCH_REQUIRE_PG=1 (PG tests fail instead of skipping)
# Run directly:           bash .ci/postgres.sh   # starts, prints the URL, checks it, stops.
#
# Uses an installed PostgreSQL; installs Debian's `postgresql` package when no `initdb` is found only
# with AUTOPATCH_PG_INSTALL=1 (.ci/run sets it; scripts/test.sh never installs system packages). The cluster lives in a temp
# directory owned by the `postgres` OS user (initdb refuses root), listens on 127.0.0.1 only, trusts
# local connections (it is throwaway and loopback-only) and is removed by pg_stop.

_pg_bindir() {
    local dir
    if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir
        return 0
    fi
    for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [ -x "$dir/initdb" ]; then
            echo "$dir"
            return 0
        fi
    done
    command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)" && return 0
    return 1
}

_pg_free_port() {
    python3 - <<'PY'
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()
PY
}

_pg_as_owner() {
    # Run a command as the cluster's OS user (root cannot run initdb/postgres).
    if [ "$(id -u)" = "0" ]; then
        su -s /bin/sh "$PG_OS_USER" -c "$*"
    else
        sh -c "$*"
    fi
}

pg_start() {
    local bindir
    if ! bindir="$(_pg_bindir)"; then
        if [ "${AUTOPATCH_PG_INSTALL:-0}" != "1" ]; then
            echo "postgres.sh: initdb not found (CI installs Debian's postgresql with AUTOPATCH_PG_INSTALL=1)" >&2
            return 1
        fi
        echo "postgres.sh: initdb not found; installing Debian's postgresql package" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2 && apt-get install -y -qq postgresql >&2 || {
            echo "postgres.sh: could not install postgresql" >&2
            return 1
        }
        bindir="$(_pg_bindir)" || { echo "postgres.sh: initdb still missing" >&2; return 1; }
    fi
    if [ "$(id -u)" = "0" ]; then
        PG_OS_USER=postgres
        if ! id "$PG_OS_USER" >/dev/null 2>&1; then
            useradd --system --no-create-home --shell /bin/sh "$PG_OS_USER" || return 1
        fi
    else
        PG_OS_USER="$(id -un)"
    fi
    PG_TMP="$(mktemp -d /tmp/autopatch-pg.XXXXXX)"
    chmod 755 "$PG_TMP"
    if [ "$(id -u)" = "0" ]; then chown "$PG_OS_USER" "$PG_TMP"; fi
    PG_DATA="$PG_TMP/data"
    PG_PORT="$(_pg_free_port)"
    _pg_as_owner "'$bindir/initdb' -D '$PG_DATA' -U autopatch --auth=trust --encoding=UTF8 --locale=C.UTF-8 -N" \
        >"$PG_TMP/initdb.log" 2>&1 || _pg_as_owner "'$bindir/initdb' -D '$PG_DATA' -U autopatch --auth=trust --encoding=UTF8 --no-locale -N" \
        >"$PG_TMP/initdb.log" 2>&1 || { cat "$PG_TMP/initdb.log" >&2; return 1; }
    _pg_as_owner "'$bindir/pg_ctl' -D '$PG_DATA' -l '$PG_TMP/server.log' -w -t 60 start \
        -o \"-h 127.0.0.1 -p $PG_PORT -k '$PG_TMP' -c fsync=off -c synchronous_commit=off \
        -c full_page_writes=off -c max_connections=200\"" >/dev/null \
        || { cat "$PG_TMP/server.log" >&2; return 1; }
    PG_BINDIR="$bindir"
    "$bindir/createdb" -h 127.0.0.1 -p "$PG_PORT" -U autopatch autopatch_test || { pg_stop; return 1; }
    export PG_TMP PG_DATA PG_PORT PG_BINDIR PG_OS_USER
    export AUTOPATCH_TEST_PG_URL="postgresql+psycopg://autopatch@127.0.0.1:$PG_PORT/autopatch_test"
    export AUTOPATCH_REQUIRE_PG=1
    if [ -z "$(trap -p EXIT)" ]; then trap pg_stop EXIT; fi
    echo "postgres.sh: PostgreSQL ready at $AUTOPATCH_TEST_PG_URL" >&2
}

pg_stop() {
    if [ -n "${PG_DATA:-}" ] && [ -d "$PG_DATA" ]; then
        _pg_as_owner "'$PG_BINDIR/pg_ctl' -D '$PG_DATA' -m fast -w stop" >/dev/null 2>&1 || true
    fi
    if [ -n "${PG_TMP:-}" ] && [ -d "$PG_TMP" ]; then rm -rf "$PG_TMP"; fi
    unset PG_DATA PG_TMP AUTOPATCH_TEST_PG_URL AUTOPATCH_REQUIRE_PG
}

# Executed directly (not sourced): start, show the URL, run one query, stop.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    pg_start
    echo "$AUTOPATCH_TEST_PG_URL"
    "$PG_BINDIR/psql" -h 127.0.0.1 -p "$PG_PORT" -U autopatch -d autopatch_test -Atc "SELECT version()"
    pg_stop
fi
