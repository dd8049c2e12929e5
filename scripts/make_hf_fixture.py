"""Build the small Hugging Face tokenizer fixture used by chunklab-tokenizers' tests.

A BERT-style WordPiece tokenizer (lowercase, accent stripping, [CLS]/[SEP] post-processor) trained
on the bundled samples, saved WITH padding and truncation enabled (as shipped model tokenizers
often are) so the tests prove chunklab switches both off. Reference token counts come from the
Python `tokenizers` package.

    python3 -m venv /tmp/v && /tmp/v/bin/pip install tokenizers==0.23.3
    /tmp/v/bin/python scripts/make_hf_fixture.py
"""
import json
import pathlib

from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers

root = pathlib.Path(__file__).resolve().parent.parent
out = root / "crates/chunklab-tokenizers/tests/fixtures"
samples = sorted((root / "samples").glob("*"))
texts = [p.read_text(encoding="utf-8") for p in samples]

tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
tok.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True)
tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
trainer = trainers.WordPieceTrainer(vocab_size=600, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"])
tok.train_from_iterator(texts, trainer)
tok.post_processor = processors.TemplateProcessing(
    single="[CLS] $A [SEP]", special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))]
)
tok.enable_truncation(max_length=16)
tok.enable_padding(length=16)
tok.save(str(out / "wordpiece-tokenizer.json"))

tok.no_truncation()
tok.no_padding()
cases = [
    "",
    "De raad besluit.",
    "Één motie over windenergie 😀 werd aangenomen met 21 stemmen voor.",
    "Parkeerverordening Westerhaven 2022, artikel 3 lid 2: ten hoogste twee bewonersvergunningen.",
] + [t[:4000] for t in texts]
ref = [
    {
        "text": c,
        "tokens": len(tok.encode(c, add_special_tokens=False).ids),
        "tokens_with_special": len(tok.encode(c, add_special_tokens=True).ids),
    }
    for c in cases
]
(out / "wordpiece-reference.json").write_text(json.dumps(ref, ensure_ascii=False, indent=1), encoding="utf-8")
print(f"wrote {len(ref)} reference counts")
