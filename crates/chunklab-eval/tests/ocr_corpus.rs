//! `chunklab bench --corpus` on PDFs and their scanned twins: the lab reads PDF (and DOCX, ODT,
//! image) files through the pipeline's reading, OCR included, so a born-digital corpus and its
//! image-only twin (pages rendered with `pdftoppm`, wrapped with `img2pdf`, read with the real
//! Tesseract) bench to the same doc recall. Text files in the same corpus are read as before.
//! Needs tesseract (nld, eng), pdftoppm, pdfseparate and img2pdf (CI installs them); a missing
//! one fails the test with the package to install.

use chunklab_eval::bench::{self, BenchRequest};
use chunklab_eval::progress::NoProgress;
use chunklab_eval::result::BenchResult;
use chunklab_pipeline::{OcrMode, OcrOptions};
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e} (the test needs tesseract-ocr, tesseract-ocr-nld, tesseract-ocr-eng, poppler-utils and img2pdf)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn shared(rel: &str) -> PathBuf {
    chunklab_eval::shared_data::locate(rel).unwrap_or_else(|e| panic!("{e}"))
}

/// An image-only twin of `pdf`: every page rendered grey at 300 dpi, wrapped with img2pdf.
fn scan(pdf: &Path, out: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    run(Command::new("pdftoppm")
        .args(["-r", "300", "-gray", "-png"])
        .arg(pdf)
        .arg(tmp.path().join("p")));
    let mut pngs: Vec<PathBuf> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pngs.sort();
    run(Command::new("img2pdf").args(&pngs).arg("-o").arg(out));
}

/// Two corpora with the same ids: `born/` (born-digital PDFs and a text file) and `scan/` (the
/// PDFs as image-only scans, the same text file), and the queries.
fn twins(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let born = dir.join("born");
    let scanned = dir.join("scan");
    std::fs::create_dir_all(&born).unwrap();
    std::fs::create_dir_all(&scanned).unwrap();
    std::fs::copy(
        shared("datasets/documents/pdf/raadsbesluit.pdf"),
        born.join("raadsbesluit.pdf"),
    )
    .unwrap();
    let pg = shared("datasets/documents/pdf/pg-sql-createtable.pdf");
    for p in ["1", "2"] {
        run(Command::new("pdfseparate")
            .args(["-f", p, "-l", p])
            .arg(&pg)
            .arg(born.join(format!("pgct-p{p}.pdf"))));
    }
    for id in ["raadsbesluit.pdf", "pgct-p1.pdf", "pgct-p2.pdf"] {
        scan(&born.join(id), &scanned.join(id));
    }
    let text = shared("datasets/documents/nl_verordening_parkeren.txt");
    for d in [&born, &scanned] {
        std::fs::copy(&text, d.join("parkeren.txt")).unwrap();
    }
    let queries = dir.join("queries.jsonl");
    let q = |id: &str, doc: &str, query: &str| {
        serde_json::json!({"id": id, "query": query, "relevant_docs": [doc]}).to_string()
    };
    let lines = [
        q(
            "q1",
            "raadsbesluit.pdf",
            "Welke minimale afstand tot woningen geldt voor windturbines?",
        ),
        q(
            "q2",
            "raadsbesluit.pdf",
            "Met hoeveel stemmen is het besluit over windenergie aangenomen?",
        ),
        q(
            "q3",
            "raadsbesluit.pdf",
            "Waarover maakten bewoners van de Polderweg zich zorgen?",
        ),
        q(
            "q4",
            "pgct-p1.pdf",
            "CREATE TABLE synopsis with PARTITION BY RANGE LIST HASH",
        ),
        q(
            "q5",
            "pgct-p2.pdf",
            "REFERENCES reftable MATCH FULL or MATCH PARTIAL foreign key syntax",
        ),
        q(
            "q6",
            "parkeren.txt",
            "Hoeveel bewonersvergunningen per adres?",
        ),
    ];
    std::fs::write(&queries, lines.join("\n") + "\n").unwrap();
    (born, scanned, queries)
}

