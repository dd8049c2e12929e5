//! Parse limits from the command line (issue 19 item 5): `--max-elements` and
//! `--max-expanded-mb` bound what one DOCX/ODT may cost; a document past them is an error naming
//! the file and the limit, the others are still chunked, and an absurd value names the flag.

use chunklab_test_support::{cli, json_lines, shared_path, stderr};
use std::process::Output;

fn chunklab(args: &[&str]) -> Output {
    cli!().run_with_stdin(args, None)
}

#[test]
fn max_elements_refuses_a_document_by_name_and_keeps_the_others() {
    let docs = shared_path("datasets/documents");
    let docx = docs.join("docx/raadsbesluit.docx");
    let odt = docs.join("odt/raadsbesluit.odt");
    let txt = docs.join("nl_verordening_parkeren.txt");
    let (docx, odt, txt) = (
        docx.to_str().unwrap(),
        odt.to_str().unwrap(),
        txt.to_str().unwrap(),
    );
    let all = chunklab(&["chunk", docx, odt, txt]);
    assert!(all.status.success(), "{}", stderr(&all));
    let sources = |out: &Output| {
        let mut s: Vec<String> = json_lines(out)
            .iter()
            .map(|c| c["source"].as_str().unwrap().to_string())
            .collect();
        s.dedup();
        s
    };
    assert_eq!(sources(&all).len(), 3, "{}", stderr(&all));

    let limited = chunklab(&["chunk", docx, odt, txt, "--max-elements", "3"]);
    assert!(
        !limited.status.success(),
        "a refused document must fail the run"
    );
    let err = stderr(&limited);
    for name in ["raadsbesluit.docx", "raadsbesluit.odt"] {
        assert!(
            err.lines()
                .any(|l| l.contains(name) && l.contains("limit of 3")),
            "no error naming {name} and the limit: {err}"
        );
    }
    // The text file has no element limit and is still chunked.
    assert_eq!(sources(&limited), [txt.to_string()], "{err}");

    let parse = chunklab(&["parse", docx, "--max-elements", "3"]);
    assert!(!parse.status.success());
    assert!(stderr(&parse).contains("limit of 3"), "{}", stderr(&parse));
}

#[test]
fn absurd_limits_name_the_flag() {
    let docx = shared_path("datasets/documents/docx/raadsbesluit.docx");
    let docx = docx.to_str().unwrap();
    for (flag, value) in [("--max-elements", "0"), ("--max-expanded-mb", "0")] {
        let out = chunklab(&["chunk", docx, flag, value]);
        assert!(!out.status.success(), "{flag} {value} was accepted");
        assert!(stderr(&out).contains(flag), "{flag}: {}", stderr(&out));
    }
    // A generous cap changes nothing.
    let out = chunklab(&["chunk", docx, "--max-expanded-mb", "64"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!json_lines(&out).is_empty());
}
