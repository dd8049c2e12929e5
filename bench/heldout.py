#!/usr/bin/env python3
# Usage: python3 bench/heldout.py PER_QUERY.jsonl   (from `chunklab bench --per-query`)
# Held-out check of the Chroma configuration choice: split the queries in two halves at random,
# choose on one half the configuration with the best recall among those with IoU >= 8 (the
# target), and measure that choice on the other half. Reports how often the held-out choice
# meets recall >= 85 and IoU >= 8, and the held-out means.
import json, random, sys, collections
path = sys.argv[1]
vals = collections.defaultdict(dict)   # (label, mode) -> query -> (recall, iou)
for line in open(path):
    l = json.loads(line)
    m = l["metrics"]
    if m.get("recall") is None:
        continue
    vals[(l["label"], l["mode"])][l["query"]] = (m["recall"], m["iou"])
configs = list(vals)
queries = sorted(next(iter(vals.values())))
print(len(configs), "configurations,", len(queries), "queries with spans")
def mean(cfg, qs):
    r = sum(vals[cfg][q][0] for q in qs) / len(qs)
    i = sum(vals[cfg][q][1] for q in qs) / len(qs)
    return r, i
rng = random.Random(17)
splits = 200
met = 0; rs = []; ious = []; chosen = collections.Counter(); none = 0
for _ in range(splits):
    qs = queries[:]; rng.shuffle(qs)
    a, b = qs[: len(qs) // 2], qs[len(qs) // 2 :]
    ok = [(mean(c, a), c) for c in configs if mean(c, a)[1] >= 8.0]
    if not ok:
        none += 1
        continue
    (ra, ia), c = max(ok, key=lambda x: x[0][0])
    rb, ib = mean(c, b)
    chosen[c] += 1
    rs.append(rb); ious.append(ib)
    met += rb >= 85 and ib >= 8
n = len(rs)
print(f"{splits} splits: held-out choice meets both on {met} ({100*met/splits:.0f}%); "
      f"held-out recall {sum(rs)/n:.1f} (min {min(rs):.1f}, max {max(rs):.1f}), "
      f"IoU {sum(ious)/n:.2f} (min {min(ious):.2f}); no config with IoU>=8 on the half: {none}")
for c, k in chosen.most_common(6):
    print(f"  chosen {k:3d}x: {c[0]} ({c[1]})  all queries: recall {mean(c, queries)[0]:.1f} IoU {mean(c, queries)[1]:.2f}")
