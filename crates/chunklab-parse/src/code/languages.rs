//! The languages the code parser knows, and what their syntax nodes mean to it: which node kinds
//! are units (functions, classes, impls ...), which are imports, and which are comments,
//! attributes or decorators that belong to the unit after them.

use std::path::Path;
use tree_sitter::Node;

/// A programming language with a tree-sitter grammar in this build.
///
/// ```
/// use chunklab_parse::code::CodeLanguage;
/// assert_eq!(CodeLanguage::from_extension("tsx"), Some(CodeLanguage::Tsx));
/// assert_eq!(CodeLanguage::from_name("golang"), Some(CodeLanguage::Go));
/// assert_eq!(CodeLanguage::Rust.name(), "rust");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodeLanguage {
    Rust,
    Python,
    /// JavaScript, including JSX.
    JavaScript,
    TypeScript,
    /// TypeScript with JSX (`.tsx`).
    Tsx,
    Go,
    Java,
}

impl CodeLanguage {
    /// Every language, in a stable order.
    pub const ALL: [CodeLanguage; 7] = [
        CodeLanguage::Rust,
        CodeLanguage::Python,
        CodeLanguage::JavaScript,
        CodeLanguage::TypeScript,
        CodeLanguage::Tsx,
        CodeLanguage::Go,
        CodeLanguage::Java,
    ];

    /// Lowercase name, as written into `ParsedDocument::format` (`code:<name>`) and metadata.
    pub fn name(self) -> &'static str {
        match self {
            CodeLanguage::Rust => "rust",
            CodeLanguage::Python => "python",
            CodeLanguage::JavaScript => "javascript",
            CodeLanguage::TypeScript => "typescript",
            CodeLanguage::Tsx => "tsx",
            CodeLanguage::Go => "go",
            CodeLanguage::Java => "java",
        }
    }

    /// File extensions (without the dot) that select this language.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            CodeLanguage::Rust => &["rs"],
            CodeLanguage::Python => &["py", "pyi"],
            CodeLanguage::JavaScript => &["js", "mjs", "cjs", "jsx"],
            CodeLanguage::TypeScript => &["ts", "mts", "cts"],
            CodeLanguage::Tsx => &["tsx"],
            CodeLanguage::Go => &["go"],
            CodeLanguage::Java => &["java"],
        }
    }

    /// The language of a file extension (without the dot, any case).
    pub fn from_extension(ext: &str) -> Option<Self> {
        let ext = ext.to_ascii_lowercase();
        Self::ALL
            .into_iter()
            .find(|l| l.extensions().contains(&ext.as_str()))
    }

    /// The language of a path, by its extension.
    pub fn from_path(path: &Path) -> Option<Self> {
        Self::from_extension(path.extension()?.to_str()?)
    }

    /// The language of a name as a user writes it: `rust`, `python`, `js`, `typescript`, `golang` ...
    /// (any case); extensions are accepted too.
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.trim().to_ascii_lowercase();
        let by_name = match lower.as_str() {
            "rust" => Some(CodeLanguage::Rust),
            "python" | "python3" => Some(CodeLanguage::Python),
            "javascript" | "node" | "ecmascript" => Some(CodeLanguage::JavaScript),
            "typescript" => Some(CodeLanguage::TypeScript),
            "go" | "golang" => Some(CodeLanguage::Go),
            "java" => Some(CodeLanguage::Java),
            _ => None,
        };
        by_name.or_else(|| Self::from_extension(&lower))
    }

    /// The tree-sitter grammar.
    pub(crate) fn grammar(self) -> tree_sitter::Language {
        match self {
            CodeLanguage::Rust => tree_sitter_rust::LANGUAGE.into(),
            CodeLanguage::Python => tree_sitter_python::LANGUAGE.into(),
            CodeLanguage::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            CodeLanguage::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            CodeLanguage::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            CodeLanguage::Go => tree_sitter_go::LANGUAGE.into(),
            CodeLanguage::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }

    /// What joins the parts of a symbol path (`module::fn`, `Class.method`).
    pub(crate) fn path_separator(self) -> &'static str {
        match self {
            CodeLanguage::Rust => "::",
            _ => ".",
        }
    }
}

