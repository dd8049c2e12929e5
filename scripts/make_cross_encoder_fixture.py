"""Tiny random-weight cross-encoders and their Python `transformers` reference logits.

No pretrained cross-encoder ships in a package chunklab can reach, so chunklab-embed's
CrossEncoder (crates/chunklab-embed/src/cross_encoder.rs) is checked against the reference
implementation, `transformers.BertForSequenceClassification`, on small RANDOM weights:

    crates/chunklab-embed/tests/fixtures/tiny-cross-encoder/
        config.json, tokenizer.json, tokenizer_config.json, model.safetensors
                           hidden 32, 2 layers, 4 heads, intermediate 64, 128 positions,
                           num_labels 1 (the score is the logit)
        two-labels/        hidden 16, 1 layer, 2 heads, intermediate 32, 64 positions,
                           num_labels 2 (the score is the logit of label 1)
        reference.json     ~20 (query, passage) pairs: English, Dutch, empty and whitespace
                           passages, unknown words, pairs longer than the context (truncated
                           longest_first), with each model's token count and logits

Both models share one small lower-casing WordPiece vocabulary (Dutch + English words, letters,
digits, punctuation, [UNK]), built with the `tokenizers` library (BertWordPieceTokenizer).
Weights are drawn from a seeded torch generator with a larger spread than BERT's default
initialisation (std 0.02 makes every logit nearly the same, which would test nothing).

The Rust test (crates/chunklab-embed/tests/rerank.rs) loads both directories with chunklab's
CrossEncoder and requires every logit to match within 1e-4 absolute.

Usage (the venv of scripts/make_minilm_reference.py has torch, transformers and tokenizers):

    ~/.cache/chunklab/minilm-ref-venv/bin/python scripts/make_cross_encoder_fixture.py

The output is deterministic (seeded); rerunning it rewrites the same files.
"""
import json
import pathlib
import shutil

import torch
from tokenizers import BertWordPieceTokenizer
from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "crates/chunklab-embed/tests/fixtures/tiny-cross-encoder"

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = """
the a an of to in is are was for on with and or not what how who when where which does do
city council park parking permit visitors wind energy motion motions adopted vote votes
house rent tax bike train station library opening hours water flood dike weather rain
children school budget year years report meeting minutes question answer search document
de het een van en in is zijn was voor op met niet wat hoe wie wanneer waar welke
gemeente raad parkeren parkeervergunning bezoekers wind energie motie moties aangenomen
stemming huis huur belasting fiets trein station bibliotheek openingstijden water
overstroming dijk weer regen kinderen school begroting jaar jaren verslag vergadering
vraag antwoord zoeken document café één
""".split()
SUFFIXES = ["##s", "##en", "##ing", "##ed", "##er", "##e", "##t", "##heid", "##ing", "##ly"]
CHARS = list("abcdefghijklmnopqrstuvwxyz0123456789")
PUNCT = list(".,;:!?'\"()-/&%")


def vocabulary():
    """Ordered, de-duplicated WordPiece vocabulary: token -> id."""
    tokens = SPECIALS + PUNCT + CHARS + ["##" + c for c in CHARS] + SUFFIXES + WORDS
    vocab = {}
    for t in tokens:
        vocab.setdefault(t, len(vocab))
    return vocab


