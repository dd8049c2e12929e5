#!/usr/bin/env bash
# End to end as users run it (issue 18, goal 1): `chunklab chunk FILE ... --format F > out`
# (process start, reading, parsing, chunking, ids, rendering, writing) beside LangChain's
# `RecursiveCharacterTextSplitter(2000, 200, add_start_index=True).create_documents([text])`
# plus one `json.dumps` per chunk written to a file, on the same document, best of RUNS each,
# interleaved. LangChain is timed inside Python (starting Python and importing it are not
# counted); chunklab is timed as a whole process. Prints one line per case with the ratio.
#
# With `corpus` instead of a size the input is the whole corpus directory ($PEERS/corpus,
# 8,073 files, 73 MB): chunklab is given the directory; LangChain gets every file's text
# (read before its clock starts), `create_documents(texts, metadatas=[{"source": path}])`, and
# one `json.dumps` per chunk, the same protocol per file.
#
#   PEERS=/tmp/peers WITH_CORPUS=1 ../shared/peers/setup.sh    # once: the venv and corpus
#   bench/cli-e2e.sh [MB]         # the first MB (default 20) of $PEERS/big/all.txt, one document
#   bench/cli-e2e.sh corpus       # the corpus directory, one document per file
#   NO_BUILD=1 RUNS=5 bench/cli-e2e.sh
#
# Each timed run writes a new file (the previous output is removed and synced before the clock
# starts, for both tools): replacing an existing output costs the kernel, not the tool, about
# 40 ms for the corpus's 100 MB on ext4 (freeing the old pages at O_TRUNC, then at close the
# write-back that ext4's auto_da_alloc starts for a file truncated to nothing), and it falls on
# both tools. OVERWRITE=1 times the runs writing over the previous output instead.
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=${PEERS:-/tmp/peers}
MB=${1:-20}
RUNS=${RUNS:-3}
PY=$PEERS/venv/bin/python
[ -x "$PY" ] && [ -f "$PEERS/big/all.txt" ] || { echo "no peers venv/corpus under $PEERS (run ../shared/peers/setup.sh with WITH_CORPUS=1)" >&2; exit 1; }
[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p chunklab --bin chunklab
BIN=${BIN:-target/release/chunklab}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
if [ "$MB" = corpus ]; then
  [ -d "$PEERS/corpus" ] || { echo "no corpus under $PEERS" >&2; exit 1; }
  INPUT=$PEERS/corpus
else
  head -c $((MB * 1000000)) "$PEERS/big/all.txt" | iconv -c -f utf-8 -t utf-8 > "$WORK/doc.txt"
  INPUT=$WORK/doc.txt
fi
cat > "$WORK/lc.py" <<'PY'
import json, os, sys, time
from langchain_text_splitters import RecursiveCharacterTextSplitter
if os.path.isdir(sys.argv[1]):
    paths = sorted(os.path.join(d, f) for d, _, fs in os.walk(sys.argv[1]) for f in fs)
else:
    paths = [sys.argv[1]]
texts = [open(p, encoding="utf-8", errors="replace").read() for p in paths]
t0 = time.perf_counter()
splitter = RecursiveCharacterTextSplitter(chunk_size=2000, chunk_overlap=200, add_start_index=True)
if len(paths) == 1:
    docs = splitter.create_documents(texts)
else:
    docs = splitter.create_documents(texts, metadatas=[{"source": p} for p in paths])
with open(sys.argv[2], "w", encoding="utf-8") as out:
    for d in docs:
        out.write(json.dumps({"page_content": d.page_content, "metadata": d.metadata}, ensure_ascii=False))
        out.write("\n")
print(f"{time.perf_counter() - t0:.4f} {len(docs)}")
PY
best() { sort -g | head -1; }
# Before a timed run: the previous run's output written back (and removed unless OVERWRITE=1).
fresh() { sync; if [ -z "${OVERWRITE:-}" ]; then rm -f "$1"; sync; fi; }
if [ -d "$INPUT" ]; then
  what="$(find "$INPUT" -type f | wc -l) files, $(find "$INPUT" -type f -print0 | du -cb --files0-from=- | tail -1 | cut -f1) bytes"
else
  what="$(wc -c < "$INPUT") bytes"
fi
echo "git $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo '+dirty') · $(nproc) cores · $what · best of $RUNS · $([ -n "${OVERWRITE:-}" ] && echo "over the previous output" || echo "new output files")"
for FORMAT in jsonl langchain llamaindex; do
  ours=(); theirs=()
  for _ in $(seq "$RUNS"); do
    fresh "$WORK/out.$FORMAT"
    s=$(date +%s.%N)
    "$BIN" chunk "$INPUT" --strategy recursive --compat langchain --size 2000 --overlap 200 \
        --format "$FORMAT" -q > "$WORK/out.$FORMAT"
    e=$(date +%s.%N)
    ours+=("$(echo "$e - $s" | bc -l)")
    if [ "$FORMAT" = jsonl ]; then   # the LangChain side is the same for every format
      fresh "$WORK/lc.jsonl"
      # `$(…)` waits for Python to exit: it prints its time before tearing down its heap, and
      # a `read` from `<(…)` returned at once, so that teardown overlapped chunklab's next run.
      read -r t n <<< "$("$PY" "$WORK/lc.py" "$INPUT" "$WORK/lc.jsonl")"
      theirs+=("$t")
    fi
  done
  o=$(printf '%s\n' "${ours[@]}" | best)
  if [ "$FORMAT" = jsonl ]; then lc=$(printf '%s\n' "${theirs[@]}" | best); fi
  printf '%-10s chunklab %.3f s (%d chunks) · LangChain create_documents + json.dumps %.3f s (%d chunks) · %.1fx\n' \
      "$FORMAT" "$o" "$(wc -l < "$WORK/out.$FORMAT")" "$lc" "$(wc -l < "$WORK/lc.jsonl")" "$(echo "$lc / $o" | bc -l)"
done
