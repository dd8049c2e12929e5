//! Benchmark of the embedded index: HNSW build, disk size, dense/filtered query latency and
//! recall@10 against the exact scan, BM25 and hybrid (RRF) latency over synthetic Dutch-ish text.
//!
//! ```sh
//! cargo run --release -p chunklab-index --example index_bench -- --n 100000
//! cargo run --release -p chunklab-index --example index_bench -- --n 1000000 --ef 64,96,128
//! ```
//!
//! Options: `--n N` items (100000), `--dim D` (384), `--queries Q` (1000), `--clusters C`
//! (min(n/100, 4000)), `--m M` / `--ef-construction E` / `--ef E1,E2,..` (HNSW parameters; the
//! last `--ef` value is kept for the filtered and hybrid rows), `--graph f32|i8` (the graph's copy
//! of the vectors, default i8), `--threads T` build threads (2), `--dir PATH` where to save (a
//! temporary directory), `--no-text` to skip BM25 and hybrid, `--no-filters` to skip the filtered
//! rows, `--load` to skip the build and load the index already saved in `--dir` (same `--n`,
//! so the queries are the same; its RSS is then the loaded index alone).
//!
//! Memory: the vectors are generated and added in blocks of 50,000, so the peak RSS of the build
//! is the index plus one block; "RSS after load" is the loaded index alone (plus the queries).
//!
//! Data: a Gaussian mixture of `C` random unit centroids plus anisotropic noise with a power-law
//! spectrum (variance of component i ∝ (i+1)^-0.75, participation ratio ≈ 86 dimensions at 384-d)
//! scaled so that a point's cosine to its centroid is about 0.6, normalized — closer to sentence
//! embeddings than uniform random vectors, whose neighbours are all equally far. Queries are new
//! points from the same mixture. Text: per item 40–120 words drawn from a Zipf(1.0) law over a
//! 50,000-word Dutch-ish vocabulary (real Dutch function words first); queries are 2–5 words of
//! an item's text. Every query is timed alone on one thread.

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use chunklab_index::bm25::Bm25;
use chunklab_index::fusion::rrf;
use chunklab_index::store::ChunkRecord;
use chunklab_index::vectors::{GraphVectors, HnswParams, VectorIndex};

struct Args {
    n: usize,
    dim: usize,
    queries: usize,
    clusters: usize,
    m: usize,
    ef_construction: usize,
    ef: Vec<usize>,
    threads: usize,
    dir: Option<PathBuf>,
    text: bool,
    filters: bool,
    graph: GraphVectors,
    load: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        n: 100_000,
        dim: 384,
        queries: 1000,
        clusters: 0,
        m: HnswParams::default().m,
        ef_construction: HnswParams::default().ef_construction,
        ef: vec![32, 64, 96, HnswParams::default().ef_search],
        threads: 2,
        dir: None,
        text: true,
        filters: true,
        graph: HnswParams::default().graph,
        load: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .unwrap_or_else(|| fail(&format!("{flag} needs a value")))
        };
        let number = |text: String| -> usize {
            text.replace('_', "")
                .parse()
                .unwrap_or_else(|_| fail(&format!("not a number: {text}")))
        };
        match flag.as_str() {
            "--n" => args.n = number(value()),
            "--dim" => args.dim = number(value()),
            "--queries" => args.queries = number(value()),
            "--clusters" => args.clusters = number(value()),
            "--m" => args.m = number(value()),
            "--ef-construction" => args.ef_construction = number(value()),
            "--ef" => args.ef = value().split(',').map(|v| number(v.to_string())).collect(),
            "--threads" => args.threads = number(value()),
            "--dir" => args.dir = Some(PathBuf::from(value())),
            "--no-text" => args.text = false,
            "--no-filters" => args.filters = false,
            "--load" => args.load = true,
            "--graph" => args.graph = value().parse().unwrap_or_else(|e: String| fail(&e)),
            other => fail(&format!("unknown option {other}")),
        }
    }
    if args.clusters == 0 {
        args.clusters = (args.n / 100).clamp(1, 4000);
    }
    if args.n == 0 || args.dim == 0 || args.queries == 0 || args.ef.is_empty() {
        fail("--n, --dim, --queries and --ef must be positive");
    }
    args
}

fn fail(message: &str) -> ! {
    eprintln!("index_bench: {message}");
    std::process::exit(2)
}

