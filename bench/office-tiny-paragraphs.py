#!/usr/bin/env python3
"""Write a DOCX or ODT made of tiny paragraphs: the worst case for memory per byte of text.

A block of 600 distinct paragraphs of one to three Dutch words ("raad motie") is repeated until
the main XML part (word/document.xml, content.xml) reaches the requested size; the package is
otherwise minimal and valid, and compressed with deflate level 9. Each paragraph yields about
11 bytes of extracted text and one element, so the parse's memory is dominated by the element
list (see docs/RELIABILITY.md, "Memory").

    python3 bench/office-tiny-paragraphs.py docx 500 /tmp/tiny-500.docx   # 500 MiB of XML
    python3 bench/office-tiny-paragraphs.py odt 100 /tmp/tiny-100.odt

Deterministic: the same arguments give the same bytes.
"""

import random
import sys
import zipfile

WORDS = (
    "raad motie wet lid dag weg vak eis bod kas bus pad dak zon hek put punt jaar stad plan "
    "kind huis werk geld zaak tijd deel nota wijk park boom brug veld"
).split()

DOCX_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" '
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
    "</Types>"
)
DOCX_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" '
    'Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" '
    'Target="word/document.xml"/>'
    "</Relationships>"
)
DOCX_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>'
)
DOCX_TAIL = "</w:body></w:document>"

ODT_MIME = "application/vnd.oasis.opendocument.text"
ODT_MANIFEST = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" '
    'manifest:version="1.2">'
    f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{ODT_MIME}"/>'
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
    "</manifest:manifest>"
)
ODT_HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
    "<office:body><office:text>"
)
ODT_TAIL = "</office:text></office:body></office:document-content>"


def block(fmt: str) -> str:
    """600 distinct paragraphs of one to three words, as one string of XML."""
    rng = random.Random(19)
    seen, paras = set(), []
    while len(paras) < 600:
        p = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
        if p in seen:
            continue
        seen.add(p)
        if fmt == "docx":
            paras.append(f"<w:p><w:r><w:t>{p}</w:t></w:r></w:p>")
        else:
            paras.append(f"<text:p>{p}</text:p>")
    return "".join(paras)


def main() -> None:
    if len(sys.argv) != 4 or sys.argv[1] not in ("docx", "odt"):
        sys.exit(f"usage: {sys.argv[0]} docx|odt MIB_OF_XML OUT")
    fmt, mib, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    head, tail = (DOCX_HEAD, DOCX_TAIL) if fmt == "docx" else (ODT_HEAD, ODT_TAIL)
    chunk = block(fmt).encode()
    repeats = max(1, int((mib * 1024 * 1024 - len(head) - len(tail)) // len(chunk)))
    part = "word/document.xml" if fmt == "docx" else "content.xml"

    def entry(name: str, compress: int) -> zipfile.ZipInfo:
        # A fixed date keeps the output deterministic.
        info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
        info.compress_type = compress
        if compress == zipfile.ZIP_DEFLATED:
            info._compresslevel = 9  # `compress_level` from Python 3.13, which keeps this alias
        return info

    with zipfile.ZipFile(out, "w") as z:
        if fmt == "docx":
            z.writestr(entry("[Content_Types].xml", zipfile.ZIP_DEFLATED), DOCX_CONTENT_TYPES)
            z.writestr(entry("_rels/.rels", zipfile.ZIP_DEFLATED), DOCX_RELS)
        else:
            # The mimetype entry comes first and is stored uncompressed (ODF packaging).
            z.writestr(entry("mimetype", zipfile.ZIP_STORED), ODT_MIME)
            z.writestr(entry("META-INF/manifest.xml", zipfile.ZIP_DEFLATED), ODT_MANIFEST)
        big = mib * 1024 * 1024 >= zipfile.ZIP64_LIMIT
        with z.open(entry(part, zipfile.ZIP_DEFLATED), "w", force_zip64=big) as f:
            f.write(head.encode())
            for _ in range(repeats):
                f.write(chunk)
            f.write(tail.encode())
    print(f"{out}: {fmt}, {repeats * 600} paragraphs, {len(head) + len(tail) + repeats * len(chunk)} bytes of XML")


if __name__ == "__main__":
    main()
