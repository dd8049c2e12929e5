"""chunklab.Index.create builds an index through the pipeline's one IndexBuilder (the code
`chunklab index` runs): the same chunks and hits as the CLI for the same options, incremental
re-runs, texts with access groups and metadata, one configuration per index, clear errors; and
chunklab.embed gives `chunklab embed`'s vectors. The real MiniLM model, as the CLI tests use."""

from __future__ import annotations

import json
import math
import subprocess
import threading
import time
import warnings

import pytest

import chunklab

from conftest import _cli_bin

OPTS = {"strategy": "sentence", "size": 300, "unit": "chars"}


@pytest.fixture(scope="module")
def parkeren(documents):
    return documents / "nl_verordening_parkeren.txt"


@pytest.fixture(scope="module")
def built(tmp_path_factory, parkeren):
    """The same file indexed by Python and by `chunklab index`."""
    d = tmp_path_factory.mktemp("build")
    py_idx = chunklab.Index.create(d / "py", model="minilm", lang="nl")
    summary = py_idx.add_files([parkeren], **OPTS)
    py_idx.commit()
    subprocess.run(
        [str(_cli_bin()), "index", "-q", "--index", str(d / "cli"), "--model", "minilm",
         "--lang", "nl", "--strategy", "sentence", "--size", "300", "--unit", "chars",
         str(parkeren)],
        check=True, capture_output=True,
    )
    return d, py_idx, summary


def test_created_index_searches_like_the_cli_built_one(built):
    d, py_idx, summary = built
    assert summary["added"] == 1 and summary["chunks"] > 5, summary
    assert summary["embedded"] == summary["chunks"]
    cli_idx = chunklab.Index.open(d / "cli")
    py_settings, cli_settings = dict(py_idx.settings), dict(cli_idx.settings)
    py_run, cli_run = py_settings.pop("run"), cli_settings.pop("run")
    assert py_settings == cli_settings
    # Each records the configuration it was written with (a bare `chunklab index` re-run
    # takes it): the same chunking from keyword arguments as from flags.
    assert py_run["pipeline"]["chunking"] == cli_run["pipeline"]["chunking"]
    assert py_run["pipeline"]["model"] == "minilm" and py_run["acl"] == []
    assert py_idx.settings["model"] == "minilm" and py_idx.settings["lang"] == "nl"
    q = "hoe lang is een parkeervergunning geldig?"
    for mode in ["bm25", "dense", "hybrid"]:
        got = py_idx.search(q, mode=mode, k=4)
        want = cli_idx.search(q, mode=mode, k=4)
        assert got and [h["chunk_id"] for h in got] == [h["chunk_id"] for h in want], mode
        for g, w in zip(got, want):
            assert g["text"] == w["text"]
            assert math.isclose(g["score"], w["score"], rel_tol=1e-5, abs_tol=1e-6)


def test_add_files_is_incremental_and_one_configuration_per_index(built, parkeren):
    _, py_idx, _ = built
    again = py_idx.add_files([parkeren], **OPTS)
    assert (again["added"], again["updated"], again["unchanged"], again["embedded"]) == (0, 0, 1, 0)
    with pytest.raises(chunklab.ConfigError, match="size=200") as refused:
        py_idx.add_files([parkeren], strategy="sentence", size=200, unit="chars")
    # In Python's words, and true to them: a bare call takes the index's configuration.
    assert "rebuild=True" in str(refused.value) and "--" not in str(refused.value), refused.value
    assert "a call without keyword arguments takes" in str(refused.value), refused.value
    assert py_idx.add_files([parkeren])["unchanged"] == 1
    with pytest.raises(chunklab.ConfigError, match="model"):
        py_idx.add_files([parkeren], model="e5-small", **OPTS)


