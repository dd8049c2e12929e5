"""help() documents the strategies and options; chunklab.bench runs the lab through its library
entry and agrees with `chunklab bench --json`."""

from __future__ import annotations

import json
import pydoc
import subprocess

import pytest

import chunklab

from conftest import _cli_bin

SWEEP = 'modes = ["bm25"]\nunit = "chars"\n[[config]]\nstrategy = "paragraph"\nsize = 400\n'


def test_help_lists_every_strategy_and_option():
    text = pydoc.render_doc(chunklab.chunk, renderer=pydoc.plaintext)
    for s in chunklab.strategies():
        assert s["name"] + ":" in text
    for key in ("size", "overlap", "unit", "tokenizer", "title_prefix", "max_level", "model", "parser"):
        assert key in text
    assert "ConfigError" in text
    assert "chunk(text, source=None, **config)" in text
    assert "Capsule" not in text, text[:300]
    files = pydoc.render_doc(chunklab.chunk_files, renderer=pydoc.plaintext)
    assert all(s["name"] + ":" in files for s in chunklab.strategies())


def _timeless(d):
    return {k: v for k, v in d.items() if "sec" not in k and "time" not in k and not k.endswith("_ms")}


def test_bench_equals_the_cli(tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(SWEEP)
    out = tmp_path / "bench.json"
    subprocess.run([str(_cli_bin()), "bench", "--docs", "12", "--config", str(sweep), "--json", str(out)],
                   check=True, capture_output=True)
    cli = json.loads(out.read_text())
    py = chunklab.bench(docs=12, config=str(sweep))
    assert py["rows"], "no rows"
    assert len(py["rows"]) == len(cli["rows"])
    for p, c in zip(py["rows"], cli["rows"]):
        for k in ("label", "strategy", "params", "model", "mode", "k"):
            assert p[k] == c[k], k
        # The result holds every statistic; the CLI's JSON rounds the means to 4 decimals.
        means = {name: round(stat["mean"], 4) for name, stat in p["metrics"]}
        assert means == c["metrics"]
        assert _timeless(p["cost"]) == _timeless(c["cost"])
    assert py["queries"] == cli["queries"] and py["docs"] == cli["docs"]


def test_bench_errors_are_typed(tmp_path):
    # Bad arguments are ConfigErrors naming the argument; missing files FileNotFoundErrors.
    with pytest.raises(chunklab.ConfigError, match="^docs must be between 1 and"):
        chunklab.bench(docs=0)
    with pytest.raises(chunklab.ConfigError, match="^k must be at least 1"):
        chunklab.bench(docs=5, k=0)
    with pytest.raises(chunklab.ConfigError, match="^corpus needs queries"):
        chunklab.bench(corpus=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no-such-corpus"):
        chunklab.bench(corpus=str(tmp_path / "no-such-corpus"), queries=str(tmp_path / "q.jsonl"))
    with pytest.raises(FileNotFoundError, match="no-such-sweep.toml"):
        chunklab.bench(docs=5, config=str(tmp_path / "no-such-sweep.toml"))
