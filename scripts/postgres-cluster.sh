#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests, in a folder of its own.
#
#   scripts/postgres-cluster.sh start DIR   # makes DIR, starts a cluster there, prints its URL
#   scripts/postgres-cluster.sh stop DIR    # stops the cluster and removes DIR
#
# The server listens on 127.0.0.1 on a free port and on a Unix socket in DIR/socket; the URL
# names the port, a user `strata` that needs no password, and a database `strata`. PostgreSQL
# refuses to run as root, so as root the cluster runs as the `postgres` user (Debian's
# `postgresql` package makes it). Exits 3, with the reason on stderr, when no PostgreSQL
# server programs are installed, so callers can report their tests as skipped.
set -euo pipefail

usage() {
    echo "usage: $0 start DIR | stop DIR" >&2
    exit 2
}

[ $# -eq 2 ] || usage
command=$1
dir=$2

# The newest installed server's programs: Debian keeps them out of PATH.
bindir=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bindir=$candidate; break; fi
done
if [ -z "$bindir" ]; then
    for candidate in $(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/initdb)"); do
        if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bindir=$candidate; fi
    done
fi
if [ -z "$bindir" ]; then
    echo "postgres-cluster: no PostgreSQL server programs (initdb, pg_ctl) are installed" >&2
    exit 3
fi

# Runs a command as the cluster's owner: `postgres` when we are root, else ourselves.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$command" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    mkdir -p "$dir/socket"
    if [ "$(id -u)" -eq 0 ]; then
        if ! id postgres >/dev/null 2>&1; then
            echo "postgres-cluster: running as root and there is no postgres user to run the server as" >&2
            exit 3
        fi
        chown -R postgres "$dir"
    fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bindir/initdb" --pgdata="$dir/data" --username=strata --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bindir/pg_ctl" --pgdata="$dir/data" --log="$dir/server.log" --wait --silent \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir/socket -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
        start || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bindir/createdb" --host="$dir/socket" --port="$port" --username=strata strata
    echo "postgres://strata@127.0.0.1:$port/strata"
    ;;
stop)
    if [ -d "$dir/data" ]; then
        as_owner "$bindir/pg_ctl" --pgdata="$dir/data" --mode=immediate --wait --silent stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    ;;
*)
    usage
    ;;
esac
