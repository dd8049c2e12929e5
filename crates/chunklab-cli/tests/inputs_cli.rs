//! Inputs that are not plain files (issue 19 item 6): pipes, special files, symlinks, FIFOs
//! and unreadable entries inside directories, and file names that are not UTF-8 — each read
//! or reported, never dropped without a word.

use chunklab_test_support::{cli, json_lines, stderr};
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};

fn chunklab(args: &[&str]) -> Output {
    cli!().run_with_stdin(args, None)
}

fn doc_ids(out: &Output) -> BTreeSet<String> {
    json_lines(out)
        .iter()
        .map(|c| c["doc_id"].as_str().unwrap().to_string())
        .collect()
}

fn mkfifo(path: &Path) {
    let st = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(st.success(), "mkfifo {}", path.display());
}

#[test]
fn a_pipe_named_on_the_command_line_is_read_as_a_stream() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "# Hi\n\ntext\n").unwrap())
    };
    let out = chunklab(&["chunk", fifo.to_str().unwrap(), "--strategy", "headings"]);
    writer.join().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks = json_lines(&out);
    assert_eq!(chunks.len(), 1, "{}", stderr(&out));
    assert_eq!(chunks[0]["text"], "# Hi\n\ntext");
}

#[cfg(target_os = "linux")]
#[test]
fn proc_files_without_a_length_are_read() {
    let out = chunklab(&["chunk", "/proc/cpuinfo", "--parser", "text"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!json_lines(&out).is_empty(), "{}", stderr(&out));
}

#[cfg(target_os = "linux")]
#[test]
fn dev_zero_is_refused_as_binary_not_read_forever() {
    let out = chunklab(&["chunk", "/dev/zero"]);
    assert!(json_lines(&out).is_empty());
    assert!(
        stderr(&out).contains("/dev/zero: binary file skipped"),
        "{}",
        stderr(&out)
    );
}

#[cfg(unix)]
#[test]
fn directory_walks_follow_symlinks_and_report_what_they_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("docs");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(root.join("a.md"), "# A\n\nalpha\n").unwrap();
    std::fs::write(dir.path().join("outside.md"), "# B\n\nbeta\n").unwrap();
    std::os::unix::fs::symlink(dir.path().join("outside.md"), root.join("link.md")).unwrap();
    // A loop: sub/up → docs.
    std::os::unix::fs::symlink(&root, root.join("sub/up")).unwrap();
    mkfifo(&root.join("queue.md"));
    let out = chunklab(&["chunk", root.to_str().unwrap(), "--strategy", "headings"]);
    let err = stderr(&out);
    // The readable documents, the symlinked one included, are chunked…
    assert_eq!(
        doc_ids(&out),
        BTreeSet::from(["a.md".to_string(), "link.md".to_string()]),
        "{err}"
    );
    // …the FIFO and the loop are reported by name, and the run says it was incomplete.
    assert!(err.contains("queue.md: not a regular file"), "{err}");
    assert!(err.contains("sub/up"), "{err}");
    assert!(!out.status.success(), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn non_utf8_file_names_get_distinct_lossless_ids() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (&b"\xff.md"[..], "# Een\n\neen\n"),
        (b"\xfe.md", "# Twee\n\ntwee\n"),
    ] {
        let p = dir.path().join(std::ffi::OsStr::from_bytes(name));
        std::fs::write(p, text).unwrap();
    }
    let out = chunklab(&["chunk", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        doc_ids(&out),
        BTreeSet::from(["\\xfe.md".to_string(), "\\xff.md".to_string()])
    );
}

/// A directory of `n` small files `fNNNN.txt` (each naming its number) and, when `large` is
/// set, one of more than 4 MiB among them: many groups of small documents (tasks of the pool), with a
/// document chunked alone on all cores between them.
fn many_files(n: usize, large: Option<usize>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..n {
        let text = if Some(i) == large {
            "De raad besluit over windenergie in de gemeente.\n".repeat(90_000)
        } else {
            format!("document {i}: {}\n", "tekst ".repeat(i % 40))
        };
        std::fs::write(dir.path().join(format!("f{i:04}.txt")), text).unwrap();
    }
    dir
}

/// The documents of `chunks` in the order they come, each run of one document's chunks once.
fn document_order(chunks: &[serde_json::Value]) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for c in chunks {
        let id = c["doc_id"].as_str().unwrap();
        if order.last().map(String::as_str) != Some(id) {
            order.push(id.to_string());
        }
    }
    order
}

