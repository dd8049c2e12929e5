"""Shared fixtures: the shared data directory and the `chunklab` CLI the Python API is compared
with. Both must exist — a missing one fails the tests, it never skips them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

REPO = Path(__file__).resolve().parents[3]


def _shared_dir() -> Path:
    """$CHUNKLAB_SHARED, else the repository's data/, else ../shared (as the Rust tests)."""
    env = os.environ.get("CHUNKLAB_SHARED")
    candidates = [Path(env)] if env else [REPO / "data", REPO.parent / "shared"]
    for c in candidates:
        if (c / "golden" / "langchain" / "cases.jsonl").is_file():
            return c
    raise RuntimeError(
        "shared data not found (looked in "
        + ", ".join(str(c) for c in candidates)
        + "); set CHUNKLAB_SHARED"
    )


@pytest.fixture(scope="session")
def shared() -> Path:
    return _shared_dir()


@pytest.fixture(scope="session")
def documents(shared: Path) -> Path:
    return shared / "datasets" / "documents"


def _cli_bin() -> Path:
    b = Path(os.environ.get("CHUNKLAB_BIN", REPO / "target" / "debug" / "chunklab"))
    if not b.is_file():
        raise RuntimeError(
            f"{b} is missing: build it with `cargo build -p chunklab --bin chunklab` "
            "(or set CHUNKLAB_BIN)"
        )
    return b


def flags(config: Dict[str, Any]) -> List[str]:
    """Keyword arguments as the CLI's flags (the same names with - for _)."""
    out: List[str] = []
    for k, v in config.items():
        flag = "--" + k.replace("_", "-")
        if v is True:
            out.append(flag)
        elif v is False or v is None:
            continue
        elif k == "levels":
            out += [flag, ",".join(str(x) for x in v)]
        elif k == "separators":
            out += [flag, json.dumps(v)]
        elif k == "breakpoint_amount":
            out += ["--percentile", str(v)]
        else:
            out += [flag, str(v)]
    return out


def run_cli(args: List[str], stdin: bytes | None = None) -> List[dict]:
    """`chunklab chunk ARGS` → the JSONL records."""
    p = subprocess.run(
        [str(_cli_bin()), "chunk", "-q", *args],
        input=stdin,
        capture_output=True,
        check=False,
    )
    if p.returncode != 0:
        raise AssertionError(f"chunklab chunk {args} failed: {p.stderr.decode()}")
    return [json.loads(line) for line in p.stdout.decode().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def pg_url():
    """A real PostgreSQL 18 + pgvector server: $CHUNKLAB_PG_URL (the one `.ci/run` starts), else
    one started for this session with scripts/pg-server.sh and stopped after it. One that
    cannot be started fails the tests that need it."""
    url = os.environ.get("CHUNKLAB_PG_URL", "").strip()
    if url:
        yield url
        return
    # Under /tmp itself: the server runs as `nobody` when the tests run as root.
    data = Path("/tmp") / f"chunklab-pytest-pg-{os.getpid()}"
    script = str(REPO / "scripts" / "pg-server.sh")
    p = subprocess.run([script, "start", "--dir", str(data)], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"scripts/pg-server.sh start failed: {p.stderr}")
    try:
        yield p.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run([script, "stop", str(data)], capture_output=True)


@pytest.fixture(scope="session")
def cli():
    _cli_bin()
    return run_cli
