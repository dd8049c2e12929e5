#!/usr/bin/env bash
# The Python package (crates/chunklab-python): a fresh virtualenv with pinned PyPI packages
# (maturin, pytest, the real LangChain / LlamaIndex packages the integrations subclass, and
# transformers without PyTorch for LangChain's from_huggingface_tokenizer),
# `maturin develop` in the dev profile (it reuses the workspace's target/ and the dependencies
# `cargo test --workspace` just built), then pytest. The tests compare the Python API with the
# CLI's JSONL, so the `chunklab` binary is built first (a no-op after the workspace tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
CI_DIR="${CHUNKLAB_CI_DIR:-$PWD/target/ci}"
VENV="$CI_DIR/venv-python"
PYTHON="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    maturin==1.16.0 \
    pytest==9.2.0 \
    langchain-core==1.8.3 \
    langchain-text-splitters==1.1.3 \
    tokenizers==0.23.3 \
    transformers==5.25.0 \
    tiktoken==0.14.0 \
    llama-index-core==0.14.25

cargo build -q -p chunklab --bin chunklab
export CHUNKLAB_BIN="$PWD/target/debug/chunklab"

# maturin finds the workspace's target directory through cargo metadata.
VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" \
    "$VENV/bin/maturin" develop --quiet -m crates/chunklab-python/Cargo.toml
"$VENV/bin/python" -m pytest -q crates/chunklab-python/tests