/// SplitMix64 with Box–Muller Gaussians: fast, deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.uniform() * n as f64) as usize % n.max(1)
    }

    fn gaussian_pair(&mut self) -> (f32, f32) {
        let u = self.uniform().max(1e-300);
        let v = self.uniform();
        let r = (-2.0 * u.ln()).sqrt();
        let t = std::f64::consts::TAU * v;
        ((r * t.cos()) as f32, (r * t.sin()) as f32)
    }

    fn fill_gaussian(&mut self, out: &mut [f32]) {
        for pair in out.chunks_mut(2) {
            let (a, b) = self.gaussian_pair();
            pair[0] = a;
            if pair.len() > 1 {
                pair[1] = b;
            }
        }
    }
}

fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
}

/// The clustered vector generator (see the module docs).
struct Mixture {
    dim: usize,
    centroids: Vec<f32>,
    scale: Vec<f32>,
}

impl Mixture {
    fn new(dim: usize, clusters: usize, seed: u64) -> Self {
        let mut rng = Rng(seed);
        let mut centroids = vec![0f32; dim * clusters];
        for centroid in centroids.chunks_mut(dim) {
            rng.fill_gaussian(centroid);
            normalize(centroid);
        }
        // Noise energy 0.67 → cos(point, centroid) ≈ 1 / sqrt(1 + 0.67) ≈ 0.77 before the
        // other points' spread; measured mean cosine to the centroid is printed by the bench.
        let variances: Vec<f64> = (0..dim).map(|i| ((i + 1) as f64).powf(-0.75)).collect();
        let total: f64 = variances.iter().sum();
        let energy = 0.67;
        let scale = variances
            .iter()
            .map(|v| (v / total * energy).sqrt() as f32)
            .collect();
        Self {
            dim,
            centroids,
            scale,
        }
    }

    /// `n` points into one contiguous buffer; returns (vectors, cluster of each point).
    fn sample(&self, n: usize, seed: u64) -> (Vec<f32>, Vec<u32>) {
        self.sample_from(&mut Rng(seed), n)
    }

    /// The next `n` points of the stream `rng` (consecutive calls continue one sample).
    fn sample_from(&self, rng: &mut Rng, n: usize) -> (Vec<f32>, Vec<u32>) {
        let clusters = self.centroids.len() / self.dim;
        let mut data = vec![0f32; n * self.dim];
        let mut labels = Vec::with_capacity(n);
        for point in data.chunks_mut(self.dim) {
            let cluster = rng.below(clusters);
            labels.push(cluster as u32);
            rng.fill_gaussian(point);
            let centroid = &self.centroids[cluster * self.dim..(cluster + 1) * self.dim];
            for ((x, c), s) in point.iter_mut().zip(centroid).zip(&self.scale) {
                *x = c + *x * s;
            }
            normalize(point);
        }
        (data, labels)
    }
}