def test_a_bare_call_takes_the_index_own_configuration(tmp_path, parkeren):
    """As a bare `chunklab index DIR --index IDX` re-run: without chunking keyword arguments an
    index takes the configuration and rules it records; `rebuild=True` only what is given."""
    path = tmp_path / "idx"
    first = chunklab.Index.create(path, acl=["**=team-a"])
    first.add_files([parkeren], **OPTS)
    first.close()
    again = chunklab.Index.create(path)
    s = again.add_files([parkeren])
    assert (s["added"], s["updated"], s["unchanged"], s["embedded"]) == (0, 0, 1, 0), s
    again.add_text("notitie", "Een notitie over parkeren in de binnenstad.")
    again.close()
    reader = chunklab.Index.open(path)
    run = reader.settings["run"]
    assert run["pipeline"]["chunking"]["size"] == 300 and run["acl"] == ["**=team-a"], run
    assert reader.search("vergunning", mode="bm25", k=3, acl=["team-a"])
    assert reader.search("vergunning", mode="bm25", k=3, acl=["team-b"]) == []
    # A keyword argument replaces the whole recorded configuration, as a flag does.
    with pytest.raises(chunklab.ConfigError, match="size=200.*rebuild=True.*own configuration"):
        chunklab.Index.create(path).add_files([parkeren], strategy="sentence", size=200)
    fresh = chunklab.Index.create(path, rebuild=True)
    s = fresh.add_files([parkeren])
    assert s["added"] == 1, s
    fresh.close()
    run = chunklab.Index.open(path).settings["run"]
    assert run["pipeline"]["chunking"]["size"] != 300 and run["acl"] == [], run


def test_remove_missing_does_not_empty_the_index_for_paths_that_hold_nothing(tmp_path, parkeren):
    """remove_missing=True over an empty (mistyped, unmounted) directory would remove every
    document: refused, naming rebuild=True; the index keeps its documents."""
    path = tmp_path / "idx"
    idx = chunklab.Index.create(path)
    idx.add_files([parkeren], **OPTS)
    empty = tmp_path / "leeg"
    empty.mkdir()
    with pytest.raises(Exception, match=r"would remove all 1 document\(s\) of the index") as e:
        idx.add_files([empty], remove_missing=True)
    assert "rebuild=True to start the index over" in str(e.value) and "--" not in str(e.value), e.value
    idx.close()
    assert chunklab.Index.open(path).search("vergunning", mode="bm25", k=1)


def test_an_index_in_postgresql_opens_by_its_url(pg_url, parkeren):
    """An index written to PostgreSQL (here by Index.create; `chunklab index --store` writes the
    same) is opened by its URL, as a directory is by its path; another URL scheme is refused."""
    idx = chunklab.Index.create(pg_url, model="minilm", rebuild=True)
    idx.add_files([parkeren], **OPTS)
    idx.close()
    hits = chunklab.Index.open(pg_url).search("vergunning", mode="bm25", k=3)
    assert hits and hits[0]["doc_id"].endswith("nl_verordening_parkeren.txt"), hits
    with pytest.raises(chunklab.ConfigError, match="`mysql://` is no store chunklab opens"):
        chunklab.Index.open("mysql://x/archief")


def test_a_postgresql_password_is_never_shown(pg_url):
    """In the URL's user part or as a `password=` parameter, a password stays out of reprs and
    errors (the test server trusts local connections, so any password connects)."""
    from urllib.parse import urlsplit, urlunsplit

    u = urlsplit(pg_url)
    user, host = u.netloc.rsplit("@", 1)
    query = (u.query + "&" if u.query else "") + "password=hunter3"
    secret = urlunsplit((u.scheme, f"{user.split(':')[0]}:hunter2@{host}", u.path, query, ""))
    assert "hunter" not in repr(chunklab.Index.create(secret, model="minilm"))
    no_db = urlunsplit((u.scheme, f"{user.split(':')[0]}:hunter2@{host}",
                        "/chunklab_no_such_db", query, ""))
    with pytest.raises(chunklab.IndexingError) as e:
        chunklab.Index.open(no_db)
    assert "chunklab_no_such_db" in str(e.value) and "hunter" not in str(e.value), e.value


def test_create_s_model_goes_over_the_recorded_configuration(tmp_path, parkeren):
    """`create(path, model=...)` names no chunking: a call without keyword arguments takes the
    chunking the index records, and a model other than the index's is refused naming it."""
    path = tmp_path / "idx"
    first = chunklab.Index.create(path, model="minilm")
    first.add_files([parkeren], **OPTS)
    first.close()
    again = chunklab.Index.create(path, model="minilm")
    s = again.add_files([parkeren])
    assert (s["added"], s["updated"], s["unchanged"]) == (0, 0, 1), s
    again.close()
    other = chunklab.Index.create(path, model="e5-small")
    with pytest.raises(chunklab.ConfigError, match="model: index has `minilm`, this run has `e5-small`"):
        other.add_files([parkeren])


