"""chunklab.queries_generate runs the library's query generation (what `chunklab queries
generate` runs) against an OpenAI-compatible HTTP server on 127.0.0.1 that gives one scripted
answer, as the CLI's own tests do: the records equal the CLI's JSONL, spans are verbatim, and
unusable answers fail with the CLI's reason."""

from __future__ import annotations

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import chunklab

from conftest import _cli_bin

DOC = (
    "Parkeerverordening Westerhaven\n\n"
    "Een bewoner kan bij het college een parkeervergunning aanvragen voor het vergunninggebied. "
    "Een bezoekersvergunning is geldig voor de duur van één kalenderjaar. "
    "Per adres worden ten hoogste twee vergunningen verleend.\n"
)
GOOD = ("Question: Hoe lang is een bezoekersvergunning geldig?\n"
        "Excerpt: Een bezoekersvergunning is geldig voor de duur van één kalenderjaar.")


def _server(answer):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("content-length", 0)))
            body = json.dumps({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer},
                             "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 20},
            }).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"openai:http://127.0.0.1:{srv.server_address[1]}/v1#scripted"


@pytest.fixture()
def doc(tmp_path, monkeypatch):
    monkeypatch.setenv("CHUNKLAB_HOME", str(tmp_path / "home"))
    p = tmp_path / "westerhaven.txt"
    p.write_text(DOC, encoding="utf-8")
    return p


def test_queries_generate_equals_the_cli(doc):
    srv, spec = _server(GOOD)
    try:
        got = chunklab.queries_generate([doc], llm=spec, n=1, llm_no_cache=True)
        out = subprocess.run([str(_cli_bin()), "queries", "generate", str(doc), "--llm", spec,
                              "--n", "1", "--llm-no-cache"], check=True, capture_output=True)
    finally:
        srv.shutdown()
    want = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert got == want and len(got) == 1, (got, want)
    q = got[0]
    assert q["query"] == "Hoe lang is een bezoekersvergunning geldig?"
    (span,) = q["relevant_spans"]
    assert DOC[span["start_char"]:span["end_char"]] == (
        "Een bezoekersvergunning is geldig voor de duur van één kalenderjaar.")


def test_queries_generate_errors(doc, tmp_path):
    srv, spec = _server("Sure! Here is a question about the text.")
    try:
        with pytest.raises(RuntimeError, match="malformed"):
            chunklab.queries_generate([doc], llm=spec, n=1, llm_no_cache=True)
    finally:
        srv.shutdown()
    with pytest.raises(chunklab.ConfigError, match='llm: "nope" is not a language model spec') as bad:
        chunklab.queries_generate([doc], llm="nope", n=1)
    assert "--" not in str(bad.value), bad.value
    with pytest.raises(FileNotFoundError):
        chunklab.queries_generate([tmp_path / "missing"], llm=spec, n=1)
