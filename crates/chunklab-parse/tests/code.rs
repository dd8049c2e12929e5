//! The source-code parser on realistic files in every language, on this repository's own Rust
//! sources, and on hostile input.

use chunklab_parse::code::{parse_code, CodeLanguage, CodeParser};
use chunklab_parse::{Element, Limits, ParseError, ParsedDocument, Parser};
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/code")
}

fn parse_file(path: &Path) -> ParsedDocument {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    CodeParser::new()
        .parse(&bytes, path, &Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn fixture(name: &str) -> ParsedDocument {
    let doc = parse_file(&fixture_dir().join(name));
    check_invariants(&doc, name);
    assert!(doc.warnings.is_empty(), "{name}: {:?}", doc.warnings);
    doc
}

/// The element with this symbol (the first, if several).
fn unit<'d>(doc: &'d ParsedDocument, symbol: &str) -> &'d Element {
    doc.elements
        .iter()
        .find(|e| e.symbol() == Some(symbol))
        .unwrap_or_else(|| panic!("no unit {symbol:?} in {:?}", symbols(doc)))
}

fn symbols(doc: &ParsedDocument) -> Vec<&str> {
    doc.elements.iter().filter_map(|e| e.symbol()).collect()
}

/// Kind, first and last line of the unit with this symbol.
fn facts(doc: &ParsedDocument, symbol: &str) -> (String, u32, u32) {
    let e = unit(doc, symbol);
    let (a, b) = e.lines.expect("code elements have lines");
    (e.code_kind().map(str::to_string).unwrap(), a, b)
}

fn text_of<'d>(doc: &'d ParsedDocument, e: &Element) -> &'d str {
    &doc.text[e.start..e.end]
}

/// Spans on char boundaries, sorted outer-first, properly nested, lines matching offsets, and
/// every non-whitespace char inside a top-level element.
fn check_invariants(doc: &ParsedDocument, name: &str) {
    let text = &doc.text;
    let line_of =
        |b: usize| text.as_bytes()[..b].iter().filter(|&&c| c == b'\n').count() as u32 + 1;
    let mut open: Vec<&Element> = Vec::new();
    let mut covered = 0;
    for (i, e) in doc.elements.iter().enumerate() {
        assert!(e.start < e.end && e.end <= text.len(), "{name}: {e:?}");
        assert!(text.is_char_boundary(e.start) && text.is_char_boundary(e.end));
        assert_eq!(
            e.lines,
            Some((line_of(e.start), line_of(e.end - 1))),
            "{name}: {e:?}"
        );
        assert!(
            e.language().is_some() && e.code_kind().is_some(),
            "{name}: {e:?}"
        );
        if i > 0 {
            let p = &doc.elements[i - 1];
            assert!((p.start, std::cmp::Reverse(p.end)) <= (e.start, std::cmp::Reverse(e.end)));
        }
        while open.last().is_some_and(|o| e.start >= o.end) {
            open.pop();
        }
        match open.last() {
            Some(o) => assert!(e.end <= o.end, "{name}: {e:?} overlaps {o:?}"),
            None => {
                let gap = &text[covered..e.start];
                assert!(gap.trim().is_empty(), "{name}: lost {gap:?}");
                covered = e.end;
            }
        }
        open.push(e);
    }
    assert!(text[covered..].trim().is_empty(), "{name}: lost the tail");
}

