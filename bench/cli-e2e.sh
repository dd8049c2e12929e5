#!/usr/bin/env bash
# End to end as users run it (issue 18, goal 1): `chunklab chunk FILE ... --format F > out`
# (process start, reading, parsing, chunking, ids, rendering, writing) beside LangChain's
# `RecursiveCharacterTextSplitter(2000, 200, add_start_index=True).create_documents([text])`
# plus one `json.dumps` per chunk written to a file, on the same document, best of RUNS each,
# interleaved. LangChain is timed inside Python (starting Python and importing it are not
# counted); chunklab is timed as a whole process. Prints one line per case with the ratio.
#
#   PEERS=/tmp/peers WITH_CORPUS=1 ../shared/peers/setup.sh    # once: the venv and corpus
#   bench/cli-e2e.sh [MB]         # the first MB (default 20) of $PEERS/big/all.txt, one document
#   NO_BUILD=1 RUNS=5 bench/cli-e2e.sh
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=${PEERS:-/tmp/peers}
MB=${1:-20}
RUNS=${RUNS:-3}
PY=$PEERS/venv/bin/python
[ -x "$PY" ] && [ -f "$PEERS/big/all.txt" ] || { echo "no peers venv/corpus under $PEERS (run ../shared/peers/setup.sh with WITH_CORPUS=1)" >&2; exit 1; }
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p chunklab --bin chunklab
BIN=target/release/chunklab
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
head -c $((MB * 1000000)) "$PEERS/big/all.txt" | iconv -c -f utf-8 -t utf-8 > "$WORK/doc.txt"
cat > "$WORK/lc.py" <<'PY'
import json, sys, time
from langchain_text_splitters import RecursiveCharacterTextSplitter
text = open(sys.argv[1], encoding="utf-8").read()
t0 = time.perf_counter()
docs = RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200, add_start_index=True).create_documents([text])
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for d in docs:
        out.write(json.dumps({"page_content": d.page_content, "metadata": d.metadata}, ensure_ascii=False))
        out.write("\n")
print(f"{time.perf_counter() - t0:.4f} {len(docs)}")
PY
best() { sort -g | head -1; }
echo "git $(git rev-parse --short HEAD) · $(nproc) cores · $(wc -c < "$WORK/doc.txt") bytes · best of $RUNS"
for FORMAT in jsonl langchain llamaindex; do
  ours=(); theirs=()
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N)
    "$BIN" chunk "$WORK/doc.txt" --strategy recursive --compat langchain --size 2000 --overlap 200 \
        --format "$FORMAT" -q > "$WORK/out.$FORMAT"
    e=$(date +%s.%N)
    ours+=("$(echo "$e - $s" | bc -l)")
    if [ "$FORMAT" = jsonl ]; then   # the LangChain side is the same for every format
      read -r t n < <("$PY" "$WORK/lc.py" "$WORK/doc.txt" "$WORK/lc.jsonl")
      theirs+=("$t")
    fi
  done
  o=$(printf '%s\n' "${ours[@]}" | best)
  if [ "$FORMAT" = jsonl ]; then lc=$(printf '%s\n' "${theirs[@]}" | best); fi
  printf '%-10s chunklab %.3f s (%d chunks) · LangChain create_documents + json.dumps %.3f s (%d chunks) · %.1fx\n' \
      "$FORMAT" "$o" "$(wc -l < "$WORK/out.$FORMAT")" "$lc" "$(wc -l < "$WORK/lc.jsonl")" "$(echo "$lc / $o" | bc -l)"
done
