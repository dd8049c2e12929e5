"""sentence-transformers (PyTorch, CPU) throughput on the texts chunklab's embed_speed example uses.

Same model files (the pinned wheel), same texts (tests/fixtures/minilm_reference.json repeated
--copies times), same batch size, same thread count. Compare with

    cargo run --release -p chunklab-embed --example embed_speed -- --threads 2 --batch-size 32

Usage (uses / creates the venv of scripts/make_minilm_reference.py):

    python3 scripts/minilm_speed_reference.py [--threads 2] [--batch-size 32] [--copies 8] [--runs 3]
"""
import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import make_minilm_reference as ref  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--copies", type=int, default=8)
    p.add_argument("--runs", type=int, default=3)
    args = p.parse_args()
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    os.environ["MKL_NUM_THREADS"] = str(args.threads)
    ref.ensure_venv()
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(args.threads)
    fixture = json.loads(ref.OUT.read_text(encoding="utf-8"))
    texts = [c["text"] for c in fixture["cases"]] * args.copies
    tokens = sum(c["tokens"] for c in fixture["cases"]) * args.copies
    with tempfile.TemporaryDirectory() as tmp:
        model = SentenceTransformer(str(ref.model_folder(tmp)), device="cpu")
        model.encode(texts[: args.batch_size], batch_size=args.batch_size)  # warm-up
        best = float("inf")
        for _ in range(args.runs):
            t = time.perf_counter()
            v = model.encode(texts, batch_size=args.batch_size, convert_to_numpy=True)
            best = min(best, time.perf_counter() - t)
            assert len(v) == len(texts)
    print(
        f"sentence-transformers minilm (torch {torch.__version__}): {len(texts)} texts, "
        f"{tokens} tokens, batch {args.batch_size}, {args.threads} threads: best of {args.runs} "
        f"{best:.3f}s = {tokens / best:.0f} tokens/s, {len(texts) / best:.1f} texts/s"
    )


if __name__ == "__main__":
    main()