#[test]
fn rust_units_symbols_and_doc_comments() {
    let doc = fixture("inventory.rs");
    assert_eq!(doc.format, "code:rust");
    assert_eq!(doc.metadata["language"], "rust");
    assert_eq!(facts(&doc, "MAX_PER_LOCATION"), ("const".into(), 8, 9));
    assert_eq!(facts(&doc, "GREETING"), ("static".into(), 11, 11));
    // Doc comment and derive attribute belong to the struct.
    assert_eq!(facts(&doc, "Location"), ("struct".into(), 13, 19));
    assert_eq!(facts(&doc, "MoveError"), ("enum".into(), 21, 28));
    assert_eq!(
        facts(&doc, "impl fmt::Display for MoveError"),
        ("impl".into(), 30, 37)
    );
    assert_eq!(facts(&doc, "MoveError::fmt"), ("method".into(), 31, 36));
    assert_eq!(facts(&doc, "Stocked"), ("trait".into(), 39, 48));
    assert_eq!(facts(&doc, "Stocked::stock"), ("method".into(), 41, 42));
    assert_eq!(facts(&doc, "impl Inventory"), ("impl".into(), 56, 86));
    assert_eq!(
        facts(&doc, "Inventory::transfer"),
        ("method".into(), 72, 85)
    );
    assert_eq!(
        facts(&doc, "impl Stocked for Inventory"),
        ("impl".into(), 88, 96)
    );
    assert_eq!(facts(&doc, "loc"), ("macro".into(), 98, 102));
    assert_eq!(facts(&doc, "report"), ("module".into(), 104, 115));
    assert_eq!(facts(&doc, "report::lines"), ("function".into(), 108, 114));
    // `#[cfg(test)]` belongs to the module, `#[test]` to the function.
    assert_eq!(facts(&doc, "tests"), ("module".into(), 117, 128));
    assert_eq!(
        facts(&doc, "tests::transfer_is_all_or_nothing"),
        ("function".into(), 121, 127)
    );
    let transfer = unit(&doc, "Inventory::transfer");
    assert!(text_of(&doc, transfer).starts_with("/// Move `n` items"));
    assert!(text_of(&doc, transfer).ends_with("Ok(())\n    }"));
    // The crate docs (`//!`) and the imports are top-level elements of their own.
    let kinds: Vec<_> = doc.elements[..2]
        .iter()
        .map(|e| (e.code_kind().unwrap(), e.lines.unwrap()))
        .collect();
    assert_eq!(kinds, [("comment", (1, 3)), ("imports", (5, 6))]);
    // Methods come right after their impl, which comes after what precedes it.
    let order = symbols(&doc);
    let impl_at = order.iter().position(|s| *s == "impl Inventory").unwrap();
    assert_eq!(order[impl_at + 1], "Inventory::new");
}

#[test]
fn python_classes_methods_decorators_and_docstrings() {
    let doc = fixture("billing.py");
    assert_eq!(doc.format, "code:python");
    // The module docstring, then the import block.
    assert_eq!(doc.elements[0].code_kind(), Some("comment"));
    assert_eq!(doc.elements[0].lines, Some((1, 4)));
    assert_eq!(doc.elements[1].code_kind(), Some("imports"));
    assert_eq!(doc.elements[1].lines, Some((6, 11)));
    // A decorated class starts at its decorator.
    assert_eq!(facts(&doc, "Usage"), ("class".into(), 22, 28));
    assert!(text_of(&doc, unit(&doc, "Usage")).starts_with("@dataclasses.dataclass"));
    assert_eq!(facts(&doc, "Invoice"), ("class".into(), 35, 73));
    assert_eq!(facts(&doc, "Invoice.__init__"), ("method".into(), 41, 44));
    assert_eq!(facts(&doc, "Invoice.subtotal"), ("method".into(), 52, 54));
    assert_eq!(facts(&doc, "Invoice.overage"), ("method".into(), 61, 65));
    // The docstring is inside its function; a nested function is a unit too.
    assert!(text_of(&doc, unit(&doc, "Invoice.overage")).contains("\"\"\"Price of the units"));
    assert_eq!(
        facts(&doc, "Invoice.render.fmt"),
        ("function".into(), 68, 69)
    );
    assert_eq!(facts(&doc, "month_usage"), ("function".into(), 76, 82));
    // A comment right above a function belongs to it.
    assert_eq!(facts(&doc, "build_invoice"), ("function".into(), 85, 93));
    // Module-level statements are kept as elements of their own.
    let last = doc.elements.last().unwrap();
    assert_eq!(last.code_kind(), Some("statements"));
    assert!(text_of(&doc, last).starts_with("if __name__ == \"__main__\":"));
}

#[test]
fn javascript_classes_exports_and_arrow_functions() {
    let doc = fixture("cart.js");
    assert_eq!(doc.format, "code:javascript");
    assert_eq!(facts(&doc, "CartItem"), ("class".into(), 7, 22));
    assert_eq!(
        facts(&doc, "CartItem.constructor"),
        ("method".into(), 11, 16)
    );
    assert_eq!(facts(&doc, "CartItem.total"), ("method".into(), 18, 21));
    // `export class` with its JSDoc.
    assert_eq!(facts(&doc, "Cart"), ("class".into(), 24, 68));
    assert!(text_of(&doc, unit(&doc, "Cart")).starts_with("/**\n * The cart"));
    assert_eq!(facts(&doc, "Cart.add"), ("method".into(), 30, 41));
    assert_eq!(facts(&doc, "Cart.#save"), ("method".into(), 56, 59));
    assert_eq!(facts(&doc, "checkoutTotal"), ("function".into(), 70, 73));
    assert_eq!(facts(&doc, "debounce"), ("function".into(), 75, 82));
    assert_eq!(facts(&doc, "itemsOver"), ("function".into(), 84, 88));
    // Arrow functions inside functions are not units.
    assert!(!symbols(&doc).iter().any(|s| s.contains("debounce.")));
}