/// Latency percentiles in milliseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64, f64, f64) {
    times.sort();
    let at = |q: f64| {
        let i = ((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1;
        times[i].as_secs_f64() * 1e3
    };
    let mean = times.iter().map(|t| t.as_secs_f64()).sum::<f64>() / times.len() as f64 * 1e3;
    (at(0.50), at(0.95), at(0.99), mean)
}

fn recall(truth: &[Vec<u64>], found: &[Vec<u64>]) -> f64 {
    let mut hits = 0usize;
    let mut wanted = 0usize;
    for (t, f) in truth.iter().zip(found) {
        let t: HashSet<u64> = t.iter().copied().collect();
        hits += f.iter().filter(|k| t.contains(k)).count();
        wanted += t.len();
    }
    hits as f64 / wanted.max(1) as f64
}

type Filter<'a> = Option<&'a (dyn Fn(u64) -> bool + Sync)>;

/// Exact top-10 of every query, on two threads.
fn ground_truth(index: &VectorIndex, queries: &[&[f32]], filter: Filter<'_>) -> Vec<Vec<u64>> {
    let half = queries.len().div_ceil(2);
    let run = |part: &[&[f32]]| -> Vec<Vec<u64>> {
        part.iter()
            .map(|q| {
                let f = filter.map(|f| f as &dyn Fn(u64) -> bool);
                index
                    .search_exact(q, 10, f)
                    .unwrap()
                    .into_iter()
                    .map(|hit| hit.0)
                    .collect()
            })
            .collect()
    };
    std::thread::scope(|scope| {
        let (a, b) = queries.split_at(half);
        let first = scope.spawn(|| run(a));
        let mut out = run(b);
        let mut all = first.join().unwrap();
        all.append(&mut out);
        all
    })
}

/// Times `search` on every query alone; returns the top-10 keys and the latencies.
fn timed<F>(queries: &[&[f32]], mut search: F) -> (Vec<Vec<u64>>, Vec<Duration>)
where
    F: FnMut(&[f32]) -> Vec<(u64, f32)>,
{
    let mut keys = Vec::with_capacity(queries.len());
    let mut times = Vec::with_capacity(queries.len());
    for q in queries {
        let start = Instant::now();
        let hits = search(q);
        times.push(start.elapsed());
        keys.push(hits.into_iter().take(10).map(|hit| hit.0).collect());
    }
    (keys, times)
}

fn row(label: &str, recall: Option<f64>, times: Vec<Duration>) {
    let (p50, p95, p99, mean) = percentiles(times);
    let recall = recall.map_or("–".to_string(), |r| format!("{r:.4}"));
    println!("| {label} | {recall} | {p50:.3} | {p95:.3} | {p99:.3} | {mean:.3} |");
}

fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

/// Builds the index from the mixture's stream (points generated untimed, added in blocks), saves
/// it to `dir`; returns (bytes on disk, save seconds).
fn build_and_save(args: &Args, mixture: &Mixture, dir: &std::path::Path) -> (u64, f64) {
    let n = args.n;
    let params = HnswParams {
        m: args.m,
        ef_construction: args.ef_construction,
        ef_search: *args.ef.last().unwrap(),
        graph: args.graph,
    };
    println!("graph vectors: {}", args.graph.name());
    let mut index = VectorIndex::new(args.dim, params).with_build_threads(args.threads);
    const BLOCK: usize = 50_000;
    let mut stream = Rng(2);
    let (mut build, mut generate, mut build_cpu) = (0.0f64, 0.0f64, 0.0f64);
    let mut to_centroid = 0.0f64;
    let mut first = 0usize;
    while first < n {
        let count = BLOCK.min(n - first);
        let start = Instant::now();
        let (data, labels) = mixture.sample_from(&mut stream, count);
        generate += start.elapsed().as_secs_f64();
        if first == 0 {
            for (i, point) in data.chunks(args.dim).take(10_000).enumerate() {
                let c = labels[i] as usize;
                let centroid = &mixture.centroids[c * args.dim..(c + 1) * args.dim];
                to_centroid += point.iter().zip(centroid).map(|(a, b)| a * b).sum::<f32>() as f64;
            }
        }
        let items: Vec<(u64, &[f32])> = data
            .chunks(args.dim)
            .enumerate()
            .map(|(i, v)| ((first + i) as u64, v))
            .collect();
        let start = Instant::now();
        let cpu = cpu_seconds();
        index.add_batch(&items).unwrap();
        build += start.elapsed().as_secs_f64();
        build_cpu += cpu_seconds() - cpu;
        first += count;
    }
    println!(
        "data: {generate:.1} s to generate; mean cosine to own centroid {:.3}",
        to_centroid / n.min(10_000) as f64
    );
    println!(
        "build: {build:.1} s ({:.0} items/s, {} threads), {build_cpu:.1} CPU s ({:.0} items per CPU second); peak RSS so far {:.0} MiB",
        n as f64 / build,
        args.threads,
        n as f64 / build_cpu.max(1e-9),
        peak_rss_mib()
    );

    let start = Instant::now();
    index.save(dir).unwrap();
    let save = start.elapsed().as_secs_f64();
    (dir_bytes(dir), save)
}

/// CPU seconds (user + system) this process has used so far, from /proc/self/stat.
fn cpu_seconds() -> f64 {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // Fields after the command name (which may hold spaces) end with ')'.
            let rest = stat.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let user: f64 = fields.get(11)?.parse().ok()?;
            let system: f64 = fields.get(12)?.parse().ok()?;
            Some(user + system)
        })
        .unwrap_or(0.0);
    ticks / 100.0
}

fn rss_mib() -> f64 {
    status_mib("VmRSS:")
}

/// Resident memory split into the process's own (anonymous) pages and the mapped files' pages
/// (the exact vectors of a loaded index: page cache, shared and reclaimable).
fn rss_split() -> String {
    format!(
        "anonymous {:.0} MiB, file-backed {:.0} MiB",
        status_mib("RssAnon:"),
        status_mib("RssFile:")
    )
}

