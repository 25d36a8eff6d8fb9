#!/usr/bin/env bash
# Runs a command with STRATA_POSTGRES_URL pointing at a PostgreSQL server (and, for a cluster it
# starts, STRATA_POSTGRES_SOCKET_URL at the same server through its Unix socket), for the
# PostgresStore tests:
#
#   scripts/with-postgres.sh swift test
#
# With STRATA_POSTGRES_URL already set, the command runs against that server. Otherwise the
# PostgreSQL server programs are installed when missing (Debian's `postgresql`), a throwaway
# cluster is started in a temporary folder (scripts/postgres-cluster.sh), and it is stopped
# and removed when the command ends, whether it passed or failed. When no server can be
# installed or started, the command runs without one, with STRATA_POSTGRES_SKIP_REASON saying
# why, and the tests report themselves skipped with that reason.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [ -n "${STRATA_POSTGRES_URL:-}" ]; then
    exec "$@"
fi

have_server() {
    ls -d /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1
}

if ! have_server && [ "$(uname -s)" = Linux ] && command -v apt-get >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo="sudo -n"
    echo "+ apt-get install -y postgresql (for the PostgresStore tests)" >&2
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql; } >/dev/null 2>&1 \
        || echo "with-postgres: could not install postgresql" >&2
fi
if ! have_server; then
    reason="the PostgreSQL server programs are not installed and could not be installed"
    echo "with-postgres: $reason; the PostgresStore tests will be reported as skipped" >&2
    STRATA_POSTGRES_SKIP_REASON="no PostgreSQL server: $reason" exec "$@"
fi

cluster=$(mktemp -d "${TMPDIR:-/tmp}/strata-postgres.XXXXXX")
chmod 755 "$cluster"
stop() { "$here/postgres-cluster.sh" stop "$cluster"; }
trap stop EXIT
trap 'exit 130' INT TERM
if ! url=$("$here/postgres-cluster.sh" start "$cluster"); then
    reason="a throwaway cluster could not be started (see the messages above)"
    echo "with-postgres: $reason; the PostgresStore tests will be reported as skipped" >&2
    STRATA_POSTGRES_SKIP_REASON="no PostgreSQL server: $reason" "$@"
    exit $?
fi
echo "with-postgres: a throwaway PostgreSQL cluster at $url" >&2
# The same server through its Unix socket (the folder percent-encoded as the host, as libpq reads it).
port=${url##*:}; port=${port%%/*}
socket_url="postgres://strata@$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$cluster/socket"):$port/strata"
STRATA_POSTGRES_URL=$url STRATA_POSTGRES_SOCKET_URL=$socket_url "$@"