#[test]
fn typescript_and_tsx() {
    let doc = fixture("scheduler.ts");
    assert_eq!(doc.format, "code:typescript");
    assert_eq!(facts(&doc, "JobId"), ("type".into(), 7, 7));
    assert_eq!(facts(&doc, "Priority"), ("enum".into(), 9, 13));
    assert_eq!(facts(&doc, "JobSpec"), ("interface".into(), 15, 20));
    // The class decorator and JSDoc are part of the class.
    assert_eq!(facts(&doc, "Scheduler"), ("class".into(), 27, 70));
    assert!(text_of(&doc, unit(&doc, "Scheduler")).contains("@sealed\nexport class"));
    assert_eq!(facts(&doc, "Scheduler.submit"), ("method".into(), 39, 44));
    assert_eq!(facts(&doc, "Scheduler.pump"), ("method".into(), 55, 69));
    assert_eq!(facts(&doc, "Store"), ("class".into(), 72, 78));
    assert_eq!(facts(&doc, "Store.load"), ("method".into(), 73, 73));
    assert_eq!(facts(&doc, "Retry"), ("namespace".into(), 80, 86));
    assert_eq!(facts(&doc, "Retry.backoff"), ("function".into(), 83, 85));
    assert_eq!(facts(&doc, "delay"), ("function".into(), 88, 89));

    let doc = fixture("widget.tsx");
    assert_eq!(doc.format, "code:tsx");
    assert_eq!(facts(&doc, "Props"), ("interface".into(), 3, 6));
    assert_eq!(facts(&doc, "Counter"), ("function".into(), 8, 16));
    assert_eq!(facts(&doc, "Panel.render"), ("method".into(), 19, 21));
}

#[test]
fn go_functions_methods_and_types() {
    let doc = fixture("server.go");
    assert_eq!(doc.format, "code:go");
    // Package comment, package clause and imports form the first element.
    assert_eq!(doc.elements[0].code_kind(), Some("imports"));
    assert_eq!(doc.elements[0].lines, Some((1, 9)));
    assert_eq!(facts(&doc, "ErrNotFound"), ("var".into(), 11, 12));
    assert_eq!(facts(&doc, "MaxKeyLen, maxValue"), ("const".into(), 14, 18));
    assert_eq!(facts(&doc, "Store"), ("struct".into(), 20, 24));
    assert_eq!(facts(&doc, "Getter"), ("interface".into(), 26, 29));
    assert_eq!(facts(&doc, "handlerFunc"), ("type".into(), 31, 31));
    assert_eq!(facts(&doc, "NewStore"), ("function".into(), 33, 36));
    // Methods are named by their receiver type, pointer or not.
    assert_eq!(facts(&doc, "Store.Get"), ("method".into(), 38, 47));
    assert_eq!(facts(&doc, "Store.Set"), ("method".into(), 49, 61));
    assert_eq!(facts(&doc, "Server.ServeHTTP"), ("method".into(), 68, 91));
    // Declarations inside function bodies are not units.
    assert!(!symbols(&doc).iter().any(|s| s.ends_with("body")));
}

#[test]
fn java_classes_nested_types_and_annotations() {
    let doc = fixture("Library.java");
    assert_eq!(doc.format, "code:java");
    assert_eq!(doc.elements[0].code_kind(), Some("imports"));
    assert_eq!(facts(&doc, "Library"), ("class".into(), 12, 98));
    assert_eq!(facts(&doc, "Library.Book"), ("record".into(), 23, 26));
    assert_eq!(facts(&doc, "Library.Loan"), ("class".into(), 28, 44));
    assert_eq!(
        facts(&doc, "Library.Loan.Loan"),
        ("constructor".into(), 34, 38)
    );
    assert_eq!(
        facts(&doc, "Library.Loan.isOverdue"),
        ("method".into(), 40, 43)
    );
    assert_eq!(facts(&doc, "Library.Status"), ("enum".into(), 46, 53));
    assert_eq!(
        facts(&doc, "Library.Status.canLend"),
        ("method".into(), 50, 52)
    );
    // Javadoc above, annotation inside.
    assert_eq!(facts(&doc, "Library.lend"), ("method".into(), 66, 83));
    assert!(text_of(&doc, unit(&doc, "Library.toString")).starts_with("@Override"));
    assert_eq!(facts(&doc, "Notifier"), ("interface".into(), 100, 102));
    assert_eq!(facts(&doc, "Notifier.overdue"), ("method".into(), 101, 101));
}