/// What one syntax node is to the unit walker.
#[derive(Debug, PartialEq)]
pub(crate) enum Role {
    /// A unit of its own (an element): its kind, its name (`None`: anonymous), which extends
    /// the enclosing scope into the unit's symbol path and the scope of its children, and a
    /// symbol to show instead where that differs (`impl Display for Foo` has name `Foo`, so its
    /// methods are `Foo::fmt`).
    Unit {
        kind: &'static str,
        name: Option<String>,
        symbol: Option<String>,
    },
    /// An import-like statement (`use`, `import`, `package`); consecutive ones at the top level
    /// become one `imports` unit.
    Import,
    /// A comment, attribute or decorator that belongs to the unit right after it (no blank line
    /// in between).
    Leading,
    /// A comment that belongs to its parent (Rust `//!`), or any other node.
    Other,
}

/// Where a node sits: the kind of its parent node and of the unit it is in.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context {
    pub parent_kind: &'static str,
    pub unit_kind: Option<&'static str>,
}

/// True for comments, and for Python's bare string statements (docstrings): text that
/// documents rather than does.
pub(crate) fn is_comment_like(lang: CodeLanguage, node: Node) -> bool {
    let kind = node.kind();
    if kind.contains("comment") {
        return true;
    }
    lang == CodeLanguage::Python
        && kind == "expression_statement"
        && node.named_child_count() == 1
        && node.named_child(0).is_some_and(|c| c.kind() == "string")
}

/// Unit kinds whose function children are methods.
fn is_type_container(kind: Option<&str>) -> bool {
    matches!(
        kind,
        Some("class" | "impl" | "trait" | "interface" | "enum" | "record" | "struct")
    )
}

/// A symbol part longer than this is cut (hostile or broken input).
const MAX_NAME_BYTES: usize = 200;

