#!/usr/bin/env bash
# Builds the scanned test set: born-digital PDFs whose true text is known, rendered to images and
# wrapped as image-only PDFs, clean and damaged, at 150, 200 and 300 dpi. Reproducible: fixed
# seeds and fixed per-page skew angles.
#
#   [CHUNKLAB=target/release/chunklab] scripts/scanned-set/build.sh [OUT]   (default target/scanned-set)
#
# Needs pdftoppm + pdftotext (poppler-utils), img2pdf and Debian's python3-pil (damage.py,
# typeset.py; fonts-dejavu for the generated documents).
# Output, per document D:
#   OUT/D/truth-N.txt            the text layer of page N (pdftotext), the reference
#   OUT/D/DPI-clean.pdf          pages rendered at DPI (grey), wrapped with img2pdf
#   OUT/D/DPI-damaged.pdf        the same pages skewed 1–3°, with noise, saved as JPEG quality 35;
#                                page 2 is turned 90° (a page fed sideways)
set -euo pipefail
OUT=${1:-target/scanned-set}
SRC=${CHUNKLAB_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}/datasets/documents/pdf
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in pdftoppm pdftotext img2pdf /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "build.sh: $tool is not installed" >&2; exit 1; }
done
# name:first:last — the Dutch council decision, an English SQL reference page range, and the
# first pages of the Debian reference (English, two fonts, tables).
DOCS="raadsbesluit.pdf:1:2 pg-sql-createtable.pdf:1:3 debian-reference.en.pdf:5:7"
SKEWS=(1.2 -2.1 2.8 -1.5 3.0 -2.6)
mkdir -p "$OUT"
# Wrap page images as DIR/DPI-clean.pdf and, skewed, noisy and JPEG'd, DIR/DPI-damaged.pdf.
scan() { # DIR DPI PNG...
  local d="$1" dpi="$2" i=0 skew turn out
  shift 2
  local pages=("$@") damaged=() tmp
  tmp=$(mktemp -d)
  img2pdf "${pages[@]}" -o "$d/$dpi-clean.pdf"
  for png in "${pages[@]}"; do
    skew=${SKEWS[$((i % ${#SKEWS[@]}))]}
    turn=0
    [ "$i" -eq 1 ] && turn=1
    out="$tmp/d-$i.jpg"
    /usr/bin/python3 "$HERE/damage.py" "$png" "$out" "$skew" "$dpi" $((42 + i)) "$turn"
    damaged+=("$out")
    i=$((i + 1))
  done
  img2pdf --imgsize "${dpi}dpi" "${damaged[@]}" -o "$d/$dpi-damaged.pdf"
  rm -rf "$tmp"
}
for spec in $DOCS; do
  IFS=: read -r file first last <<<"$spec"
  name=${file%.pdf}
  d="$OUT/$name"
  mkdir -p "$d"
  for ((p = first; p <= last; p++)); do
    pdftotext -enc UTF-8 -f "$p" -l "$p" "$SRC/$file" "$d/truth-$((p - first + 1)).txt"
  done
  for dpi in 150 200 300; do
    tmp=$(mktemp -d)
    pdftoppm -r "$dpi" -gray -png -f "$first" -l "$last" "$SRC/$file" "$tmp/p"
    mapfile -t pages < <(ls "$tmp"/p-*.png | sort)
    scan "$d" "$dpi" "${pages[@]}"
    rm -rf "$tmp"
  done
  echo "$d: $(ls "$d" | tr '\n' ' ')"
done
# Generated Dutch archive documents (when CHUNKLAB names a chunklab binary): two motions and a
# letter from the built-in archive (`chunklab bench --export`), typeset as printed pages
# (typeset.py, whose page texts are the truth) and scanned like the PDFs above, as gen-NAME/.
if [ -n "${CHUNKLAB:-}" ]; then
  exp=$(mktemp -d)
  "$CHUNKLAB" bench --export "$exp/archive" >/dev/null
  for f in moties/2019/motie-2019-0036.md moties/2019/motie-2019-0031.md \
           collegebrieven/2020/collegebrief-2020-0044.md; do
    d="$OUT/gen-$(basename "$f" .md)"
    mkdir -p "$d"
    for dpi in 150 200 300; do
      tmp=$(mktemp -d)
      /usr/bin/python3 "$HERE/typeset.py" "$exp/archive/corpus/$f" "$tmp" "$dpi" >/dev/null
      cp "$tmp"/truth-*.txt "$d/"
      mapfile -t pages < <(ls "$tmp"/page-*.png | sort -V)
      scan "$d" "$dpi" "${pages[@]}"
      rm -rf "$tmp"
    done
    echo "$d: $(ls "$d" | tr '\n' ' ')"
  done
  rm -rf "$exp"
fi
