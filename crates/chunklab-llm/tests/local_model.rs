//! The local backend on the real SmolLM2-135M-Instruct model (installed by
//! `chunklab models fetch smollm2`; the test fetches it when missing).

use chunklab_llm::local::{LocalLlm, LocalOptions};
use chunklab_llm::{spec, Llm, Prompt};
use std::sync::OnceLock;

fn model(reuse: bool) -> LocalLlm {
    let home = chunklab_embed::fetch::home_dir();
    spec::open_local(
        "smollm2",
        &home,
        true,
        LocalOptions {
            reuse_prefix: reuse,
        },
    )
    .unwrap()
}

fn shared() -> &'static LocalLlm {
    static M: OnceLock<LocalLlm> = OnceLock::new();
    M.get_or_init(|| model(true))
}

const DOC: &str = "<document>\nThe city of Utrecht publishes an annual report on its parks. \
In 2023 the city planted 1,200 new trees, most of them along the canals. \
The budget for park maintenance rose by 8 percent to 14 million euros. \
A new playground opened in Griftpark in June.\n</document>\n";

fn prompt(chunk: &str) -> Prompt {
    Prompt {
        system: String::new(),
        shared: DOC.to_string(),
        request: format!(
            "Here is the chunk we want to situate within the whole document\n<chunk>\n{chunk}\n</chunk>\n\
             Please give a short succinct context to situate this chunk within the overall document. \
             Answer only with the succinct context and nothing else."
        ),
        max_tokens: 24,
    }
}

const CHUNKS: [&str; 3] = [
    "In 2023 the city planted 1,200 new trees, most of them along the canals.",
    "The budget for park maintenance rose by 8 percent to 14 million euros.",
    "A new playground opened in Griftpark in June.",
];

#[test]
fn tokenizer_round_trips_and_knows_chatml_markers() {
    let llm = shared();
    let p = Prompt {
        system: "S".into(),
        shared: "Hello wörld 2023".into(),
        request: "!".into(),
        max_tokens: 1,
    };
    let ids = llm.prompt_tokens(&p).unwrap();
    // <|im_start|> is id 1 in SmolLM2's vocabulary, <|im_end|> id 2.
    assert_eq!(ids[0], 1);
    assert_eq!(ids.iter().filter(|&&i| i == 2).count(), 2);
    assert_eq!(llm.count_tokens("2023"), 4, "digits are split one by one");
    assert_eq!(llm.count_tokens(""), 0);
}

#[test]
fn answers_are_non_empty_deterministic_and_on_topic() {
    let llm = shared();
    let p = Prompt {
        system: String::new(),
        shared: "What is the capital of France? Answer with one word.".into(),
        request: String::new(),
        max_tokens: 8,
    };
    let a = llm.complete(&p).unwrap();
    let b = llm.complete(&p).unwrap();
    // Same text and token counts (how much of the prompt came from the KV cache depends on
    // what the shared model ran before).
    assert_eq!(
        (&a.text, a.usage.output_tokens),
        (&b.text, b.usage.output_tokens)
    );
    assert!(a.text.contains("Paris"), "{:?}", a.text);
    assert!(a.usage.output_tokens >= 1 && a.usage.output_tokens <= 8);
}

#[test]
fn kv_prefix_reuse_gives_the_same_tokens_as_no_reuse() {
    let reuse = model(true);
    let fresh = model(false);
    let mut cached_total = 0;
    for chunk in CHUNKS {
        let p = prompt(chunk);
        let (a, cached, input) = reuse.generate(&p).unwrap();
        let (b, none, _) = fresh.generate(&p).unwrap();
        assert_eq!(a, b, "chunk {chunk:?}");
        assert!(!a.is_empty());
        assert_eq!(none, 0);
        assert!(cached < input);
        cached_total += cached;
    }
    // The second and third chunk reuse at least the document prefix.
    let doc_tokens = reuse.count_tokens(DOC);
    assert!(
        cached_total >= 2 * doc_tokens,
        "{cached_total} < 2 x {doc_tokens}"
    );
}

