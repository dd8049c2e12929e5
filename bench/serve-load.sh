#!/usr/bin/env bash
# Load benchmark of `chunklab serve` on loopback: an index of the Chroma corpora (MiniLM),
# queried with the Chroma set's questions (distinct queries, cycled). Closed loop: CLIENTS
# concurrent clients for SECONDS on each search mode and on chunk, with misbehaving clients
# (stalling or disconnecting mid-upload) running alongside. Open loop: hybrid search offered at
# fixed rates (RATES, requests/s over 64 connections; latency counted from when each request
# was due). Prints one JSON line per run.
#
#   bench/serve-load.sh [CLIENTS] [SECONDS]      (release build; needs the minilm model)
#   NO_BUILD=1 skips the build; SERVE_ARGS adds `chunklab serve` flags; RATES="50 100".
set -euo pipefail
cd "$(dirname "$0")/.."
CLIENTS=${1:-64}
SECS=${2:-30}
SHARED=${CHUNKLAB_SHARED:-../shared}
CORPORA=$SHARED/datasets/chroma/corpora
[ -d "$CORPORA" ] || { echo "no Chroma corpora at $CORPORA (set CHUNKLAB_SHARED)" >&2; exit 1; }
if [ -z "${NO_BUILD:-}" ]; then
  # Two commands: `--example` given once would select only example targets of every package.
  cargo build --release -q -p chunklab --bin chunklab
  cargo build --release -q -p chunklab-server --example serve_load
fi
BIN=target/release/chunklab
LOAD=target/release/examples/serve_load
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$BIN" index "$CORPORA" --index "$WORK/idx" --strategy recursive --size 400 --unit tokens \
    --model minilm --acl '**=bench' -q
cat > "$WORK/tokens.toml" <<TOML
[[token]]
name = "bench"
token = "bench-token-123"
groups = ["bench"]
role = "read"
TOML
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --index "$WORK/idx" --tokens "$WORK/tokens.toml" --port "$PORT" \
    --strategy recursive --size 400 --unit tokens --model minilm ${SERVE_ARGS:-} 2>"$WORK/serve.log" &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.2; done
curl -sf "http://127.0.0.1:$PORT/ready"; echo
python3 -c 'import csv,sys; [print(r["question"].replace("\n", " ")) for r in csv.DictReader(open(sys.argv[1]))]' \
    "$SHARED/datasets/chroma/questions_df.csv" > "$WORK/questions.txt"
echo "git $(git rev-parse --short HEAD) · $(nproc) cores · $CLIENTS clients · $SECS s · $(wc -l < "$WORK/questions.txt") distinct queries"
SEARCH="http://127.0.0.1:$PORT/v1/search?q={q}&k=10&mode"
# Cumulative query embedding passes and queries (their ratio: the mean batch size).
batches() { curl -s "http://127.0.0.1:$PORT/metrics" | grep -E '^chunklab_quer' | tr '\n' ' '; echo; }
# Light load first: what one hybrid query costs when the cores are not saturated.
for C in 1 4; do
  "$LOAD" --url "$SEARCH=hybrid" --queries "$WORK/questions.txt" \
      --token bench-token-123 --clients "$C" --seconds 10 --slow 0
  batches
done
# Open loop: the latency at a given offered load.
for R in ${RATES:-25 50 100 150 200}; do
  "$LOAD" --url "$SEARCH=hybrid" --queries "$WORK/questions.txt" --rate "$R" \
      --token bench-token-123 --clients 64 --seconds 15 --slow 0
  batches
done
for MODE in hybrid bm25 dense; do
  "$LOAD" --url "$SEARCH=$MODE" --queries "$WORK/questions.txt" \
      --token bench-token-123 --clients "$CLIENTS" --seconds "$SECS" --slow 4
  batches
done
head -c 20000 "$CORPORA/state_of_the_union.md" | python3 -c 'import json,sys; print(json.dumps({"text": sys.stdin.read(), "strategy": "recursive", "size": 512, "unit": "tokens", "tokenizer": "cl100k"}))' > "$WORK/chunk.json"
"$LOAD" --url "http://127.0.0.1:$PORT/v1/chunk" --method POST --body-file "$WORK/chunk.json" \
    --clients "$CLIENTS" --seconds "$SECS" --slow 4
curl -s "http://127.0.0.1:$PORT/metrics" | grep -E "^chunklab_(http_rejected|index|query|queries)" || true
