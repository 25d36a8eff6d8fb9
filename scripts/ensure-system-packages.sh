#!/usr/bin/env bash
# Installs the C libraries Strata links (SQLite and json-c), pkg-config, and the sqlite3
# shell (the tests use it as another process writing to a store), when missing.
# Called by `make demo` and `make test`; safe to run again: it does nothing when all are present.
set -euo pipefail

have_all() {
    command -v pkg-config >/dev/null 2>&1 && pkg-config --exists sqlite3 json-c && command -v sqlite3 >/dev/null 2>&1
}

if have_all; then
    exit 0
fi

echo "Strata needs the SQLite and json-c development packages and pkg-config; installing them."
case "$(uname -s)" in
Linux)
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "error: apt-get not found. Install the SQLite and json-c development packages and pkg-config with your package manager." >&2
        exit 1
    fi
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        sudo="sudo"
        echo "(not root: using sudo)"
    fi
    echo "+ apt-get update && apt-get install -y libsqlite3-dev libjson-c-dev pkg-config sqlite3"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsqlite3-dev libjson-c-dev pkg-config sqlite3
    ;;
Darwin)
    if ! command -v brew >/dev/null 2>&1; then
        echo "error: Homebrew not found. Install sqlite, json-c and pkg-config, then run make again." >&2
        exit 1
    fi
    echo "+ brew install sqlite json-c pkg-config"
    brew install sqlite json-c pkg-config
    ;;
*)
    echo "error: unsupported system $(uname -s); install SQLite, json-c and pkg-config yourself." >&2
    exit 1
    ;;
esac

if ! have_all; then
    echo "error: the packages were installed but pkg-config still cannot find sqlite3 and json-c." >&2
    exit 1
fi
echo "System packages ready."