fn status_mib(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find(|line| line.starts_with(field))
                .and_then(|line| line.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// Dutch-ish vocabulary: real function words first (the most frequent ranks), then generated
/// prefix+root+suffix words.
fn vocabulary(size: usize) -> Vec<String> {
    let function = [
        "de", "het", "een", "van", "en", "in", "is", "dat", "op", "te", "voor", "met", "niet",
        "zijn", "aan", "er", "om", "ook", "als", "bij", "door", "naar", "maar", "dan", "worden",
        "wordt", "of", "uit", "over", "kan", "nog", "tot", "deze", "wel", "moet", "hun",
    ];
    let prefixes = [
        "", "", "ver", "ge", "be", "ont", "her", "over", "onder", "door", "mede",
    ];
    let roots = [
        "werk",
        "huis",
        "stad",
        "raad",
        "plan",
        "weg",
        "water",
        "grond",
        "recht",
        "geld",
        "zorg",
        "school",
        "kind",
        "dienst",
        "vergun",
        "bouw",
        "park",
        "wijk",
        "markt",
        "haven",
        "dijk",
        "brug",
        "spoor",
        "fiets",
        "auto",
        "energie",
        "warmte",
        "wind",
        "zon",
        "afval",
        "groen",
        "boom",
        "natuur",
        "lucht",
        "geluid",
        "veilig",
        "beleid",
        "beslis",
        "beroep",
        "bezwaar",
        "subsidie",
        "belast",
        "begroot",
        "inkomen",
        "woning",
        "huur",
        "koop",
        "zaak",
        "bedrijf",
        "winkel",
        "cultuur",
        "sport",
        "jeugd",
        "ouder",
        "gezond",
        "armoede",
        "schuld",
        "taal",
        "reken",
        "kennis",
        "onderzoek",
        "data",
        "systeem",
        "netwerk",
        "kabel",
        "pomp",
        "gemaal",
        "sluis",
        "kade",
        "straat",
        "plein",
        "gebied",
        "regio",
        "provincie",
        "gemeente",
        "rijk",
    ];
    let suffixes = [
        "", "en", "ing", "heid", "lijk", "er", "ers", "isch", "baar", "tje", "st",
    ];
    let mut words: Vec<String> = function.iter().map(|w| w.to_string()).collect();
    let mut seen: HashSet<String> = words.iter().cloned().collect();
    'outer: for suffix in suffixes {
        for prefix in prefixes {
            for root in roots {
                for second in std::iter::once("").chain(roots.iter().copied()) {
                    if words.len() >= size {
                        break 'outer;
                    }
                    let word = format!("{prefix}{root}{second}{suffix}");
                    if seen.insert(word.clone()) {
                        words.push(word);
                    }
                }
            }
        }
    }
    words
}

/// Zipf(s) sampler over `n` ranks by inverse CDF.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize, s: f64) -> Self {
        let mut cdf = Vec::with_capacity(n);
        let mut total = 0.0;
        for rank in 1..=n {
            total += 1.0 / (rank as f64).powf(s);
            cdf.push(total);
        }
        cdf.iter_mut().for_each(|c| *c /= total);
        Self { cdf }
    }

    fn sample(&self, rng: &mut Rng) -> usize {
        let u = rng.uniform();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

fn text_of(item: usize, words: &[String], zipf: &Zipf) -> String {
    let mut rng = Rng(0xC0FFEE ^ (item as u64).wrapping_mul(0x9E37_79B9));
    let length = 40 + rng.below(81);
    let mut text = String::with_capacity(length * 8);
    for i in 0..length {
        if i > 0 {
            text.push(' ');
        }
        text.push_str(&words[zipf.sample(&mut rng)]);
    }
    text
}

fn chunk(key: u64, text: String) -> ChunkRecord {
    let length = text.len();
    serde_json::from_value(serde_json::json!({
        "key": key, "id": format!("c{key}"), "doc_id": format!("d{}", key / 8),
        "source": "synthetic", "text": text, "start_byte": 0, "end_byte": length,
        "start_char": 0, "end_char": length, "index": key % 8, "tokens": 0,
        "headings": [],
    }))
    .unwrap_or_else(|error| fail(&format!("cannot build a ChunkRecord: {error}")))
}

fn main() {
    let args = parse_args();
    let n = args.n;
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!(
        "# index_bench: n={n} dim={} queries={} clusters={} m={} ef_construction={} build threads={} (cores {cores}), usearch {}",
        args.dim,
        args.queries,
        args.clusters,
        args.m,
        args.ef_construction,
        args.threads,
        usearch::version(),
    );
    println!(
        "hardware acceleration: {}",
        usearch::hardware_acceleration_available()
    );

    let mixture = Mixture::new(args.dim, args.clusters, 1);
    let (query_data, _) = mixture.sample(args.queries, 3);

    // Where the index is saved (and, with --load, where it already is).
    let temp;
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => {
            temp = std::env::temp_dir().join(format!("index_bench_{}", std::process::id()));
            temp.clone()
        }
    };
    let (bytes, save) = if args.load {
        if args.dir.is_none() {
            fail("--load needs --dir");
        }
        (dir_bytes(&dir), 0.0)
    } else {
        build_and_save(&args, &mixture, &dir)
    };
    let start = Instant::now();
    let mut index = VectorIndex::load(&dir).unwrap();
    let load = start.elapsed().as_secs_f64();
    println!(
        "RSS after load: {:.0} MiB (the loaded index and the queries; {}); graph vectors {}",
        rss_mib(),
        rss_split(),
        index.params().graph.name()
    );
    println!(
        "disk: {bytes} bytes = {:.0} bytes/item ({:.0} of them the f32 vector); save {save:.1} s, load {load:.1} s (checksums + graph + flat copy)",
        bytes as f64 / n as f64,
        args.dim as f64 * 4.0
    );
    if args.dir.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let n = index.len();

    let queries: Vec<&[f32]> = query_data.chunks(args.dim).collect();
    // What graph searches alone bring into memory (the exact scans below read every row).
    index.set_ef_search(*args.ef.last().unwrap());
    for query in &queries {
        index.search(query, 10, None).unwrap();
    }
    println!(
        "RSS after {} HNSW searches (ef_search {}, untimed): {:.0} MiB ({})",
        queries.len(),
        index.params().ef_search,
        rss_mib(),
        rss_split()
    );
    let start = Instant::now();
    let truth = ground_truth(&index, &queries, None);
    println!(
        "ground truth: exact top-10 of {} queries in {:.1} s (2 threads)",
        queries.len(),
        start.elapsed().as_secs_f64()
    );

    println!();
    println!("| query (k=10, 1 thread) | recall@10 | p50 ms | p95 ms | p99 ms | mean ms |");
    println!("|---|---|---|---|---|---|");
    let exact_sample = &queries[..queries.len().min(100)];
    let (_, times) = timed(exact_sample, |q| index.search_exact(q, 10, None).unwrap());
    row(
        &format!("exact scan ({} queries)", exact_sample.len()),
        Some(1.0),
        times,
    );
    for &ef in &args.ef {
        index.set_ef_search(ef);
        let (found, times) = timed(&queries, |q| index.search(q, 10, None).unwrap());
        row(
            &format!("dense HNSW ef_search={ef}"),
            Some(recall(&truth, &found)),
            times,
        );
    }
    let ef = *args.ef.last().unwrap();
    index.set_ef_search(ef);

    // Filtered searches: cheap filters (key arithmetic) and a hash-set filter (the cost of a
    // metadata lookup per key).
    let moduli: &[(&str, u64)] = if args.filters {
        &[("10%", 10), ("5%", 20), ("1%", 100)]
    } else {
        &[]
    };
    for &(name, modulus) in moduli {
        let filter = move |key: u64| key % modulus == 3;
        let f: &(dyn Fn(u64) -> bool + Sync) = &filter;
        let truth = ground_truth(&index, &queries, Some(f));
        let (found, times) = timed(&queries, |q| index.search(q, 10, Some(&filter)).unwrap());
        row(
            &format!("filtered {name} (key % {modulus}), `search`"),
            Some(recall(&truth, &found)),
            times,
        );
        for &ef in &args.ef {
            index.set_ef_search(ef);
            let (found, times) = timed(&queries, |q| {
                index.search_graph(q, 10, Some(&filter)).unwrap()
            });
            row(
                &format!("filtered {name} (key % {modulus}), graph forced, ef_search={ef}"),
                Some(recall(&truth, &found)),
                times,
            );
        }
        index.set_ef_search(*args.ef.last().unwrap());
        let (_, times) = timed(exact_sample, |q| {
            index.search_exact(q, 10, Some(&filter)).unwrap()
        });
        row(
            &format!("filtered {name} (key % {modulus}), exact scan"),
            Some(1.0),
            times,
        );
    }
    if args.filters {
        let set: HashSet<u64> = (0..n as u64).filter(|k| k % 100 == 7).collect();
        let filter = |key: u64| set.contains(&key);
        let (_, times) = timed(&queries, |q| index.search(q, 10, Some(&filter)).unwrap());
        row("filtered 1% (HashSet lookup), `search`", None, times);
        let set10: HashSet<u64> = (0..n as u64).filter(|k| k % 10 == 7).collect();
        let filter = |key: u64| set10.contains(&key);
        let (_, times) = timed(&queries, |q| index.search(q, 10, Some(&filter)).unwrap());
        row("filtered 10% (HashSet lookup), `search`", None, times);
    }

    if args.text {
        text_rows(&args, &index, &queries);
    }
    println!();
    println!(
        "peak RSS {:.0} MiB; RSS at the end {:.0} MiB ({}; the exact scans read every mapped row)",
        peak_rss_mib(),
        rss_mib(),
        rss_split()
    );
}

