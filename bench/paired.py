#!/usr/bin/env python3
# Usage: python3 bench/paired.py PER_QUERY.jsonl "LABEL A|MODE" "LABEL B|MODE" [METRIC]
# Paired comparison of two rows of one `chunklab bench --per-query` run: the mean of A minus B
# over the queries both define METRIC for (default recall), with a 95% percentile-bootstrap
# interval (1,000 resamples of the queries, the same resample for both rows, seed 17).
# "Separated" means the interval excludes 0.
import collections, json, random, sys

if len(sys.argv) < 4:
    sys.exit("usage: paired.py PER_QUERY.jsonl 'LABEL|MODE' 'LABEL|MODE' [METRIC]")
path, a_spec, b_spec = sys.argv[1:4]
metric = sys.argv[4] if len(sys.argv) > 4 else "recall"
rows = collections.defaultdict(dict)
for line in open(path):
    r = json.loads(line)
    value = r["metrics"].get(metric)
    if value is not None:
        rows[f"{r['label']}|{r['mode']}"][r["query"]] = value
for spec in (a_spec, b_spec):
    if spec not in rows:
        sys.exit(f"{path}: no row {spec!r} with {metric}; rows: {sorted(rows)}")
a, b = rows[a_spec], rows[b_spec]
queries = sorted(set(a) & set(b))
if not queries:
    sys.exit(f"{path}: the two rows share no query with {metric}")
diff = [a[q] - b[q] for q in queries]
rng = random.Random(17)
means = sorted(
    sum(diff[rng.randrange(len(diff))] for _ in diff) / len(diff) for _ in range(1000)
)
mean = sum(diff) / len(diff)
lo, hi = means[24], means[974]
verdict = "separated" if lo > 0 or hi < 0 else "not separated"
print(
    f"{a_spec} minus {b_spec}: {metric} {mean:+.1f} [{lo:+.1f}, {hi:+.1f}] over {len(diff)} queries ({verdict})"
)