/// This repository's own sources: real, large, and checked against facts we know.
#[test]
fn this_repository_rust_sources() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let recursive = root.join("chunklab-core/src/strategies/recursive.rs");
    let doc = parse_file(&recursive);
    check_invariants(&doc, "recursive.rs");
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let e = unit(&doc, "Recursive");
    assert_eq!(e.code_kind(), Some("struct"));
    assert!(text_of(&doc, e).starts_with("/// Recursive separator splitting"));
    assert!(text_of(&doc, e).contains("#[derive(Debug)]\npub struct Recursive {"));
    assert_eq!(unit(&doc, "Recursive::new").code_kind(), Some("method"));
    assert_eq!(
        unit(&doc, "impl Chunker for Recursive").code_kind(),
        Some("impl")
    );
    assert_eq!(unit(&doc, "Recursive::spans").code_kind(), Some("method"));
    assert_eq!(
        unit(&doc, "LANGCHAIN_SEPARATORS").code_kind(),
        Some("const")
    );
    assert_eq!(unit(&doc, "tests").code_kind(), Some("module"));
    assert_eq!(
        unit(&doc, "tests::check_native").code_kind(),
        Some("function")
    );
    // A struct inside a test function is still a unit, with the path of its function.
    assert_eq!(unit(&doc, "tests::Pairs").code_kind(), Some("struct"));
    assert_eq!(
        unit(&doc, "tests::Pairs::count").code_kind(),
        Some("method")
    );

    // Every Rust file of the workspace parses cleanly with its text covered.
    let mut files = 0;
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() && !p.ends_with("target") && !p.ends_with("fixtures") {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let doc = parse_file(&p);
                check_invariants(&doc, &p.display().to_string());
                files += 1;
            }
        }
    }
    assert!(files >= 20, "{files} files");
}

#[test]
fn language_by_extension_or_explicit() {
    let src = b"def f():\n    return 1\n";
    let limits = Limits::default();
    let err = CodeParser::new()
        .parse(src, Path::new("script"), &limits)
        .unwrap_err();
    assert!(
        matches!(err, ParseError::Invalid { format: "code", .. }),
        "{err}"
    );
    let doc = CodeParser::for_language(CodeLanguage::Python)
        .parse(src, Path::new("script"), &limits)
        .unwrap();
    assert_eq!(unit(&doc, "f").lines, Some((1, 2)));
    for (name, lang) in [
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("a.jsx", "javascript"),
    ] {
        let doc = parse_file_bytes(b"export function f() { return <b/>; }\n", name);
        assert_eq!(doc.format, format!("code:{lang}"));
        assert_eq!(unit(&doc, "f").code_kind(), Some("function"));
    }
}

fn parse_file_bytes(bytes: &[u8], name: &str) -> ParsedDocument {
    CodeParser::new()
        .parse(bytes, Path::new(name), &Limits::default())
        .unwrap()
}

#[test]
fn syntax_errors_give_a_warning_and_still_units() {
    let src = "fn good() -> u32 {\n    1\n}\n\nfn broken( {\n    let x = ;\n}\n\nfn after() {}\n";
    let doc = parse_code(src, CodeLanguage::Rust, &Limits::default()).unwrap();
    check_invariants(&doc, "broken.rs");
    assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
    assert!(
        doc.warnings[0].contains("syntax error"),
        "{}",
        doc.warnings[0]
    );
    assert_eq!(unit(&doc, "good").lines, Some((1, 3)));
    let py = "class A:\n    def f(self):\n        return (1,\n\ndef g():\n    pass\n";
    let doc = parse_code(py, CodeLanguage::Python, &Limits::default()).unwrap();
    check_invariants(&doc, "broken.py");
    assert!(!doc.warnings.is_empty());
}

#[test]
fn empty_whitespace_bom_and_crlf() {
    for lang in CodeLanguage::ALL {
        for src in ["", "\n\n  \t\n"] {
            let doc = parse_code(src, lang, &Limits::default()).unwrap();
            assert!(doc.elements.is_empty(), "{lang:?} {src:?}");
        }
    }
    let src = "\u{feff}fn f() {}\r\n\r\n/// Doc.\r\nfn g() {}\r\n";
    let doc = parse_code(src, CodeLanguage::Rust, &Limits::default()).unwrap();
    check_invariants(&doc, "bom.rs");
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    assert_eq!(facts(&doc, "f"), ("function".into(), 1, 1));
    assert_eq!(facts(&doc, "g"), ("function".into(), 3, 4));
    assert!(text_of(&doc, unit(&doc, "g")).starts_with("/// Doc."));
}