/// The source text of a node with runs of whitespace collapsed to one space.
fn node_text(node: Node, src: &str) -> String {
    let raw = src.get(node.byte_range()).unwrap_or("");
    let mut out = String::new();
    for word in raw.split_whitespace() {
        if out.len() >= MAX_NAME_BYTES {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.len() > MAX_NAME_BYTES {
        let cut = chunklab_core::text::floor_char_boundary(&out, MAX_NAME_BYTES);
        out.truncate(cut);
    }
    out
}

fn field_text(node: Node, field: &str, src: &str) -> Option<String> {
    node.child_by_field_name(field)
        .map(|n| node_text(n, src))
        .filter(|s| !s.is_empty())
}

/// A type without its generic arguments and pointer/reference marks: `&mut Foo<T>` → `Foo`.
fn base_type(text: &str) -> String {
    let t = text.trim_start_matches(['&', '*', ' ']);
    let t = t
        .strip_prefix("mut ")
        .unwrap_or(t)
        .trim_start_matches(['*', ' ']);
    let end = t.find(['<', '[', '(', ' ']).unwrap_or(t.len());
    t[..end].to_string()
}

fn unit(kind: &'static str, name: Option<String>) -> Role {
    Role::Unit {
        kind,
        name,
        symbol: None,
    }
}

/// What `node` is in `lang`.
pub(crate) fn classify(lang: CodeLanguage, node: Node, ctx: Context, src: &str) -> Role {
    match lang {
        CodeLanguage::Rust => rust(node, ctx, src),
        CodeLanguage::Python => python(node, ctx, src),
        CodeLanguage::JavaScript | CodeLanguage::TypeScript | CodeLanguage::Tsx => {
            javascript(node, ctx, src)
        }
        CodeLanguage::Go => go(node, ctx, src),
        CodeLanguage::Java => java(node, src),
    }
}

fn function_or_method(ctx: Context) -> &'static str {
    if is_type_container(ctx.unit_kind) {
        "method"
    } else {
        "function"
    }
}

fn rust(node: Node, ctx: Context, src: &str) -> Role {
    let name = || field_text(node, "name", src);
    let kind = match node.kind() {
        "function_item" | "function_signature_item" => function_or_method(ctx),
        "struct_item" => "struct",
        "enum_item" => "enum",
        "union_item" => "union",
        "trait_item" => "trait",
        "const_item" => "const",
        "static_item" => "static",
        "type_item" => "type",
        "macro_definition" => "macro",
        "foreign_mod_item" => "extern",
        "mod_item" if node.child_by_field_name("body").is_none() => return Role::Import,
        "mod_item" => "module",
        "impl_item" => {
            let ty = field_text(node, "type", src).unwrap_or_default();
            let symbol = match field_text(node, "trait", src) {
                Some(tr) => format!("impl {tr} for {ty}"),
                None => format!("impl {ty}"),
            };
            return Role::Unit {
                kind: "impl",
                name: Some(base_type(&ty)).filter(|s| !s.is_empty()),
                symbol: Some(symbol),
            };
        }
        "use_declaration" | "extern_crate_declaration" => return Role::Import,
        "attribute_item" => return Role::Leading,
        "line_comment" | "block_comment" => {
            let text = src.get(node.byte_range()).unwrap_or("");
            let inner = text.starts_with("//!") || text.starts_with("/*!");
            return if inner { Role::Other } else { Role::Leading };
        }
        _ => return Role::Other,
    };
    unit(kind, name())
}

fn python(node: Node, ctx: Context, src: &str) -> Role {
    match node.kind() {
        "function_definition" | "class_definition" if ctx.parent_kind == "decorated_definition" => {
            Role::Other // the decorated definition is the unit
        }
        "function_definition" => unit(function_or_method(ctx), field_text(node, "name", src)),
        "class_definition" => unit("class", field_text(node, "name", src)),
        "decorated_definition" => match node.child_by_field_name("definition") {
            Some(def) => {
                let inner = Context {
                    parent_kind: "module",
                    unit_kind: ctx.unit_kind,
                };
                python(def, inner, src)
            }
            None => Role::Other,
        },
        "import_statement" | "import_from_statement" | "future_import_statement" => Role::Import,
        "comment" => Role::Leading,
        _ => Role::Other,
    }
}

/// JavaScript, TypeScript and TSX share their node kinds.
fn javascript(node: Node, ctx: Context, src: &str) -> Role {
    if ctx.parent_kind == "export_statement" && node.kind() != "comment" {
        return Role::Other; // the export statement is the unit
    }
    let name = || field_text(node, "name", src);
    let kind = match node.kind() {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            "function"
        }
        "class_declaration" | "abstract_class_declaration" => "class",
        "method_definition" | "abstract_method_signature" if ctx.parent_kind == "class_body" => {
            "method"
        }
        "interface_declaration" => "interface",
        "type_alias_declaration" => "type",
        "enum_declaration" => "enum",
        "internal_module" | "module" => "namespace",
        "lexical_declaration" | "variable_declaration" => {
            return declared_function(node, ctx, src);
        }
        "export_statement" => {
            return match node.child_by_field_name("declaration") {
                Some(decl) => {
                    let top = Context {
                        parent_kind: "program",
                        unit_kind: ctx.unit_kind,
                    };
                    javascript(decl, top, src)
                }
                None => Role::Other,
            };
        }
        "import_statement" => return Role::Import,
        "comment" => return Role::Leading,
        _ => return Role::Other,
    };
    unit(kind, name())
}

/// `const handler = (req) => { ... }` at the top level (or in a namespace): a function named
/// `handler`.
fn declared_function(node: Node, ctx: Context, src: &str) -> Role {
    let top_level = ctx.parent_kind == "program"
        || (ctx.parent_kind == "statement_block" && ctx.unit_kind == Some("namespace"));
    if !top_level {
        return Role::Other;
    }
    let mut cursor = node.walk();
    let declarator = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "variable_declarator");
    let Some(declarator) = declarator else {
        return Role::Other;
    };
    let kind = match declarator.child_by_field_name("value").map(|v| v.kind()) {
        Some("arrow_function" | "function_expression" | "function" | "generator_function") => {
            "function"
        }
        Some("class") => "class",
        _ => return Role::Other,
    };
    unit(kind, field_text(declarator, "name", src))
}

