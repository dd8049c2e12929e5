#!/usr/bin/env bash
# Speed comparison: chunklab beside the peer chunkers (LangChain, Chonkie, semchunk,
# semantic-text-splitter, LlamaIndex), through the shared harness's --external protocol.
#
#   PEERS=/tmp/peers WITH_CORPUS=1 /work/shared/peers/setup.sh   # once: venv + 73 MB corpus (~3 min)
#   bench/peers.sh                        # all cases, 3 rounds
#   RUNS=5 bench/peers.sh token           # one case, 5 rounds
#
# Cases (the harness's settings: 2000/200 chars, 512/64 cl100k tokens):
#   recursive  recursive 2000/200 chars on the whole corpus (8,073 files, 73 MB), one thread
#   token      token 512/64 cl100k on the harness's deterministic 10 MB sample (--max-mb 10), plus
#              the baselines "tokenize once" (Sizer::count) and "measure once" (Sizer::measure)
#   markdown   Markdown heading-aware chunking 2000 chars on the corpus's Markdown files: chunklab
#              parses each file (pulldown-cmark) and runs `headings` (and `elements`) inside the
#              timed region, like LangChain's MarkdownHeaderTextSplitter + recursive does
#   big        recursive 2000/200 chars on big/all.txt: the whole corpus as ONE 73 MB document
#
# Method. The machine is shared, so every case runs in RUNS rounds; a round starts one fresh
# process per peer case and per chunklab variant, each doing one timed run (bench_peers.py
# --runs 1). The chunklab block runs before AND after the peer block in every round (its runs
# are short and cheap), so chunklab has 2 x RUNS samples that bracket the peers' in time.
# Reported: median wall time over rounds as MB/s, MB per CPU-second, and "chunklab speed-up" =
# peer median wall / chunklab median wall (a ratio of medians from the same interleaved rounds).
# What is timed is bench_peers.py's definition (see its docstring); chunklab's side is
# crates/chunklab-cli/src/bin/chunklab-bench-driver.rs (time only `Chunker::spans` over every
# document, one thread; `chunklab-chunks` times `chunk_document`, i.e. full Chunks with ids).
# Token case: afterwards every chunklab chunk of the sample is re-counted with Python tiktoken
# (limit 512, and Span.tokens must equal tiktoken's count).
#
# Environment:
#   PEERS=/tmp/peers     harness workspace (setup.sh output)
#   RUNS=3               rounds per case
#   OUT=...              result folder (default $PEERS/results/chunklab-<UTC time>)
#   SKIP_BUILD=1         use the driver already built in target/release
#   REPORT_ONLY=1        measure nothing; rebuild $OUT/peers.md from the JSON already in $OUT
#   ALL_PEERS=1          also run the slowest peer variants skipped by default (token: HF-file
#                        tokenizer, LlamaIndex TokenTextSplitter, Chonkie with tiktoken; big:
#                        semantic-text-splitter, which did not finish on 73 MB in 11 min)
#   RECURSIVE_SKIP / TOKEN_SKIP / MARKDOWN_SKIP / BIG_SKIP   regex on peer case ids to skip (overrides default)
#   TIMEOUT_S=900        per peer process
#   TOKEN_MB=10          size of the token case's sample (the harness's --max-mb)
# Output: $OUT/peers.md (tables + commands), $OUT/*.json (raw harness output), $OUT/*.log.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
PEERS=${PEERS:-/tmp/peers}
RUNS=${RUNS:-3}
TIMEOUT_S=${TIMEOUT_S:-900}
OUT=${OUT:-$PEERS/results/chunklab-$(date -u +%Y%m%dT%H%M%SZ)}
CASES=("${@:-recursive token big}")
read -r -a CASES <<<"${CASES[*]}"
PY=$PEERS/venv/bin/python
BENCH=$PEERS/bench_peers.py
export TMPDIR=$PEERS/tmp TIKTOKEN_CACHE_DIR=$PEERS/tiktoken_cache
unset RUST_BACKTRACE RUST_LIB_BACKTRACE

for f in "$PY" "$BENCH" "$PEERS/corpus" "$PEERS/big/all.txt"; do
  [[ -e $f ]] || { echo "missing $f: run PEERS=$PEERS WITH_CORPUS=1 /work/shared/peers/setup.sh" >&2; exit 1; }
done
mkdir -p "$OUT" "$TMPDIR"
CMDS=$OUT/commands.txt
MEASURE=1
[[ ${REPORT_ONLY:-0} == 1 ]] && MEASURE=0

