#!/usr/bin/env bash
# What one `chunklab search --rerank` costs and does, end to end as a user runs it (issue 20 item 8):
# index the sample documents with the defaults, then time the user's question per rerank depth
# (best and median of N runs, model load included) and print where the answering chunk ranks.
#   bench/rerank/search-latency.sh [BIN] [N]
set -euo pipefail
BIN=${1:-target/release/chunklab}
N=${2:-5}
SHARED=${CHUNKLAB_SHARED:-$(cd "$(dirname "$0")/../../.." && pwd)/shared}
DOCS=$SHARED/datasets/documents
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
Q="How do I change the TCP port the PostgreSQL server listens on?"
echo "# $(git rev-parse --short HEAD) $BIN, $(nproc) cores, N=$N; index: chunklab index $DOCS --model minilm"
"$BIN" index "$DOCS" --index "$WORK/idx" --model minilm >/dev/null 2>&1
# The answer: the `port (integer)` entry of runtime-config-connection (Markdown and HTML copies).
rank_of_answer() {
  python3 -c '
import json, sys
hits = json.load(sys.stdin)["results"]
ranks = [i + 1 for i, h in enumerate(hits) if "runtime-config-connection" in h.get("source", "")
         and "TCP port" in h.get("text", "")]
print(ranks[0] if ranks else "-", end="")'
}
printf '%-14s %8s %8s %s\n' "rerank_top" "best_s" "median_s" "answer rank (k=10)"
for top in none 10 20 30 50; do
  args=(search "$Q" --index "$WORK/idx" --k 10 --json)
  [ "$top" != none ] && args+=(--rerank --rerank-top "$top")
  times=()
  for _ in $(seq "$N"); do
    s=$(date +%s.%N); out=$("$BIN" "${args[@]}"); e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  best=$(echo "$sorted" | head -1); med=$(echo "$sorted" | sed -n "$(( (N + 1) / 2 ))p")
  printf '%-14s %8.2f %8.2f %s\n' "$top" "$best" "$med" "$(echo "$out" | rank_of_answer)"
done