def test_a_dutch_index_without_its_model_says_why_in_python_words(tmp_path, parkeren, monkeypatch):
    """Where e5-small is not installed, lang="nl" says which model it needs and why, naming
    Python's keywords."""
    monkeypatch.setenv("CHUNKLAB_HOME", str(tmp_path / "empty-home"))
    with pytest.raises(Exception) as missing:
        chunklab.Index.create(tmp_path / "fresh", lang="nl").add_files([parkeren])
    msg = str(missing.value)
    assert 'a new index of Dutch documents (lang="nl") embeds with; model names another' in msg, msg
    assert "--lang" not in msg and "--model" not in msg, msg
    assert "pass fetch=True" in msg and "--fetch" not in msg, msg


def test_embed_warns_about_a_text_past_the_window():
    """A text longer than the model's window is embedded from its head only: a UserWarning says
    which, as `chunklab embed` does on stderr."""
    long = "De gemeenteraad besluit over windturbines op zee. " * 60
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        vectors = chunklab.embed(["kort", long], model="minilm")
    assert len(vectors) == 2
    texts = [str(w.message) for w in seen]
    assert len(texts) == 1 and texts[0].startswith("minilm: text 2 is "), texts
    assert "longer than the model's 254-token window" in texts[0], texts


def test_a_missing_model_says_fetch_true(tmp_path, monkeypatch):
    """A known model that is not installed names Python's fetch=True, not the CLI's --fetch,
    from embed(), from a tokenizer named by a model, and fetch=True then installs it."""
    monkeypatch.setenv("CHUNKLAB_HOME", str(tmp_path / "empty-home"))
    with pytest.raises(chunklab.ConfigError) as missing:
        chunklab.embed(["windenergie"], model="e5-small")
    msg = str(missing.value)
    assert 'model "e5-small" is not installed' in msg and "pass fetch=True" in msg, msg
    assert "--fetch" not in msg, msg
    text = "Motie over windenergie, aangenomen in 2020. " * 40
    with pytest.raises(chunklab.ConfigError) as missing:
        chunklab.chunk(text, tokenizer="minilm", size=40)
    msg = str(missing.value)
    assert 'tokenizer minilm: model "minilm" is not installed' in msg, msg
    assert "pass fetch=True" in msg and "--fetch" not in msg, msg
    chunks = chunklab.chunk(text, tokenizer="minilm", size=40, fetch=True)
    assert chunks and all(c.tokens <= 40 and c.unit == "hf:minilm" for c in chunks)


def test_truncated_chunks_are_warned_about_in_python_words(tmp_path, parkeren):
    """Chunks past the model's window, and Dutch documents for the English MiniLM, give
    UserWarnings whose remedies are Python's keywords."""
    idx = chunklab.Index.create(tmp_path / "idx", model="minilm")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        idx.add_files([parkeren], strategy="recursive", size=4000, unit="chars")
    idx.close()
    texts = [str(w.message) for w in seen if "truncated before embedding" in str(w.message)]
    assert len(texts) == 1, [str(w.message) for w in seen]
    assert 'size=254 or less with model="minilm" fits the window' in texts[0], texts[0]
    assert "chunklab.bench(corpus=DIR" in texts[0] and "--" not in texts[0], texts[0]
    dutch = [str(w.message) for w in seen if "read as Dutch" in str(w.message)]
    assert len(dutch) == 1, dutch
    assert 'model="e5-small" (the default with lang="nl") embeds Dutch' in dutch[0], dutch


def test_a_dutch_index_embeds_with_e5_small(tmp_path, parkeren):
    """lang="nl" without a model gives a new index the multilingual e5-small, and no warning."""
    idx = chunklab.Index.create(tmp_path / "idx", lang="nl")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        idx.add_files([parkeren])
    idx.close()
    assert not [w for w in seen if "read as Dutch" in str(w.message)], [str(w.message) for w in seen]
    settings = chunklab.Index.open(tmp_path / "idx").settings
    assert settings["model"] == "e5-small" and settings["lang"] == "nl", settings