# ---- build the driver, and run a private copy so concurrent rebuilds cannot swap it mid-run
TARGET=${CARGO_TARGET_DIR:-$REPO/target}
DRV=$OUT/chunklab-bench-driver
if ((MEASURE)); then
  : >"$CMDS"
  if [[ ${SKIP_BUILD:-0} != 1 ]]; then
    echo "(cd $REPO && cargo build --release -p chunklab --bin chunklab-bench-driver)" | tee -a "$CMDS"
    (cd "$REPO" && cargo build --release -p chunklab --bin chunklab-bench-driver)
  fi
  cp "$TARGET/release/chunklab-bench-driver" "$DRV"
  git -C "$REPO" status --short >"$OUT/git-status.txt" 2>&1 || true
fi

# ---- case definitions: path, harness args, default peer skip regex, chunklab variants
ALL=${ALL_PEERS:-0}
declare -A PATH_OF ARGS_OF SKIP_OF
PATH_OF[recursive]=$PEERS/corpus
ARGS_OF[recursive]="--tasks recursive"
SKIP_OF[recursive]=${RECURSIVE_SKIP:-}
PATH_OF[token]=$PEERS/corpus
ARGS_OF[token]="--tasks token --max-mb ${TOKEN_MB:-10}"
SKIP_OF[token]=${TOKEN_SKIP:-$([[ $ALL == 1 ]] || echo 'huggingface|llama-index-core/TokenTextSplitter|chonkie/.*\(tiktoken\)')}
PATH_OF[markdown]=$PEERS/corpus
ARGS_OF[markdown]="--tasks markdown"
SKIP_OF[markdown]=${MARKDOWN_SKIP:-$([[ $ALL == 1 ]] || echo 'from_tiktoken_model|chonkie')}
PATH_OF[big]=$PEERS/big/all.txt
ARGS_OF[big]="--tasks recursive"
SKIP_OF[big]=${BIG_SKIP:-$([[ $ALL == 1 ]] || echo 'semantic-text-splitter')}

externals() {  # case -> one --external spec per line
  case $1 in
    recursive)
      echo "chunklab::recursive::$DRV"
      echo "chunklab-chunks::recursive::BENCH_API=chunks $DRV" ;;
    token)
      echo "chunklab-fixed::token::$DRV"
      echo "chunklab-recursive::token::BENCH_STRATEGY=recursive $DRV"
      echo "chunklab-tokenize-once::token::BENCH_TASK=tokenize $DRV"
      echo "chunklab-measure-once::token::BENCH_TASK=measure $DRV" ;;
    markdown)
      echo "chunklab-headings::markdown::$DRV"
      echo "chunklab-elements::markdown::BENCH_STRATEGY=elements $DRV" ;;
    big)
      echo "chunklab::recursive::$DRV" ;;
  esac
}

bench() {  # name, args... : one bench_peers.py invocation, logged
  local name=$1; shift
  printf '%q ' "$PY" "$BENCH" "$@" --out "$OUT/$name.json" >>"$CMDS"; echo >>"$CMDS"
  echo "  $name ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
  "$PY" "$BENCH" "$@" --out "$OUT/$name.json" >"$OUT/$name.log" 2>&1 \
    || echo "  $name: rc=$? (see $OUT/$name.log)"
}

for c in "${CASES[@]}"; do
  [[ -n ${PATH_OF[$c]:-} ]] || { echo "unknown case $c (recursive, token, markdown, big)" >&2; exit 2; }
  ((MEASURE)) || continue
  read -r -a args <<<"${ARGS_OF[$c]}"
  ext=()
  while IFS= read -r spec; do ext+=(--external "$spec"); done < <(externals "$c")
  skip=()
  [[ -n ${SKIP_OF[$c]} ]] && skip=(--skip "${SKIP_OF[$c]}")
  echo "== $c: ${PATH_OF[$c]} ${ARGS_OF[$c]}, $RUNS rounds"
  echo "# case $c" >>"$CMDS"
  for ((r = 1; r <= RUNS; r++)); do
    ours=("${PATH_OF[$c]}" "${args[@]}" --runs 1 --timeout-s "$TIMEOUT_S" --only '^chunklab-externals-only$' "${ext[@]}")
    theirs=("${PATH_OF[$c]}" "${args[@]}" --runs 1 --timeout-s "$TIMEOUT_S" "${skip[@]}")
    bench "$c.r$r.chunklab-before" "${ours[@]}"
    bench "$c.r$r.peers" "${theirs[@]}"
    bench "$c.r$r.chunklab-after" "${ours[@]}"
  done
done

# ---- token case: check chunklab's chunks with Python tiktoken (every chunk of the whole sample,
# not only the harness's 2 MB sample): count <= 512 and Span.tokens == tiktoken's count.
if ((MEASURE)) && [[ " ${CASES[*]} " == *" token "* ]]; then
  echo "== token: tiktoken check of chunklab's spans"
  PEERS=$PEERS "$PY" - "$OUT" "$DRV" "${PATH_OF[token]}" "${TOKEN_MB:-10}" <<'PY'