fn go(node: Node, ctx: Context, src: &str) -> Role {
    let top_level = ctx.parent_kind == "source_file";
    let kind = match node.kind() {
        "function_declaration" => "function",
        "method_declaration" => {
            let receiver = node
                .child_by_field_name("receiver")
                .map(|r| node_text(r, src))
                .unwrap_or_default();
            // `(s *Store)` → `Store`
            let ty = receiver
                .trim_matches(|c| c == '(' || c == ')')
                .split_whitespace()
                .last()
                .map(base_type)
                .unwrap_or_default();
            let name = field_text(node, "name", src).unwrap_or_default();
            let name = if ty.is_empty() {
                name
            } else {
                format!("{ty}.{name}")
            };
            return unit("method", Some(name));
        }
        // Declarations inside function bodies stay part of their function.
        "type_declaration" if top_level => return go_specs(node, src, true),
        "const_declaration" | "var_declaration" if top_level => return go_specs(node, src, false),
        "import_declaration" | "package_clause" => return Role::Import,
        "comment" => return Role::Leading,
        _ => return Role::Other,
    };
    unit(kind, field_text(node, "name", src))
}

/// `type (...)`, `const (...)`, `var (...)`: kind from the first spec, names joined.
fn go_specs(node: Node, src: &str, types: bool) -> Role {
    let mut names = Vec::new();
    let mut kind = match node.kind() {
        "const_declaration" => "const",
        "var_declaration" => "var",
        _ => "type",
    };
    let mut cursor = node.walk();
    for spec in node.named_children(&mut cursor) {
        if !spec.kind().ends_with("_spec") && spec.kind() != "type_alias" {
            continue;
        }
        if types && names.is_empty() {
            kind = match spec.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => "struct",
                Some("interface_type") => "interface",
                _ => "type",
            };
        }
        if let Some(n) = field_text(spec, "name", src) {
            if names.len() < 8 {
                names.push(n);
            }
        }
    }
    let name = (!names.is_empty()).then(|| names.join(", "));
    unit(kind, name)
}

fn java(node: Node, src: &str) -> Role {
    let kind = match node.kind() {
        "class_declaration" => "class",
        "interface_declaration" => "interface",
        "enum_declaration" => "enum",
        "record_declaration" => "record",
        "annotation_type_declaration" => "annotation",
        "method_declaration" => "method",
        "constructor_declaration" | "compact_constructor_declaration" => "constructor",
        "module_declaration" => "module",
        "import_declaration" | "package_declaration" => return Role::Import,
        "line_comment" | "block_comment" => return Role::Leading,
        _ => return Role::Other,
    };
    unit(kind, field_text(node, "name", src))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_by_extension_and_name() {
        for (ext, lang) in [
            ("rs", CodeLanguage::Rust),
            ("py", CodeLanguage::Python),
            ("js", CodeLanguage::JavaScript),
            ("mjs", CodeLanguage::JavaScript),
            ("cjs", CodeLanguage::JavaScript),
            ("JSX", CodeLanguage::JavaScript),
            ("ts", CodeLanguage::TypeScript),
            ("tsx", CodeLanguage::Tsx),
            ("go", CodeLanguage::Go),
            ("java", CodeLanguage::Java),
        ] {
            assert_eq!(CodeLanguage::from_extension(ext), Some(lang), "{ext}");
            assert_eq!(CodeLanguage::from_name(lang.name()), Some(lang));
        }
        assert_eq!(CodeLanguage::from_extension("md"), None);
        assert_eq!(
            CodeLanguage::from_name("Python"),
            Some(CodeLanguage::Python)
        );
        assert_eq!(
            CodeLanguage::from_path(Path::new("src/main.rs")),
            Some(CodeLanguage::Rust)
        );
        assert_eq!(CodeLanguage::from_path(Path::new("Makefile")), None);
    }

    #[test]
    fn base_types() {
        assert_eq!(base_type("Foo<T>"), "Foo");
        assert_eq!(base_type("&mut Foo"), "Foo");
        assert_eq!(base_type("*Store"), "Store");
        assert_eq!(base_type("Map[K, V]"), "Map");
    }
}
