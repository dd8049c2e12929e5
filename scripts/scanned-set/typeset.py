#!/usr/bin/python3
"""Typeset a text file as A4 page images, the way a clerk's printed letter looks before it is
scanned, and write each page's text as its truth: the scanned set's generated Dutch archive
documents (build.sh, with CHUNKLAB set) have no born-digital PDF to take a text layer from.

    typeset.py TEXT OUT_DIR DPI

Writes OUT_DIR/page-N.png (grey, DPI) and OUT_DIR/truth-N.txt. Markdown markers (`#`, `-`, `*`)
are dropped from the printed text and the truth alike; lines are wrapped at the page width;
headings are set larger and bold. Needs Debian's python3-pil and fonts-dejavu.
"""
import os
import sys
import textwrap

from PIL import Image, ImageDraw, ImageFont

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"


def blocks(text):
    """(is_heading, line) pairs, one per printed paragraph; blank lines separate paragraphs."""
    out = []
    for para in text.split("\n\n"):
        para = " ".join(para.split())
        if not para:
            continue
        heading = para.startswith("#")
        para = para.lstrip("#*- ").replace("**", "").replace("*", "")
        if para:
            out.append((heading, para))
    return out


def main():
    src, out, dpi = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    w, h = int(8.27 * dpi), int(11.69 * dpi)
    margin = int(0.9 * dpi)
    body = ImageFont.truetype(FONT, int(11 / 72 * dpi))
    head = ImageFont.truetype(BOLD, int(14 / 72 * dpi))
    chars = int((w - 2 * margin) / body.getlength("n"))
    pages, page, truth, y = [], None, [], h

    def new_page():
        nonlocal page, y, truth
        if page is not None:
            pages.append((page, truth))
        page = Image.new("L", (w, h), 255)
        truth = []
        y = margin

    for heading, para in blocks(open(src, encoding="utf-8").read()):
        font = head if heading else body
        lines = textwrap.wrap(para, int(chars * (0.8 if heading else 1.0)))
        step = int(font.size * 1.4)
        if y + step * len(lines) > h - margin:
            new_page()
        for line in lines:
            if y + step > h - margin:
                new_page()
            ImageDraw.Draw(page).text((margin, y), line, font=font, fill=0)
            y += step
        truth.append(" ".join(lines))
        y += step // 2
    if page is not None:
        pages.append((page, truth))
    for n, (img, t) in enumerate(pages, 1):
        img.save(os.path.join(out, f"page-{n}.png"), dpi=(dpi, dpi))
        with open(os.path.join(out, f"truth-{n}.txt"), "w", encoding="utf-8") as f:
            f.write("\n\n".join(t) + "\n")
    print(f"{src}: {len(pages)} pages")


if __name__ == "__main__":
    main()