#[test]
fn many_batches_and_a_large_document_come_out_in_input_order() {
    let dir = many_files(1_200, Some(700));
    let path = dir.path().to_str().unwrap();
    let args = ["chunk", path, "--strategy", "fixed", "--size", "2000", "-q"];
    let out = chunklab(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let order = document_order(&json_lines(&out));
    let expected: Vec<String> = (0..1_200).map(|i| format!("f{i:04}.txt")).collect();
    assert_eq!(
        order, expected,
        "each document once, contiguous, in path order"
    );
    // The same bytes on one thread, where nothing overlaps.
    let one = chunklab(&[&args[..], &["-j", "1"]].concat());
    assert!(one.status.success(), "{}", stderr(&one));
    assert!(out.stdout == one.stdout, "output differs with -j 1");
    // One JSON array of the same chunks: the commas between batches and the large document's
    // waves are right.
    let json = chunklab(&[&args[..], &["--format", "json"]].concat());
    assert!(json.status.success(), "{}", stderr(&json));
    let array: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(array, json_lines(&out));
}

#[test]
fn mapped_files_past_a_tasks_bytes_come_out_in_input_order_as_when_alone() {
    // 70 files of ~300 KB (mapped, not read): a task of the pool chunks the first 8 MiB of its
    // group itself and leaves the rest to the writer, one document at a time.
    let dir = tempfile::tempdir().unwrap();
    for i in 0..70 {
        let line = format!("Motie {i} over windenergie in de gemeente, aangenomen in 2020.\n");
        let text = line.repeat(300_000 / line.len() + i);
        assert!(text.len() > 256 << 10);
        std::fs::write(dir.path().join(format!("m{i:02}.txt")), text).unwrap();
    }
    let path = dir.path().to_str().unwrap();
    let args = [
        "chunk",
        path,
        "--strategy",
        "recursive",
        "--size",
        "2000",
        "-q",
    ];
    let out = chunklab(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = json_lines(&out);
    let order = document_order(&lines);
    let expected: Vec<String> = (0..70).map(|i| format!("m{i:02}.txt")).collect();
    assert_eq!(
        order, expected,
        "each document once, contiguous, in path order"
    );
    let one = chunklab(&[&args[..], &["-j", "1"]].concat());
    assert!(out.stdout == one.stdout, "output differs with -j 1");
    // The first document (chunked in its task) and the last (alone, by the writer) as when
    // each is the only input.
    for name in ["m00.txt", "m69.txt"] {
        let file = dir.path().join(name);
        let alone = chunklab(&[&["chunk", file.to_str().unwrap()][..], &args[2..]].concat());
        let theirs: Vec<_> = lines.iter().filter(|c| c["doc_id"] == name).collect();
        assert!(!theirs.is_empty(), "{name}");
        let mine = json_lines(&alone);
        assert_eq!(mine.len(), theirs.len(), "{name}");
        for (a, b) in mine.iter().zip(theirs) {
            let span = |c: &serde_json::Value| {
                (
                    c["text"].clone(),
                    c["start_byte"].clone(),
                    c["tokens"].clone(),
                )
            };
            assert_eq!(span(a), span(b), "{name}");
        }
    }
}

#[test]
fn standard_input_larger_than_a_large_document_is_chunked() {
    // Over `LARGE_DOCUMENT` (4 MiB), which a file would be chunked alone at: standard input
    // cannot be read twice, so it must be chunked from what was read.
    let text = "De raad besluit over windenergie in de gemeente.\n".repeat(100_000);
    assert!(text.len() > 4 << 20);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("raad.txt");
    std::fs::write(&file, &text).unwrap();
    let args = ["--strategy", "fixed", "--size", "2000", "-q"];
    let piped = cli!().run_with_stdin(
        &[&["chunk", "-"][..], &args].concat(),
        Some(text.as_bytes()),
    );
    let named = chunklab(&[&["chunk", file.to_str().unwrap()][..], &args].concat());
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert!(named.status.success(), "{}", stderr(&named));
    let texts = |out: &Output| -> Vec<String> {
        json_lines(out)
            .iter()
            .map(|c| c["text"].as_str().unwrap().to_string())
            .collect()
    };
    let (piped, named) = (texts(&piped), texts(&named));
    assert!(named.len() > 1000);
    assert!(
        piped == named,
        "{} chunks from standard input, {} from the file",
        piped.len(),
        named.len()
    );
}

#[test]
fn a_write_error_stops_the_run_with_its_cause() {
    let dir = many_files(1_200, None);
    for target in [&["-o", "/dev/full"][..], &[]] {
        let args = [&["chunk", dir.path().to_str().unwrap()][..], target].concat();
        let out = if target.is_empty() {
            let full = std::fs::File::options()
                .write(true)
                .open("/dev/full")
                .unwrap();
            cli!().command().args(&args).stdout(full).output().unwrap()
        } else {
            chunklab(&args)
        };
        assert!(!out.status.success(), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("cannot write output") && err.contains("No space left"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_missing_path_fails_before_the_output_is_created() {
    let dir = many_files(3, None);
    let out_path = dir.path().join("out.jsonl");
    let missing = dir.path().join("missing");
    let args = [
        "chunk",
        dir.path().to_str().unwrap(),
        missing.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ];
    let out = chunklab(&args);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("missing: cannot read"), "{err}");
    assert!(!out_path.exists(), "the output was created");
}

#[test]
fn paths_that_hold_no_files_are_warned_about() {
    // An empty or mistyped directory, or filters that leave nothing, is not a silent success.
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("leeg");
    std::fs::create_dir(&empty).unwrap();
    let out = chunklab(&["chunk", empty.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warning: no files to read under ")
            && stderr(&out).contains("leeg (hidden and .gitignored files are skipped)"),
        "{}",
        stderr(&out)
    );
    std::fs::write(empty.join("a.txt"), "Tekst.").unwrap();
    let out = chunklab(&["chunk", empty.to_str().unwrap(), "--include", "*.pdf"]);
    assert!(
        stderr(&out).contains("; --include and --exclude apply)"),
        "{}",
        stderr(&out)
    );
    let out = chunklab(&["chunk", empty.to_str().unwrap()]);
    assert!(!stderr(&out).contains("no files"), "{}", stderr(&out));
    assert_eq!(json_lines(&out).len(), 1);
}

#[test]
fn the_output_file_is_never_read_as_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(docs.join("a.txt"), "Motie over windenergie.").unwrap();
    std::fs::write(docs.join("b.txt"), "Besluit over parkeren.").unwrap();
    // Named as both: refused before the output would empty it.
    let a = docs.join("a.txt");
    let a = a.to_str().unwrap();
    let out = chunklab(&["chunk", a, "-o", a]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is both an input and the output (-o "),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(a).unwrap(),
        "Motie over windenergie."
    );
    // Inside a directory walked: left out, also when an earlier run's output is there.
    let target = docs.join("chunks.jsonl");
    for _ in 0..2 {
        let out = chunklab(&[
            "chunk",
            docs.to_str().unwrap(),
            "-o",
            target.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("chunked 2 documents"),
            "{}",
            stderr(&out)
        );
        let text = std::fs::read_to_string(&target).unwrap();
        let ids: BTreeSet<String> = text
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["doc_id"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            ids,
            BTreeSet::from(["a.txt".to_string(), "b.txt".to_string()])
        );
    }
}

#[test]
fn a_bad_include_or_exclude_glob_names_its_flag() {
    let dir = many_files(2, None);
    let d = dir.path().to_str().unwrap();
    for (flag, glob, says) in [
        (
            "--include",
            "[",
            "--include `[` is not a glob: unclosed character class",
        ),
        (
            "--exclude",
            "a{b",
            "--exclude `a{b` is not a glob: unclosed alternate group",
        ),
    ] {
        let out = chunklab(&["chunk", d, flag, glob]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
    }
}
