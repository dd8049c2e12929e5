#!/usr/bin/env bash
# Issue 17: the generated Dutch municipal archive at full scale (92,184 documents).
#
#   bench/archive-full.sh export              # the archive to $DIR (corpus/ + queries.jsonl)
#   bench/archive-full.sh chunk [NAME...]     # chunklab chunk over the whole corpus, per strategy
#   bench/archive-full.sh bm25 [STRATEGY...]  # chunklab bench, BM25, per text strategy, full scale
#   bench/archive-full.sh dense N             # dense + hybrid + BM25, fixed vs headings, --docs N (999: the largest bench-sized sample)
#   bench/archive-full.sh late N              # the same with late(headings)
#
# The bm25 step needs 4-9 GiB of memory per strategy at full scale (the bench holds the opened
# index's chunk records while it indexes), hierarchical 12.6 GiB.
# Every step runs under /usr/bin/time -v (wall, user + system CPU, peak RSS) and writes its logs
# and results to $OUTDIR. Environment: CHUNKLAB (binary, default target/release/chunklab),
# DIR (default /tmp/full), OUTDIR (default /tmp/full-runs), DOCS (default 92184).
# Results (measured with a binary built at 126bc44) are in docs/EVALUATION.md, "The archive at
# full scale (issue 17)".
set -euo pipefail
cd "$(dirname "$0")/.."
CHUNKLAB=${CHUNKLAB:-target/release/chunklab}
DIR=${DIR:-/tmp/full}
OUTDIR=${OUTDIR:-/tmp/full-runs}
DOCS=${DOCS:-92184}
mkdir -p "$OUTDIR"

timed() { # name, command...: run it niced under time -v, print the summary line
    local name=$1
    shift
    /usr/bin/time -v -o "$OUTDIR/$name.time" nice -n 10 "$@" 2>"$OUTDIR/$name.err" || {
        echo "$name failed:" >&2
        tail -20 "$OUTDIR/$name.err" >&2
        return 1
    }
    awk -v n="$name" '
        /User time/ {u=$NF} /System time/ {s=$NF} /Elapsed/ {w=$NF}
        /Maximum resident/ {r=$NF}
        END {printf "%-28s wall %s  cpu %.1f s  peak RSS %.0f MiB\n", n, w, u+s, r/1024}
    ' "$OUTDIR/$name.time"
}

case "${1:-}" in
export)
    timed export "$CHUNKLAB" bench --docs "$DOCS" --export "$DIR"
    tail -2 "$OUTDIR/export.err"
    du -sh "$DIR/corpus"
    ;;
chunk)
    shift
    common=(--unit tokens --tokenizer cl100k --format jsonl -o /dev/null)
    run() { # name, flags...: skipped unless named on the command line (or none named)
        local name=$1
        shift
        if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then return 0; fi
        timed "chunk-$name" "$CHUNKLAB" chunk "$DIR/corpus" "${common[@]}" "$@"
        grep '^chunked' "$OUTDIR/chunk-$name.err"
    }
    only="$*"
    run fixed --strategy fixed --size 512
    run fixed-64 --strategy fixed --size 512 --overlap 64
    # The sweep's sliding row: 1024-token windows every 768 tokens.
    run sliding --strategy sliding --size 1024 --stride 768
    run sentence --strategy sentence --size 512
    run paragraph --strategy paragraph --size 512
    run recursive --strategy recursive --size 512
    run headings --strategy headings --size 512
    # Levels 2048/512/128 (the default), as the sweep's hierarchical row.
    run hierarchical --strategy hierarchical
    ;;
bm25)
    # One process per strategy (fixed: its two rows), so every strategy's peak RSS is its own
    # and a strategy that fails leaves the others' results.
    shift
    for st in ${*:-fixed sliding sentence paragraph recursive headings hierarchical}; do
        timed "bm25-$st" "$CHUNKLAB" bench --corpus "$DIR/corpus" --queries "$DIR/queries.jsonl" \
            --config bench/archive-full/text-bm25.toml --strategies "$st" --metric doc_recall \
            --json "$OUTDIR/bm25-$st.json" --markdown "$OUTDIR/bm25-$st.md" || continue
        grep '^|' "$OUTDIR/bm25-$st.md" | tail -n +3
    done
    ;;
dense | late)
    n=${2:?number of documents}
    strategies=fixed,headings
    [ "$1" = late ] && strategies=late
    conf=bench/archive-full/dense-sample.toml
    [ "$1" = late ] && conf=bench/archive-full/late-sample.toml
    timed "$1-$n" "$CHUNKLAB" bench --dataset archive --docs "$n" --config "$conf" \
        --strategies "$strategies" --metric doc_recall \
        --json "$OUTDIR/$1-$n.json" --markdown "$OUTDIR/$1-$n.md"
    cat "$OUTDIR/$1-$n.md"
    ;;
*)
    sed -n 2,13p "$0"
    exit 2
    ;;
esac