import json, os, subprocess, sys
out, drv, path, mb = sys.argv[1:5]
sys.path.insert(0, os.environ["PEERS"])
import bench_peers as bp  # the harness's own file selection
import tiktoken

files = bp.select_files(bp.list_files(path, None), float(mb))
lst = os.path.join(out, "token.files.lst")
with open(lst, "wb") as f:
    f.write(b"\0".join(p.encode() for p in files) + b"\0")
# the driver reads files like the harness: UTF-8 with errors="replace"; offsets are into that
docs = [open(p, "rb").read().decode("utf-8", errors="replace").encode() for p in files]
enc = tiktoken.get_encoding("cl100k_base")
res = {}
for name, extra in (("chunklab-fixed", {}), ("chunklab-recursive", {"BENCH_STRATEGY": "recursive"})):
    dump = os.path.join(out, f"token.{name}.spans.tsv")
    env = {**os.environ, "BENCH_FILE_LIST": lst, "BENCH_TASK": "token", "BENCH_CHUNK_SIZE": "512",
           "BENCH_OVERLAP": "64", "BENCH_SIZE_UNIT": "tokens", "BENCH_ENCODING": "cl100k_base",
           "BENCH_RUNS": "1", "BENCH_DUMP_SPANS": dump, **extra}
    p = subprocess.run([drv], env=env, capture_output=True, text=True)
    if p.returncode:
        res[name] = {"error": (p.stderr.strip().splitlines() or ["?"])[-1]}
        continue
    n = over = mismatch = mx = 0
    for line in open(dump):
        d, s, e, t = map(int, line.split("\t"))
        k = len(enc.encode(docs[d][s:e].decode("utf-8"), disallowed_special=()))
        n += 1
        over += k > 512
        mismatch += k != t
        mx = max(mx, k)
    res[name] = {"chunks": n, "max_tok": mx, "over_512": over, "span_tokens_mismatch": mismatch}
    os.remove(dump)
json.dump(res, open(os.path.join(out, "token.tokcheck.json"), "w"), indent=1)
print(json.dumps(res))
PY
fi

# ---- combine the rounds into one Markdown report
SKIP_recursive=${SKIP_OF[recursive]} SKIP_token=${SKIP_OF[token]} SKIP_big=${SKIP_OF[big]} \
  REPO=$REPO "$PY" - "$OUT" "$RUNS" "${CASES[@]}" <<'PY'
import glob, json, os, re, statistics, subprocess, sys

out, runs, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
TITLE = {"recursive": "recursive 2000/200 chars, whole corpus (8,073 files), one thread",
         "token": "token 512/64 cl100k, the harness's deterministic corpus sample (--max-mb)",
         "markdown": "Markdown structure-aware 2000 chars (parse + chunk), the corpus's Markdown files",
         "big": "recursive 2000/200 chars, big/all.txt as ONE document"}
# which chunklab variant each peer row is compared against
MAIN = {"recursive": ["chunklab"], "big": ["chunklab"], "markdown": ["chunklab-headings"],
        "token": ["chunklab-fixed", "chunklab-recursive"]}


def rows_of(case):
    per, meta = {}, None
    for f in sorted(glob.glob(os.path.join(out, f"{case}.r*.json"))):
        d = json.load(open(f))
        meta = meta or d.get("meta")
        for r in d["results"]:
            e = per.setdefault(r["id"], {"first": r, "runs": [], "loads": [], "errors": []})
            if r.get("error") or r.get("unavailable"):
                e["errors"].append(r.get("error") or r.get("unavailable"))
                continue
            e["runs"] += r["runs"]
            e["loads"].append(r.get("load1_mean"))
            if r.get("tokcheck") and not e["first"].get("tokcheck"):
                e["first"] = r
    return per, meta


def fmt(x, nd=2):
    return "" if x is None else f"{x:.{nd}f}"


lines = []
git = subprocess.run(["git", "-C", os.environ.get("REPO", "."), "rev-parse", "--short", "HEAD"],
                     capture_output=True, text=True).stdout.strip()