#[test]
fn contexts_of_a_real_document_are_stored_in_chunk_metadata() {
    use chunklab_core::{chunk_document, strategies, CharSizer, Document, Lang};
    use chunklab_llm::context::{contextualize, fit_context, ChunkRef, ContextOptions};
    let text = "# Parks report\n\nIn 2023 the city planted 1,200 new trees along the canals.\n\n\
                The budget for park maintenance rose by 8 percent to 14 million euros.";
    let chunker =
        strategies::Paragraph::new(std::sync::Arc::new(CharSizer), 200, 0, Lang::Auto).unwrap();
    let mut chunks = chunk_document(&Document::new("parks", "parks.md", text), &chunker).unwrap();
    let refs: Vec<ChunkRef> = chunks
        .iter()
        .map(|c| ChunkRef {
            span: c.start_byte..c.end_byte,
            headings: &[],
        })
        .collect();
    let copts = ContextOptions {
        max_tokens: 32,
        ..ContextOptions::default()
    };
    let (contexts, warnings) = contextualize(shared(), text, "parks.md", &refs, &copts).unwrap();
    assert_eq!(contexts.len(), chunks.len());
    assert_eq!(warnings.windowed, 0);
    let again = contextualize(shared(), text, "parks.md", &refs, &copts)
        .unwrap()
        .0;
    assert_eq!(contexts, again, "greedy decoding is deterministic");
    for (c, ctx) in chunks.iter_mut().zip(&contexts) {
        assert!(ctx.chars().any(char::is_alphanumeric), "{ctx:?}");
        let before = (c.start_byte, c.end_byte, c.text);
        let f = fit_context(&CharSizer, ctx, c.text, 200);
        c.meta.context = Some(f.context.clone());
        c.tokens = f.tokens;
        assert_eq!(
            (c.start_byte, c.end_byte, c.text),
            before,
            "the span is untouched"
        );
        assert!(c.tokens <= 200);
        assert_eq!(
            c.meta.embed_text(c.text),
            format!("{}\n\n{}", f.context, c.text)
        );
    }
}

#[test]
fn llm_strategy_keeps_exact_spans_within_the_size() {
    use chunklab_core::validate::{check_spans, Expect};
    use chunklab_core::{Chunker, Lang, WordSizer};
    use chunklab_llm::strategy::LlmChunker;
    let text = "Utrecht planted 1,200 trees in 2023. Most stand along the canals. \
                The park budget rose to 14 million euros. Maintenance costs grew by 8 percent. \
                A playground opened in Griftpark. Children from three schools use it daily.";
    let llm: std::sync::Arc<dyn Llm> = std::sync::Arc::new(model(true));
    let chunker = LlmChunker::new(llm, std::sync::Arc::new(WordSizer), 20, Lang::English).unwrap();
    let spans = chunker.spans(text).unwrap();
    check_spans(
        text,
        &spans,
        &WordSizer,
        Expect {
            size: 20,
            overlap: false,
        },
    )
    .unwrap();
    assert_eq!(chunker.stats().0, 1, "one request for one window");
    assert_eq!(spans, chunker.spans(text).unwrap(), "deterministic");
}

#[test]
fn local_contexts_pass_the_quality_gates_or_fall_back_to_the_header() {
    use chunklab_llm::context::{
        contextualize_each, ChunkContext, ChunkRef, ContextOptions, OnFailure, ANTHROPIC_PROMPT,
    };
    use chunklab_llm::quality::{ContextCheck, ContextGates};
    // Release notes, where SmolLM2 tends to list versions in a loop.
    let doc = "# Django 1.11.23 release notes\n\nAugust 1, 2019\n\n\
               Django 1.11.23 fixes two security issues in 1.11.22.\n\n\
               ## CVE-2019-14232: Denial-of-service possibility in Truncator\n\n\
               If the chars() and words() methods of Truncator were passed html=True, they were \
               extremely slow to evaluate certain inputs due to a catastrophic backtracking \
               vulnerability in a regular expression.";
    let heads = vec!["Django 1.11.23 release notes".to_string()];
    let refs: Vec<ChunkRef> = chunklab_core::segment::paragraphs(doc)
        .into_iter()
        .filter(|&(s, e)| !doc[s..e].trim().is_empty())
        .map(|(s, e)| ChunkRef {
            span: s..e,
            headings: &heads,
        })
        .collect();
    let opts = ContextOptions {
        max_tokens: 32,
        on_failure: OnFailure::Header,
        ..ContextOptions::default()
    };
    let (contexts, w) = contextualize_each(shared(), doc, "django.md", &refs, &opts).unwrap();
    assert_eq!(contexts.len(), refs.len());
    let check = ContextCheck::new(
        ContextGates::default(),
        &ANTHROPIC_PROMPT.replace("{doc}", "").replace("{chunk}", ""),
        doc,
    );
    let mut headers = 0;
    for (c, r) in contexts.iter().zip(&refs) {
        match c {
            ChunkContext::Model(t) => {
                assert_eq!(
                    check.check(t, &doc[r.span.clone()]).as_ref(),
                    Ok(t),
                    "{t:?}"
                )
            }
            ChunkContext::Header => headers += 1,
        }
    }
    assert_eq!(w.fallbacks, headers, "{w}");
    assert!(
        w.rejected.total() >= w.retried && w.retried >= w.fallbacks,
        "{w}"
    );
    assert_eq!(w.rejected.total(), w.retried + w.fallbacks, "{w}");
    eprintln!("local contexts: {w}");
}
