#!/usr/bin/env bash
# Builds the scanned test set: born-digital PDFs whose true text is known, rendered to images and
# wrapped as image-only PDFs, clean and damaged, at 150, 200 and 300 dpi. Reproducible: fixed
# seeds and fixed per-page skew angles.
#
#   scripts/scanned-set/build.sh [OUT]        (default target/scanned-set)
#
# Needs pdftoppm + pdftotext (poppler-utils), img2pdf and Debian's python3-pil (damage.py).
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
    img2pdf "${pages[@]}" -o "$d/$dpi-clean.pdf"
    damaged=()
    i=0
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
  done
  echo "$d: $(ls "$d" | tr '\n' ' ')"
done