lines.append(f"# chunklab vs peer chunkers ({runs} interleaved rounds per case)\n")
for case in cases:
    per, meta = rows_of(case)
    if not per:
        continue
    lines.append(f"## {case}: {TITLE.get(case, case)}\n")
    ck = os.path.join(out, f"{case}.tokcheck.json")
    ourcheck = json.load(open(ck)) if os.path.exists(ck) else {}
    stats = {}
    for cid, e in per.items():
        if not e["runs"]:
            continue
        walls = [r["wall_s"] for r in e["runs"]]
        cpus = [r["cpu_s"] for r in e["runs"] if r.get("cpu_s") is not None]
        stats[cid] = {"wall": statistics.median(walls), "min": min(walls), "max": max(walls),
                      "cpu": statistics.median(cpus) if cpus else None, "n": len(walls)}
    ext = {per[c]["first"]["peer"]: c for c in per if "/external/" in c}
    mains = [m for m in MAIN.get(case, []) if ext.get(m) in stats]
    hdr = ("| tool | variant | input MB | MB/s (median) | min-max MB/s | MB per CPU-s | rounds | load1 "
           "| chunks | mean chars | max chars | size check |"
           + "".join(f" {m} speed-up: wall (CPU) |" for m in mains))
    lines += [hdr, "|" + "---|" * (hdr.count("|") - 1)]
    order = sorted(per, key=lambda c: -(per[c]["first"]["in_bytes"] / stats[c]["wall"]) if c in stats else 0)
    for cid in order:
        e, r = per[cid], per[cid]["first"]
        if cid not in stats:
            lines.append(f"| {r['peer']} | {r['name']} | | n/a | | | | | | | | {'; '.join(sorted(set(e['errors'])))[:200]} |"
                         + " |" * len(mains))
            continue
        s, mb = stats[cid], r["in_bytes"] / 1e6
        tc, ours = r.get("tokcheck"), ourcheck.get(r["peer"])
        if ours and "error" in ours:
            check = "tiktoken check failed: " + ours["error"][:100]
        elif ours:
            check = (f"max {ours['max_tok']} tok, >512: {ours['over_512']}/{ours['chunks']}, "
                     f"Span.tokens != tiktoken: {ours['span_tokens_mismatch']} (whole sample)")
        elif tc:
            check = f"max {tc['max_tok']} tok, >512: {tc['over_512']}/{tc['chunks']} (2 MB sample)"
        elif "max_chunk_units" in e["runs"][0]:
            unit = "tok" if case == "token" else "chars"
            check = f"max {max(x['max_chunk_units'] for x in e['runs'])} {unit} (Span.tokens, all chunks)"
        else:
            check = ""
        name = r["name"] if "/external/" not in cid else r["config"].replace(out + "/", "")
        mean = r["chunk_chars_total"] / r["chunks"] if r["chunks"] else 0
        load = statistics.mean(x for x in e["loads"] if x is not None)
        row = (f"| {r['peer']} | {name} | {mb:.1f} | **{mb / s['wall']:.2f}** | {mb / s['max']:.2f}-{mb / s['min']:.2f} "
               f"| {fmt(mb / s['cpu'] if s['cpu'] else None)} | {s['n']} | {load:.1f} | {r['chunks']} | {mean:.0f} "
               f"| {r['max_chunk_chars']} | {check} |")
        for m in mains:
            o = stats[ext[m]]
            cpu = f" ({s['cpu'] / o['cpu']:.2f})" if s["cpu"] and o["cpu"] else ""
            row += f" {s['wall'] / o['wall']:.2f}{cpu} |"
        lines.append(row)
    lines.append("")
    if case == "token":
        tok = stats.get(ext.get("chunklab-tokenize-once"))
        mea = stats.get(ext.get("chunklab-measure-once"))
        def ratio(a, b, k):
            return f"{a[k] / b[k]:.2f}" if a.get(k) and b.get(k) else "?"
        for m in mains:
            for base, what in ((tok, "tokenizing once (Sizer::count)"), (mea, "measuring once (Sizer::measure)")):
                if base:
                    lines.append(f"- {m} chunking time = {ratio(stats[ext[m]], base, 'wall')} x {what} "
                                 f"by median wall, {ratio(stats[ext[m]], base, 'cpu')} x by median CPU time")
        lines.append("")
    skipped = os.environ.get(f"SKIP_{case}")
    if skipped:
        lines.append(f"Peer cases skipped (regex on case id): `{skipped}`.\n")
    if meta:
        v = meta["versions"]
        lines.append("Peers: " + ", ".join(f"{k} {v[k]}" for k in v if v[k]) + f"; machine: {meta['machine'].get('cpu', '?')}, "
                     f"{meta['machine'].get('nproc')} cores.\n")
lines.append(f"chunklab: git {git or '?'} (plus working tree), release build, one thread. "
             "speed-up = peer median wall / chunklab median wall over the same interleaved rounds "
             "(in brackets: the same ratio of median CPU times, less sensitive to other load). "
             "MB = 10^6 bytes of UTF-8 input.\n")
lines.append("## Commands\n\n```")
lines += open(os.path.join(out, "commands.txt")).read().splitlines()
lines.append("```")
md = os.path.join(out, "peers.md")
open(md, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
print(f"\nwrote {md}", file=sys.stderr)
PY