PAIRS = [
    ("parking permit for visitors", "Visitors need a parking permit from the city council."),
    ("parking permit for visitors", "The library opening hours change in the summer."),
    ("wind energy motions adopted", "The council adopted two motions on wind energy in 2018."),
    ("parkeervergunning bezoekers", "Bezoekers parkeren met een parkeervergunning van de gemeente."),
    ("parkeervergunning bezoekers", "De bibliotheek heeft nieuwe openingstijden."),
    ("moties windenergie aangenomen", "De raad heeft de moties over wind energie aangenomen."),
    ("wanneer is de vergadering?", "Het verslag van de vergadering van 12 maart."),
    ("what is the rent tax", "Huur en belasting: een vraag en een antwoord."),
    ("flood", "The dike holds the water when rain floods the city."),
    ("search", ""),
    ("search", "   \t\n  "),
    ("?", "What does the report say?"),
    ("Café één", "Het café is één jaar open."),
    ("ZOEKEN in HET Document", "zoeken in het document"),
    ("quantum chromodynamics", "Unknown words become [UNK] pieces: xylophone zebra."),
    ("trein station 2024", "De trein naar het station rijdt elk uur, 24/7 & op tijd (meestal)."),
    (
        "children school budget",
        " ".join(["The school budget for children grows every year."] * 30),
    ),
    (
        " ".join(["What does the city council report about the weather and the dike?"] * 12),
        " ".join(["Het weer en de dijk: de raad schrijft een verslag over regen en water."] * 12),
    ),
    (
        " ".join(["vraag"] * 200),
        "kort antwoord",
    ),
    ("bike train", "Fiets en trein: bike and train, tweemaal twee."),
]


def randomize(model, seed):
    """Seeded weights with a spread that makes logits differ clearly between pairs."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            noise = torch.randn(p.shape, generator=g, dtype=torch.float32)
            if "LayerNorm.weight" in name:
                p.copy_(1.0 + 0.1 * noise)
            elif name.endswith("bias"):
                p.copy_(0.1 * noise)
            else:
                p.copy_(0.3 * noise)


def build(out, vocab, seed, num_labels, **sizes):
    """Write a tokenizer + random BertForSequenceClassification into `out`; return both."""
    out.mkdir(parents=True, exist_ok=True)
    wordpiece = BertWordPieceTokenizer(vocab, lowercase=True)
    raw = out / "tokenizer.raw.json"
    wordpiece.save(str(raw))
    tokenizer = BertTokenizerFast(
        tokenizer_file=str(raw), model_max_length=sizes["max_position_embeddings"]
    )
    raw.unlink()
    config = BertConfig(
        vocab_size=len(vocab),
        type_vocab_size=2,
        hidden_act="gelu",
        num_labels=num_labels,
        **sizes,
    )
    torch.manual_seed(seed)
    model = BertForSequenceClassification(config).eval()
    randomize(model, seed)
    model.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    for extra in ["vocab.txt", "special_tokens_map.json"]:
        (out / extra).unlink(missing_ok=True)
    return tokenizer, model


def logits(tokenizer, model, pairs):
    """Reference logits and unpadded token counts of each pair (truncation longest_first)."""
    enc = tokenizer(
        [q for q, _ in pairs],
        [p for _, p in pairs],
        truncation="longest_first",
        max_length=tokenizer.model_max_length,
        padding=True,
        return_tensors="pt",
    )
    with torch.no_grad():
        out = model(**enc).logits
    return out.tolist(), enc["attention_mask"].sum(dim=1).tolist()


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    vocab = vocabulary()
    one = build(
        OUT, vocab, seed=5, num_labels=1,
        hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
        intermediate_size=64, max_position_embeddings=128,
    )
    two = build(
        OUT / "two-labels", vocab, seed=7, num_labels=2,
        hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=64,
    )
    one_logits, one_tokens = logits(*one, PAIRS)
    two_logits, two_tokens = logits(*two, PAIRS)
    cases = [
        {
            "query": q,
            "passage": p,
            "tokens": t1,
            "logit": round(l1[0], 7),
            "two_labels_tokens": t2,
            "two_labels_logits": [round(x, 7) for x in l2],
        }
        for (q, p), t1, l1, t2, l2 in zip(PAIRS, one_tokens, one_logits, two_tokens, two_logits)
    ]
    reference = {
        "generator": "scripts/make_cross_encoder_fixture.py",
        "transformers": __import__("transformers").__version__,
        "torch": torch.__version__,
        "cases": cases,
    }
    (OUT / "reference.json").write_text(json.dumps(reference, ensure_ascii=False, indent=1) + "\n")
    total = sum(f.stat().st_size for f in OUT.rglob("*") if f.is_file())
    spread = [c["logit"] for c in cases]
    print(f"wrote {OUT} ({total} bytes); logits {min(spread):.3f} .. {max(spread):.3f}")


if __name__ == "__main__":
    main()