#[test]
fn binary_garbage_is_an_error_not_a_panic() {
    let garbage: Vec<u8> = (0u32..4096)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let limits = Limits::default();
    for name in ["a.rs", "a.py", "a.js", "a.ts", "a.tsx", "a.go", "a.java"] {
        let err = CodeParser::new()
            .parse(&garbage, Path::new(name), &limits)
            .unwrap_err();
        assert!(
            matches!(err, ParseError::Invalid { .. } | ParseError::NotUtf8 { .. }),
            "{err}"
        );
        // Invalid UTF-8 without NUL bytes.
        let err = CodeParser::new()
            .parse(b"fn \xff\xfe() {}", Path::new(name), &limits)
            .unwrap_err();
        assert!(matches!(err, ParseError::NotUtf8 { offset: 3 }), "{err}");
    }
    // Valid UTF-8 noise parses with warnings, its text kept.
    let noise: String = (0u32..20_000)
        .map(|i| char::from_u32(0x21 + (i.wrapping_mul(2654435761) >> 7) % 0x5e).unwrap())
        .collect();
    for lang in CodeLanguage::ALL {
        let doc = parse_code(&noise, lang, &limits).unwrap();
        check_invariants(&doc, lang.name());
    }
}

#[test]
fn a_one_megabyte_line() {
    let limits = Limits::default();
    let cases = [
        (
            CodeLanguage::Rust,
            format!("const X: &str = \"{}\";", "a".repeat(1 << 20)),
        ),
        (
            CodeLanguage::Python,
            format!("x = [{}]", "1, ".repeat(350_000)),
        ),
        (
            CodeLanguage::JavaScript,
            format!("const s = {};", "a + ".repeat(270_000) + "b"),
        ),
        (
            CodeLanguage::Go,
            format!("var x = \"{}\"", "é".repeat(1 << 19)),
        ),
        (
            CodeLanguage::Java,
            format!("class A {{ int[] x = {{{}}}; }}", "1,".repeat(1 << 19)),
        ),
        (CodeLanguage::TypeScript, "/".repeat(1 << 20)),
    ];
    for (lang, src) in cases {
        assert!(src.len() >= 1 << 20);
        let doc = parse_code(&src, lang, &limits).unwrap();
        check_invariants(&doc, lang.name());
        assert_eq!(
            doc.elements.iter().map(|e| e.lines).max(),
            Some(Some((1, 1)))
        );
    }
}

/// 10,000 levels of nesting: the parser and the walk must not recurse per level.
#[test]
fn ten_thousand_nested_levels() {
    const N: usize = 10_000;
    let nest = |open: &str, close: &str| format!("{}{}", open.repeat(N), close.repeat(N));
    let cases = [
        (CodeLanguage::Rust, format!("fn f() {}\n", nest("{", "}"))),
        (CodeLanguage::Rust, nest("mod m { ", "}")),
        (CodeLanguage::Python, format!("x = {}\n", nest("[", "]"))),
        (
            CodeLanguage::JavaScript,
            format!("function f() {}\n", nest("{", "}")),
        ),
        (CodeLanguage::TypeScript, nest("namespace A { ", "}")),
        (CodeLanguage::Go, format!("func f() {}\n", nest("{", "}"))),
        (CodeLanguage::Java, nest("class A { ", "}")),
        (CodeLanguage::Java, "{".repeat(N)),
    ];
    let limits = Limits::default();
    for (lang, src) in cases {
        // Test threads have a 2 MiB stack; recursion per level would overflow it.
        let doc = parse_code(&src, lang, &limits).unwrap();
        check_invariants(&doc, lang.name());
        let depth = doc
            .elements
            .iter()
            .filter(|e| e.code_kind() != Some("statements"))
            .count();
        assert!(depth <= limits.max_depth, "{lang:?}: {depth} units");
    }
    // Nested units beyond the depth limit stay inside their ancestors, with a warning.
    let doc = parse_code(&nest("mod m { ", "}"), CodeLanguage::Rust, &limits).unwrap();
    assert_eq!(doc.elements.len(), limits.max_depth);
    assert!(
        doc.warnings.iter().any(|w| w.contains("nested deeper")),
        "{:?}",
        doc.warnings
    );
}