fn bench(corpus: &Path, queries: &Path, mode: OcrMode) -> BenchResult {
    let req = BenchRequest {
        corpus: Some(corpus.to_path_buf()),
        queries: Some(queries.to_path_buf()),
        config_text: Some(
            "modes = [\"bm25\"]\nk = [1, 3]\n[[config]]\nstrategy = [\"fixed\", \"paragraph\"]\nsize = 128\n"
                .into(),
        ),
        no_cache: true,
        ocr: OcrOptions {
            mode,
            ..OcrOptions::default()
        },
        ..BenchRequest::default()
    };
    bench::run(&req, &NoProgress).unwrap_or_else(|e| panic!("{}: {e}", corpus.display()))
}

fn doc_recall(r: &BenchResult) -> Vec<(String, f64)> {
    r.rows
        .iter()
        .map(|row| {
            (
                format!("{} k={}", row.label, row.k),
                row.metric("doc_recall").unwrap().mean,
            )
        })
        .collect()
}

#[test]
fn born_digital_pdfs_and_their_scans_bench_to_the_same_doc_recall() {
    let dir = tempfile::tempdir().unwrap();
    let (born, scanned, queries) = twins(dir.path());
    let b = bench(&born, &queries, OcrMode::Auto);
    let s = bench(&scanned, &queries, OcrMode::Auto);
    assert_eq!((b.docs, s.docs, b.queries), (4, 4, 6));
    let (rb, rs) = (doc_recall(&b), doc_recall(&s));
    assert_eq!(rb.len(), 4, "{rb:?}");
    assert_eq!(rb, rs, "born-digital vs scanned twin");
    for (label, recall) in &rb {
        if label.ends_with("k=3") {
            assert_eq!(*recall, 100.0, "{label}: {rb:?}");
        }
    }
    // Without OCR the scans have no text: the twin loses the PDFs' queries (the text file's
    // query is still answered).
    let never = bench(&scanned, &queries, OcrMode::Never);
    for (label, recall) in doc_recall(&never) {
        assert!(recall < 20.0, "{label}: {recall} without OCR");
    }
}

#[test]
fn parsed_documents_have_the_parse_text_and_broken_files_are_named() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        shared("datasets/documents/pdf/raadsbesluit.pdf"),
        dir.path().join("raadsbesluit.pdf"),
    )
    .unwrap();
    std::fs::copy(
        shared("datasets/documents/docx/raadsbesluit.docx"),
        dir.path().join("raadsbesluit.docx"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("notes.txt"),
        "%PDF-1.4 is how a PDF starts.\n",
    )
    .unwrap();
    let opts = OcrOptions {
        mode: OcrMode::Never,
        ..OcrOptions::default()
    };
    let c = chunklab_eval::io::load_corpus_with(dir.path(), &opts).unwrap();
    let ids: Vec<&str> = c.docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(ids, ["notes.txt", "raadsbesluit.docx", "raadsbesluit.pdf"]);
    // A UTF-8 text file is its own text even when its first bytes look like a PDF's.
    assert_eq!(c.docs[0].text, "%PDF-1.4 is how a PDF starts.\n");
    assert!(!c.parsed.contains_key("notes.txt"));
    for d in &c.docs[1..] {
        let parsed = &c.parsed[&d.id];
        assert_eq!(d.text, parsed.text, "{}", d.id);
        assert!(d.text.contains("600 meter"), "{}: {}", d.id, d.text);
    }
    std::fs::write(
        dir.path().join("broken.pdf"),
        b"%PDF-1.4\n\x00\x01 not a pdf",
    )
    .unwrap();
    let e = chunklab_eval::io::load_corpus_with(dir.path(), &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("broken.pdf"), "{e}");
    std::fs::remove_file(dir.path().join("broken.pdf")).unwrap();
    let bad = OcrOptions {
        lang: "nld eng".into(),
        ..OcrOptions::default()
    };
    let e = chunklab_eval::io::load_corpus_with(dir.path(), &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("ocr_lang"), "{e}");
}
