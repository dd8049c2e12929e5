//! How each face writes the settings that the library's advice and errors name: a
//! [`Spelling`]. The library writes one sentence and asks the face for the words (`--size 254`
//! on the command line, `size=254` in Python), so that no face rewrites the library's text.

/// How a face writes the settings that the library's advice names: the command line's
/// `--size 254`, Python's `size=254`. Keys are the configuration's (`size`, `model`, `unit`,
/// `lang`).
pub trait Spelling: std::fmt::Debug {
    /// Key `key` set to `value`.
    fn setting(&self, key: &str, value: &serde_json::Value) -> String;
    /// Key `key` alone.
    fn key(&self, key: &str) -> String;
    /// The yes/no option `key` turned on (`--lossy`, `lossy=True`).
    fn switch(&self, key: &str) -> String;
    /// How to run the lab on a corpus, its queries and a sweep file.
    fn bench(&self) -> String;
    /// How to install the known embedding model `model` that is missing.
    fn fetch_model(&self, model: &str) -> String;
}

/// The command line's spelling (`--size 254`, `--model e5-small`), also the HTTP server's:
/// the index it writes to is built and rebuilt with `chunklab index`.
#[derive(Debug, Clone, Copy)]
pub struct Flags;

impl Spelling for Flags {
    fn setting(&self, key: &str, value: &serde_json::Value) -> String {
        match value {
            serde_json::Value::String(s) => format!("{} {s}", self.key(key)),
            other => format!("{} {other}", self.key(key)),
        }
    }

    fn key(&self, key: &str) -> String {
        match key {
            // The semantic breakpoint's amount is given by one of two flags.
            "breakpoint_amount" => "--percentile/--threshold".into(),
            key => format!("--{}", key.replace('_', "-")),
        }
    }

    fn switch(&self, key: &str) -> String {
        self.key(key)
    }

    fn bench(&self) -> String {
        "`chunklab bench --corpus DIR --queries FILE --config sweep.toml`".into()
    }

    fn fetch_model(&self, model: &str) -> String {
        chunklab_embed::Error::fetch_advice(model)
    }
}
