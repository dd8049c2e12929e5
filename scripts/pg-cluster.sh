#!/usr/bin/env bash
# Start or stop a loopback PostgreSQL cluster for chunklab's scale-out store: N primaries (shards,
# documents hash-partitioned across them by chunklab) and, for each shard, one streaming read
# replica that serves searches. Every server is a real PostgreSQL 18 + pgvector from
# scripts/pg-server.sh.
#
#   scripts/pg-cluster.sh start [--dir DIR] [--shards N] [--no-replicas]
#       prints the --store value: `postgres-cluster://` followed by the shards, `;`-separated,
#       each `PRIMARY_URL[|REPLICA_URL]`; also written to DIR/store
#   scripts/pg-cluster.sh stop DIR
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
die() { echo "pg-cluster.sh: $*" >&2; exit 1; }

start() {
    local dir="" shards=2 replicas=1
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) dir="$2"; shift 2 ;;
            --shards) shards="$2"; shift 2 ;;
            --no-replicas) replicas=0; shift ;;
            *) die "start: unknown option $1" ;;
        esac
    done
    [ -n "$dir" ] || dir="$(mktemp -d /tmp/chunklab-pgc.XXXXXX)"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    local spec=""
    for ((i = 0; i < shards; i++)); do
        local p r=""
        p="$("$here/pg-server.sh" start --dir "$dir/shard$i")"
        if [ "$replicas" = 1 ]; then
            r="$("$here/pg-server.sh" start --dir "$dir/shard$i-replica" --replica-of "$p")"
        fi
        spec+="${spec:+;}$p${r:+|$r}"
    done
    echo "postgres-cluster://$spec" >"$dir/store"
    cat "$dir/store"
}

stop() {
    local dir="${1:?stop DIR}"
    [ -d "$dir" ] || die "stop: $dir is no cluster directory"
    # Replicas first, so that they do not log a lost primary.
    for s in "$dir"/shard*-replica "$dir"/shard*; do
        [ -d "$s" ] && "$here/pg-server.sh" stop "$s"
    done
    rm -rf "$dir"
}

case "${1:-}" in
    start) shift; start "$@" ;;
    stop) shift; stop "$@" ;;
    *) die "usage: $0 start [--dir DIR] [--shards N] [--no-replicas] | stop DIR" ;;
esac