def test_documents_that_read_as_dutch_choose_e5_small(tmp_path, parkeren):
    """Neither model nor lang: the documents decide, and a warning says why and how to keep
    MiniLM; add_text judges its text the same way."""
    idx = chunklab.Index.create(tmp_path / "files")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        idx.add_files([parkeren])
    idx.close()
    why = [str(w.message) for w in seen if "sampled read as Dutch" in str(w.message)]
    assert len(why) == 1 and 'model="minilm" keeps the English model' in why[0], why
    assert chunklab.Index.open(tmp_path / "files").settings["model"] == "e5-small"
    with chunklab.Index.create(tmp_path / "text") as idx:
        idx.add_text("motie", "De raad heeft de motie over windenergie aangenomen.")
    assert chunklab.Index.open(tmp_path / "text").settings["model"] == "e5-small"
    with chunklab.Index.create(tmp_path / "english") as idx:
        idx.add_text("motion", "The council passed the motion on wind energy.")
    assert chunklab.Index.open(tmp_path / "english").settings["model"] == "minilm"


def test_add_text_with_groups_and_metadata(tmp_path):
    path = tmp_path / "idx"
    text = "De zeehondencrèche in Pieterburen krijgt een nieuwe subsidie van de provincie."
    with chunklab.Index.create(path) as idx:
        n = idx.add_text("notitie-1", text, acl=["team-a"], metadata={"type": "notitie"},
                         strategy="recursive", size=400)
        assert n == 1
        idx.add_text("notitie-2", "Het college bespreekt de begroting voor wegen en fietspaden.",
                     metadata={"type": "memo"}, strategy="recursive", size=400)
        # Not durable before commit: another reader sees nothing yet.
        assert chunklab.Index.open(path).search("zeehondencrèche", mode="bm25") == []
        idx.commit()
        hits = idx.search("subsidie zeehonden", k=1, acl=["team-a"])
        assert hits[0]["doc_id"] == "notitie-1" and hits[0]["text"] == text
        assert idx.search("subsidie zeehonden", k=5, acl=["team-b"]) == []
        memo = idx.search("subsidie zeehonden", k=5, filter=["type=memo"])
        assert [h["doc_id"] for h in memo] == ["notitie-2"]
        # The same text again is left alone.
        assert idx.add_text("notitie-1", text, acl=["team-a"], metadata={"type": "notitie"},
                            strategy="recursive", size=400) == 0
    # Closed: the lock is free, another writer adds to the same index.
    other = chunklab.Index.create(path)
    other.add_text("notitie-3", "Een derde notitie over parkeren.", strategy="recursive", size=400)
    assert other.close() == (3, 3)
    assert {h["doc_id"] for h in chunklab.Index.open(path).search("notitie", mode="bm25")} >= {"notitie-3"}


def test_refused_arguments_open_nothing(tmp_path):
    """A refused add_text neither creates the index nor leaves a writer to commit."""
    path = tmp_path / "new"
    idx = chunklab.Index.create(path)
    for bad in [dict(doc_id="", text="tekst"), dict(doc_id="x", text="tekst", acl=[""]),
                dict(doc_id="x", text="tekst", metadata={"source": "y"})]:
        with pytest.raises(chunklab.ConfigError):
            idx.add_text(**bad)
    assert not path.exists()
    with pytest.raises(chunklab.IndexingError, match="nothing to commit"):
        idx.commit()
    assert idx.close() is None


def test_index_build_errors(tmp_path, documents):
    with pytest.raises(chunklab.ConfigError, match="acl"):
        chunklab.Index.create(tmp_path / "a", acl=["no-equals"]).add_text("x", "tekst")
    with pytest.raises(chunklab.ConfigError, match="built-in"):
        chunklab.Index.create(tmp_path / "b", meta=["**=source:x"]).add_text("x", "tekst")
    with pytest.raises(chunklab.ConfigError, match="nope"):
        chunklab.Index.create(tmp_path / "c", model="nope").add_text("x", "tekst")
    with pytest.raises(chunklab.ConfigError, match="lang"):
        chunklab.Index.create(tmp_path / "d", lang="klingon")
    idx = chunklab.Index.create(tmp_path / "e")
    with pytest.raises(chunklab.IndexingError, match="nothing to commit"):
        idx.commit()
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        idx.add_files([tmp_path / "missing.txt"])
    with pytest.raises(chunklab.ConfigError, match="^doc_id: a document needs a non-empty id"):
        idx.add_text("", "tekst")
    with pytest.raises(chunklab.ConfigError, match="^acl: a group name is empty"):
        idx.add_text("x", "tekst", acl=["team-a", " "])
    with pytest.raises(chunklab.ConfigError, match="metadata"):
        idx.add_text("x", "tekst", metadata={"source": "y"})
    with pytest.raises(TypeError, match="unexpected keyword"):
        idx.add_files([documents], colour="red")
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"%PDF-1.7 this is not a pdf")
    with pytest.raises(chunklab.ParseError, match="bad.pdf"):
        idx.add_files([bad, documents / "nl_verordening_parkeren.txt"])
    idx.commit()  # the good file was indexed and committed beside the bad one
    assert chunklab.Index.open(tmp_path / "e").search("vergunninggebied", mode="bm25", k=1)
    with pytest.raises(chunklab.IndexingError, match="opened for search"):
        chunklab.Index.open(tmp_path / "e").add_text("y", "tekst")


