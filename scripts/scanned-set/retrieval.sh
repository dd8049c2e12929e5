# Builds the retrieval twin for `chunklab bench`: a born-digital corpus of single-page documents
# cut from the PDFs in datasets/documents/pdf, its scanned twin (the same pages rendered with
# pdftoppm and wrapped as image-only PDFs with img2pdf, clean and/or damaged like build.sh), and
# the queries (scripts/scanned-set/queries.tsv) as JSONL labelled with their relevant document —
# each query's answer is checked to appear in the born-digital text, else the build fails.
# `chunklab bench` reads the PDFs themselves (through the pipeline's parsers, scans OCR'd with
# --ocr auto), so both twins are read the same way:
#
#   scripts/scanned-set/retrieval.sh OUT CHUNKLAB_BIN [CONDS]   (CONDS default: 300-clean)
#   chunklab bench --corpus OUT/pdf/COND --queries OUT/queries.jsonl --ocr auto \
#     --config scripts/scanned-set/retrieval-sweep.toml --json res-COND.json
#   scripts/scanned-set/compare.py res-born.json res-300-clean.json ...
#
# CONDS: comma separated DPI-clean / DPI-damaged. Output:
#   OUT/pdf/born/ID.pdf, OUT/pdf/COND/ID.pdf     the documents as PDFs (the bench corpora)
#   OUT/text/born/ID.txt                          `chunklab parse --ocr never` text of the born
#                                                 PDF, where queries.py checks each answer
#   OUT/queries.jsonl                             {"id","query","relevant_docs":["ID.pdf"]}
# Reproducible: fixed page ranges, fixed skews and seeds (damage.py).
set -euo pipefail
OUT=${1:?usage: retrieval.sh OUT CHUNKLAB_BIN [CONDS]}
BIN=${2:?usage: retrieval.sh OUT CHUNKLAB_BIN [CONDS]}
CONDS=${3:-300-clean}
SRC=${CHUNKLAB_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/../shared}/datasets/documents/pdf
HERE=$(cd "$(dirname "$0")" && pwd)
JOBS=${JOBS:-2}
for tool in pdftoppm pdfseparate img2pdf /usr/bin/python3 "$BIN"; do
  command -v "$tool" >/dev/null || { echo "retrieval.sh: $tool is not installed" >&2; exit 1; }
done
# prefix:file:first:last — every page its own document, except the 2-page council decision.
DOCS="deb:debian-reference.en.pdf:30:53 pgct:pg-sql-createtable.pdf:1:12"
mkdir -p "$OUT/pdf/born"
cp "$SRC/raadsbesluit.pdf" "$OUT/pdf/born/raadsbesluit.pdf"
for spec in $DOCS; do
  IFS=: read -r prefix file first last <<<"$spec"
  for ((p = first; p <= last; p++)); do
    dst="$OUT/pdf/born/$(printf '%s-p%03d' "$prefix" "$p").pdf"
    [ -s "$dst" ] || pdfseparate -f "$p" -l "$p" "$SRC/$file" "$dst"
  done
done

# Text of one parsed document: `text` of `chunklab parse -f json --full-text`.
totext() { # PDF TXT OCRMODE
  "$BIN" parse "$1" -f json --full-text --ocr "$3" |
    /usr/bin/python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["text"])' >"$2.tmp"
  mv "$2.tmp" "$2"
}
export -f totext
export BIN

mkdir -p "$OUT/text/born"
for pdf in "$OUT"/pdf/born/*.pdf; do
  id=$(basename "$pdf" .pdf)
  [ -s "$OUT/text/born/$id.txt" ] || totext "$pdf" "$OUT/text/born/$id.txt" never
done

# One scanned page document: render at DPI (grey), clean or damaged, wrap with img2pdf. N (the
# document's position) picks its skew and seed; every tenth document is fed sideways.
scan() { # BORN_PDF DST DPI KIND N
  local tmp png
  tmp=$(mktemp -d)
  pdftoppm -r "$3" -gray -png "$1" "$tmp/p"
  mapfile -t pages < <(ls "$tmp"/p-*.png | sort)
  if [ "$4" = clean ]; then
    img2pdf "${pages[@]}" -o "$2.tmp"
  else
    local skews=(1.2 -2.1 2.8 -1.5 3.0 -2.6) damaged=() j=0 turn
    for png in "${pages[@]}"; do
      turn=0
      [ $(($5 % 10)) -eq 1 ] && [ "$j" -eq 0 ] && turn=1
      /usr/bin/python3 "$HERE/damage.py" "$png" "$tmp/d-$j.jpg" "${skews[$((($5 + j) % 6))]}" "$3" $((42 + $5 + j)) "$turn"
      damaged+=("$tmp/d-$j.jpg")
      j=$((j + 1))
    done
    img2pdf --imgsize "${3}dpi" "${damaged[@]}" -o "$2.tmp"
  fi
  mv "$2.tmp" "$2"
  rm -rf "$tmp"
}
export -f scan
export HERE

IFS=, read -ra conds <<<"$CONDS"
for cond in "${conds[@]}"; do
  dpi=${cond%%-*}
  kind=${cond#*-}
  mkdir -p "$OUT/pdf/$cond"
  n=0
  for pdf in "$OUT"/pdf/born/*.pdf; do
    dst="$OUT/pdf/$cond/$(basename "$pdf")"
    [ -s "$dst" ] || echo "$pdf $dst $dpi $kind $n"
    n=$((n + 1))
  done | xargs -r -P "$JOBS" -n 5 bash -c 'scan "$0" "$1" "$2" "$3" "$4"'
  echo "$OUT/pdf/$cond: $(ls "$OUT/pdf/$cond" | wc -l) documents"
done

/usr/bin/python3 "$HERE/queries.py" "$HERE/queries.tsv" "$OUT/text/born" .pdf >"$OUT/queries.jsonl"
echo "$OUT/queries.jsonl: $(wc -l <"$OUT/queries.jsonl") queries"
