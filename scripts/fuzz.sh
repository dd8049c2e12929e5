#!/usr/bin/env bash
# Build the cargo-fuzz (libFuzzer) targets in fuzz/ and run each for a number of executions or a
# time, then print a table: executions, exec/s, corpus size and crashes per target.
#
#   scripts/fuzz.sh [--runs N] [--time SECONDS] [--max-len BYTES] [--sanitizer none|address] [--no-build] [TARGET...]
#
# Defaults: --runs 1000000 and --time 600 (whichever comes first), --sanitizer none (the code
# fuzzed is safe Rust; `address` instruments it with ASan, a slower build and run), every target.
# --max-len caps the input size libFuzzer makes and reads (longer corpus files are cut): the
# container and PDF corpora hold real documents of up to 190 KB, which run at tens of executions
# per second; with --max-len 16384 the same targets run at hundreds to thousands.
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Runs under
# `nice -n ${NICE:-19}`. Seeds: fuzz/seeds/<target>/ (committed) plus documents from
# ${CHUNKLAB_SHARED:-../shared}/datasets/documents, else the repository's data/datasets/documents; the corpus grows in
# fuzz/corpus/<target>/, crashes land in fuzz/artifacts/<target>/ (both git-ignored), each run's
# libFuzzer log in fuzz/artifacts/<target>.log. Reproduce a crash with
# `fuzz/target/x86_64-unknown-linux-gnu/release/<target> fuzz/artifacts/<target>/crash-…`.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
fuzz="$root/fuzz"
runs=1000000
time=600
sanitizer=none
build=1
maxlen=()
targets=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --time) time="$2"; shift 2 ;;
    --sanitizer) sanitizer="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --max-len) maxlen=("-max_len=$2"); shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(parse_pdf parse_docx parse_odt parse_html parse_markdown parse_rst parse_text parse_code
     decode_image chunk eval_readers index_open)
[[ ${#targets[@]} -eq 0 ]] && targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ -f "$fuzz/fuzz_targets/$t.rs" ]] || { echo "fuzz.sh: no target $t (known: ${all[*]})" >&2; exit 2; }
done

triple="$(rustc +nightly -vV | sed -n 's/^host: //p')"
bin="$fuzz/target/$triple/release"
if [[ $build -eq 1 ]]; then
  # `cargo fuzz build` builds one target or all of them.
  build_one() { (cd "$root" && nice -n "${NICE:-19}" cargo +nightly fuzz build -s "$sanitizer" "$@"); }
  if [[ ${#targets[@]} -eq ${#all[@]} ]]; then
    build_one
  else
    for t in "${targets[@]}"; do build_one "$t"; done
  fi
fi

shared="${CHUNKLAB_SHARED:-$root/../shared}/datasets/documents"
own="$root/data/datasets/documents"
seed() { # target, then files from the documents (../shared's, else the repository's data/)
  local t="$1"; shift
  local dir="$fuzz/corpus/$t"
  mkdir -p "$dir"
  [[ -d "$fuzz/seeds/$t" ]] && cp -n "$fuzz/seeds/$t"/* "$dir/" 2>/dev/null || true
  local f src
  for f in "$@"; do
    for src in "$shared/$f" "$own/$f"; do
      if [[ -e "$src" ]]; then cp -n "$src" "$dir/" 2>/dev/null || true; break; fi
    done
  done
}

dict_for() {
  case "$1" in
    parse_pdf) echo "-dict=$fuzz/dict/pdf.dict" ;;
    parse_html|parse_docx|parse_odt) echo "-dict=$fuzz/dict/xml.dict" ;;
  esac
}

# glibc malloc: keep freed memory for reuse instead of returning it to the kernel at every free
# (mmap threshold 32 MB, trim threshold 1 GB, one arena). `index_open` rebuilds a tantivy index in
# memory for every input that damages BM25, and each rebuild's fresh writer arena cost page
# faults and madvise calls: 30 -> 42 exec/s with this (with the 32 MB writer of that time; it is
# 15 MB and one thread per pool since). The code run is the same; set GLIBC_TUNABLES yourself to
# override.
export GLIBC_TUNABLES="${GLIBC_TUNABLES:-glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824:glibc.malloc.arena_max=1}"

declare -A execs speed corpus crashes status
for t in "${targets[@]}"; do
  case "$t" in
    parse_pdf) seed "$t" pdf/raadsbesluit.pdf pdf/pg-sql-createtable.pdf ;;
    parse_docx) seed "$t" docx/raadsbesluit.docx docx/pg-sql-createtable.docx ;;
    parse_odt) seed "$t" odt/raadsbesluit.odt odt/pg-sql-createtable.odt ;;
    parse_html) seed "$t" html/raadsbesluit.html html/pg-runtime-config-connection.html ;;
    parse_markdown) seed "$t" markdown/md_python-3.11_c-api_gen.md markdown/md_django-3.2_ref_models_relations.md ;;
    parse_rst) seed "$t" rst/rst_python-3.11_library_asyncore.rst rst/rst_python-3.11_library_imp.rst ;;
    *) seed "$t" ;;
  esac
  art="$fuzz/artifacts/$t"
  mkdir -p "$art"
  found() { find "$art" -type f \( -name 'crash-*' -o -name 'oom-*' -o -name 'timeout-*' -o -name 'leak-*' \) | wc -l; }
  before=$(found)
  log="$fuzz/artifacts/$t.log"
  echo "== $t: up to $runs runs / ${time}s" >&2
  rc=0
  # shellcheck disable=SC2046
  nice -n "${NICE:-19}" "$bin/$t" "$fuzz/corpus/$t" $(dict_for "$t") "${maxlen[@]}" \
    -runs="$runs" -max_total_time="$time" -timeout=20 -rss_limit_mb=3072 \
    -artifact_prefix="$art/" -print_final_stats=1 >"$log" 2>&1 || rc=$?
  execs[$t]=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed[$t]=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus[$t]=$(find "$fuzz/corpus/$t" -type f | wc -l)
  crashes[$t]=$(( $(found) - before ))
  if [[ $rc -eq 0 ]]; then status[$t]=ok; else status[$t]="exit $rc, see $log"; fi
  if [[ -z "${execs[$t]}" ]]; then # killed before the final stats: the last status line
    execs[$t]=$(grep -Eo '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  fi
done

printf '\n%-15s %12s %8s %8s %8s  %s\n' target executions exec/s corpus crashes status
for t in "${targets[@]}"; do
  printf '%-15s %12s %8s %8s %8s  %s\n' "$t" "${execs[$t]:-?}" "${speed[$t]:-?}" \
    "${corpus[$t]}" "${crashes[$t]}" "${status[$t]}"
done
printf '(sanitizer: %s; runs cap %s, time cap %ss per target%s)\n' "$sanitizer" "$runs" "$time" "${maxlen[0]:+; ${maxlen[0]}}"