def test_graph_settings_at_create_and_ef_at_search(tmp_path, parkeren):
    with pytest.raises(chunklab.ConfigError, match=r"hnsw_m: 1 \(must be 2 to 100\)"):
        chunklab.Index.create(tmp_path / "bad", hnsw_m=1)
    with pytest.raises(chunklab.ConfigError, match="hnsw_ef_construction: 20"):
        chunklab.Index.create(tmp_path / "bad", hnsw_m=16, hnsw_ef_construction=20)
    idx = chunklab.Index.create(tmp_path / "g", model="minilm", hnsw_ef_construction=80)
    idx.add_files([parkeren], **OPTS)
    idx.close()
    idx = chunklab.Index.open(tmp_path / "g")
    assert idx.settings["hnsw"] == {"m": 16, "ef_construction": 80}
    q = "hoe lang is een parkeervergunning geldig?"
    assert idx.search(q, mode="dense", k=3, ef=256) == idx.search(q, mode="dense", k=3)
    with pytest.raises(chunklab.ConfigError, match="ef"):
        idx.search(q, ef=0)
    # Another shape for the same index is refused; the next build that names none keeps it.
    other = chunklab.Index.create(tmp_path / "g", hnsw_m=24)
    with pytest.raises(chunklab.ConfigError, match=r"hnsw: index has `m=16,ef_construction=80`.*rebuild=True") as refused:
        other.add_files([parkeren])
    assert "without keyword arguments" not in str(refused.value)
    again = chunklab.Index.create(tmp_path / "g")
    assert again.add_files([parkeren])["unchanged"] == 1
    again.close()
    assert chunklab.Index.open(tmp_path / "g").settings["hnsw"]["ef_construction"] == 80


def test_add_files_releases_the_gil(tmp_path, documents):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ["nl_verordening_parkeren.txt", "SOURCE.md"]:
        (corpus / name).write_bytes((documents / name).read_bytes())
    idx = chunklab.Index.create(tmp_path / "gil")
    done = threading.Event()
    errors = []

    def work():
        try:
            idx.add_files([corpus], strategy="recursive", size=300)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=work)
    ticks = 0
    start = time.perf_counter()
    t.start()
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    took = time.perf_counter() - start
    assert not errors, errors
    # With the GIL held for the whole call, this thread could not have ticked on.
    assert took < 0.05 or ticks > 10, (ticks, took)


def _cli_embed(*args):
    out = subprocess.run([str(_cli_bin()), "embed", "--json", *args], check=True,
                         capture_output=True).stdout.decode()
    return [json.loads(line)["embedding"] for line in out.splitlines()]


def test_embed_equals_the_cli():
    texts = ["Welke moties over windenergie zijn aangenomen?", "parkeren in de binnenstad"]
    got = chunklab.embed(texts, model="minilm")
    want = _cli_embed("--model", "minilm", *texts)
    assert len(got) == 2 and len(got[0]) == 384
    for g, w in zip(got, want):
        assert all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(g, w))
    q = chunklab.embed(texts[:1], model="e5-small", query=True)[0]
    p = chunklab.embed(texts[:1], model="e5-small")[0]
    assert q != p  # e5's query: / passage: prefixes
    want_q = _cli_embed("--model", "e5-small", "--query", texts[0])[0]
    assert all(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(q, want_q))
    assert chunklab.embed([], model="minilm") == []
    with pytest.raises(ValueError, match="nope"):
        chunklab.embed(["x"], model="nope")
