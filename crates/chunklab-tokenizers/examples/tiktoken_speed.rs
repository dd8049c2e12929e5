//! Throughput of tiktoken counting: bpe-openai's reference vs chunklab's fast path.
//!
//! `cargo run --release -p chunklab-tokenizers --example tiktoken_speed -- DIR [REPEAT]`
//! concatenates the files in DIR (REPEAT times, default 1) and reports MB/s for splitting,
//! counting and measuring with `cl100k` and `o200k`. "cold" runs on a fresh thread, so the piece
//! cache starts empty; "warm" repeats the call on a thread that already measured the text.
//!
//! `tiktoken_speed DIR REPEAT cold N` only runs N cold `cl100k` counts and prints each one's
//! MB/s by wall and by the counting thread's CPU time (less sensitive to other load on the
//! machine), for A/B runs and profilers (`perf record`, `valgrind --tool=cachegrind`).
use chunklab_core::Sizer;
use chunklab_tokenizers::Tiktoken;
use std::time::Instant;

/// Best of five runs (the machine is shared), in MB/s.
fn rate<T>(mb: f64, f: impl Fn() -> T) -> (T, f64) {
    let mut best = f64::MAX;
    let mut out = None;
    for _ in 0..5 {
        let start = Instant::now();
        out = Some(f());
        best = best.min(start.elapsed().as_secs_f64());
    }
    (out.unwrap(), mb / best)
}

/// Like [`rate`], but each run on a fresh thread, whose piece cache starts empty.
fn cold_rate<T: Send>(mb: f64, f: impl Fn() -> T + Sync) -> (T, f64) {
    rate(mb, || std::thread::scope(|s| s.spawn(&f).join().unwrap()))
}

/// CPU time of the calling thread in nanoseconds (Linux: `/proc/thread-self/schedstat`).
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: tiktoken_speed DIR [REPEAT]");
    let repeat: usize = args
        .next()
        .map_or(1, |r| r.parse().expect("REPEAT is a number"));
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut text = String::new();
    for path in paths {
        text.push_str(&std::fs::read_to_string(path).unwrap_or_default());
    }
    let text = text.repeat(repeat);
    let mb = text.len() as f64 / 1e6;
    println!("{:.2} MB", mb);
    if args.next().as_deref() == Some("cold") {
        let runs: usize = args.next().map_or(1, |n| n.parse().expect("N is a number"));
        let cl100k = Tiktoken::cl100k();
        cl100k.count("warm up");
        for _ in 0..runs {
            let start = Instant::now();
            let (count, cpu) = std::thread::scope(|s| {
                s.spawn(|| {
                    let cpu0 = thread_cpu_ns();
                    let count = cl100k.count(&text);
                    (count, thread_cpu_ns().zip(cpu0).map(|(b, a)| b - a))
                })
                .join()
                .unwrap()
            });
            let secs = start.elapsed().as_secs_f64();
            let cpu = cpu.map_or(f64::NAN, |ns| mb / (ns as f64 * 1e-9));
            println!(
                "cl100k cold count: {count} tokens, {:.1} MB/s, {cpu:.1} MB per CPU-s",
                mb / secs
            );
        }
        return;
    }
    for (ours, reference) in [
        (Tiktoken::cl100k(), bpe_openai::cl100k_base()),
        (Tiktoken::o200k(), bpe_openai::o200k_base()),
    ] {
        // Load vocabularies and class tables outside the timings.
        ours.count("warm up");
        reference.count("warm up");
        let (n_ref, split_ref) = rate(mb, || reference.split(&text).count());
        let (n_ours, split_ours) = rate(mb, || ours.pieces(&text).count());
        assert_eq!(n_ref, n_ours);
        let (c_ref, count_ref) = rate(mb, || reference.count(text.as_str()));
        // The previous `Tiktoken::measure`: bpe-openai's split, then BPE on every piece.
        let (m_ref, measure_ref) = rate(mb, || {
            reference
                .split(&text)
                .map(|piece| {
                    reference
                        .bpe
                        .encode_via_backtracking(piece.as_bytes())
                        .len()
                })
                .sum::<usize>()
        });
        assert_eq!(m_ref, c_ref);
        let (c_cold, count_cold) = cold_rate(mb, || ours.count(&text));
        let (m_cold, measure_cold) = cold_rate(mb, || ours.measure(&text).len(&text));
        let (c_warm, count_warm) = rate(mb, || ours.count(&text));
        let (m_warm, measure_warm) = rate(mb, || ours.measure(&text).len(&text));
        assert_eq!([c_cold, m_cold, c_warm, m_warm], [c_ref; 4]);
        println!(
            "{ours:?}: {n_ref} pieces, {c_ref} tokens\n  split   bpe-openai {split_ref:7.1}  ours {split_ours:7.1} MB/s\n  count   bpe-openai {count_ref:7.1}  ours cold {count_cold:7.1}  warm {count_warm:7.1} MB/s\n  measure bpe-openai {measure_ref:7.1}  ours cold {measure_cold:7.1}  warm {measure_warm:7.1} MB/s"
        );
    }
}
