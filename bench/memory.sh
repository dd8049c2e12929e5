#!/usr/bin/env bash
# Peak memory of `chunklab chunk` on one large file, split into anonymous memory (heap: what the
# process allocates) and file-backed memory (pages of the memory-mapped input, which the kernel can
# drop at any time). Samples /proc/PID/status every 50 ms.
#
#   bench/memory.sh FILE [chunklab chunk options...]
#   e.g. bench/memory.sh /tmp/big/1g.txt --strategy recursive --size 2000 --overlap 200
set -euo pipefail
BIN=${CHUNKLAB:-$(dirname "$0")/../target/release/chunklab}
FILE=$1; shift
"$BIN" chunk "$FILE" "$@" -q -o /dev/null &
pid=$!
peak_anon=0; peak_file=0; peak_rss=0
while kill -0 "$pid" 2>/dev/null; do
  if read -r anon file rss < <(awk '/RssAnon/{a=$2} /RssFile/{f=$2} /VmRSS/{r=$2} END{print a+0, f+0, r+0}' /proc/$pid/status 2>/dev/null); then
    (( anon > peak_anon )) && peak_anon=$anon
    (( file > peak_file )) && peak_file=$file
    (( rss > peak_rss )) && peak_rss=$rss
  fi
  sleep 0.05
done
wait "$pid"
size=$(stat -c %s "$FILE")
printf 'input %.0f MB | peak anon (heap) %.0f MB | peak file-backed (mmap) %.0f MB | peak RSS %.0f MB | heap/input %.3f\n' \
  "$(echo "$size/1000000" | bc -l)" "$(echo "$peak_anon/1000" | bc -l)" "$(echo "$peak_file/1000" | bc -l)" \
  "$(echo "$peak_rss/1000" | bc -l)" "$(echo "$peak_anon*1000/$size" | bc -l)"