/// BM25 (tantivy, Dutch analyzer) and hybrid RRF rows.
fn text_rows(args: &Args, index: &VectorIndex, queries: &[&[f32]]) {
    let n = args.n;
    let words = vocabulary(50_000);
    let zipf = Zipf::new(words.len(), 1.0);
    let start = Instant::now();
    let mut bm25 = Bm25::in_memory().unwrap();
    for key in 0..n {
        bm25.add(&chunk(key as u64, text_of(key, &words, &zipf)), "nl")
            .unwrap();
    }
    bm25.commit(1).unwrap();
    println!();
    println!(
        "bm25: {n} chunks indexed in memory in {:.1} s (Zipf text, 40–120 words each)",
        start.elapsed().as_secs_f64()
    );
    let mut rng = Rng(99);
    let texts: Vec<String> = (0..queries.len())
        .map(|_| {
            let source = text_of(rng.below(n), &words, &zipf);
            let source: Vec<&str> = source.split(' ').collect();
            let length = 2 + rng.below(4);
            let at = rng.below(source.len() - length);
            source[at..at + length].join(" ")
        })
        .collect();
    println!();
    println!("| query (1 thread) | recall@10 | p50 ms | p95 ms | p99 ms | mean ms |");
    println!("|---|---|---|---|---|---|");
    let mut times = Vec::new();
    for text in &texts {
        let start = Instant::now();
        let hits = bm25.search(text, 10, None).unwrap();
        times.push(start.elapsed());
        std::hint::black_box(hits);
    }
    row("bm25 k=10", None, times);
    let depth = 50;
    let mut times = Vec::new();
    for (text, vector) in texts.iter().zip(queries) {
        let start = Instant::now();
        let lexical = bm25.search(text, depth, None).unwrap();
        let dense = index.search(vector, depth, None).unwrap();
        let b: Vec<u64> = lexical.iter().map(|h| h.0).collect();
        let d: Vec<u64> = dense.iter().map(|h| h.0).collect();
        let mut fused = rrf(&[(&b, 1.0), (&d, 1.0)], 60.0);
        fused.truncate(10);
        times.push(start.elapsed());
        std::hint::black_box(fused);
    }
    row(
        &format!("hybrid: bm25 top-{depth} + dense top-{depth} + RRF → 10"),
        None,
        times,
    );
    let filter = |key: u64| key % 10 == 3;
    let key_filter: chunklab_index::bm25::KeyFilter = std::sync::Arc::new(filter);
    let mut times = Vec::new();
    for (text, vector) in texts.iter().zip(queries) {
        let start = Instant::now();
        let lexical = bm25.search(text, depth, Some(key_filter.clone())).unwrap();
        let dense = index.search(vector, depth, Some(&filter)).unwrap();
        let b: Vec<u64> = lexical.iter().map(|h| h.0).collect();
        let d: Vec<u64> = dense.iter().map(|h| h.0).collect();
        let mut fused = rrf(&[(&b, 1.0), (&d, 1.0)], 60.0);
        fused.truncate(10);
        times.push(start.elapsed());
        std::hint::black_box(fused);
    }
    row("hybrid, 10% filter inside both", None, times);
}
