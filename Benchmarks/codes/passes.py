#!/usr/bin/env python3
"""What each code-reading pass adds, and the order a preset should run them in.

Every pass (`seer scan --passes PASS`) runs alone over the QR photos (qr-boofcv and qr-photos of
../shared/testdata), one process per pass, one job, no time budget; each photo's recognition time is
the reading thread's CPU time minus the decoding (`cpuMilliseconds` − `decodeCpuMilliseconds`, steady on
a loaded machine). Then a greedy order: at each step the pass (and the condition it runs under) that
reads the most codes not yet read per millisecond it costs over all photos, where a pass under
`nothingRead` costs only on photos where nothing is read yet and `unexplained` on photos where some
code is still unread. The table it prints is what `CodeReader.Preset`'s tables are built from.

    python3 Benchmarks/codes/passes.py [--passes all|P1,P2,...] [--cache DIR] [--seer BINARY]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(os.path.dirname(ROOT), "shared", "testdata")
TOOLS = os.path.join(os.path.dirname(ROOT), "shared", "tools")

DEFAULT = [
    "locator/reduced/local", "locator/reduced/localWide", "locator/reduced/localNarrow", "locator/reduced/smoothed",
    "locator/reduced/global", "locator/reduced/inverted", "locator/reduced/globalLoose",
    "locator/full/local", "locator/full/localNarrow", "locator/full/global",
    "locator/coarse/local", "locator/coarse/localWide",
    "locator/enlarged/local", "locator/enlarged/global",
    "zbar/reduced/plain", "zbar/reduced/binarized", "zbar/reduced/inverted", "zbar/reduced/smoothed",
    "zbar/reduced/stretched", "zbar/full/plain", "zbar/full/binarized", "zbar/coarse/plain",
    "zbar/enlarged/plain", "zbar/enlarged/binarized",
]


def photos():
    items = []
    for folder in ("qr-boofcv", "qr-photos"):
        base = os.path.join(DATA, folder)
        if not os.path.isdir(base):
            continue
        for s in sorted(os.listdir(base)):
            d = os.path.join(base, s)
            for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
                if f.lower().endswith((".jpg", ".jpeg", ".png")):
                    items.append((folder, s, os.path.join(d, f)))
    return items


def to_stored(x, y, n, wd, hd):
    return {1: (x, y), 2: (wd - x, y), 3: (wd - x, hd - y), 4: (x, hd - y),
            5: (y, x), 6: (y, wd - x), 7: (hd - y, wd - x), 8: (hd - y, x)}.get(n, (x, y))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passes", default="default")
    ap.add_argument("--seer", default=os.path.join(ROOT, ".build", "release", "seer"))
    ap.add_argument("--cache", default="/tmp/seer-passes")
    a = ap.parse_args()
    sys.path.insert(0, TOOLS)
    import boofcv_scoring as bs
    import score_codes as sc

    items = photos()
    if not items:
        sys.exit("no photos under ../shared/testdata: skipped")
    truth = {}
    for folder, _, p in items:
        base = os.path.splitext(p)[0]
        if folder == "qr-boofcv":
            truth[p] = ("quads", bs.read_quads(base + ".txt"))
        else:
            with open(base + ".txt", "rb") as fh:
                truth[p] = ("text", sc.strip_nl(fh.read().decode("utf-8")))
    total = sum(len(t[1]) if t[0] == "quads" else 1 for t in truth.values())
    passes = DEFAULT if a.passes == "default" else a.passes.split(",")
    os.makedirs(a.cache, exist_ok=True)

    hits = {}   # pass -> {photo: set of code keys}
    cost = {}   # pass -> {photo: ms}
    for p in passes:
        cache = os.path.join(a.cache, p.replace("/", "_") + ".jsonl")
        if not os.path.exists(cache):
            out = subprocess.run([a.seer, "scan", "--format", "json", "--timing", "--jobs", "1", "--budget", "100000",
                                  "--passes", p] + [x[2] for x in items], capture_output=True, text=True).stdout
            with open(cache, "w") as fh:
                fh.write(out)
        hits[p], cost[p] = {}, {}
        wrong = 0
        for line in open(cache):
            o = json.loads(line)
            photo = o["file"]
            if "error" in o or photo not in truth:
                continue
            kind, t = truth[photo]
            got = set()
            if kind == "quads":
                n, wd, hd = o.get("orientation", 1), o["width"], o["height"]
                syms = [{"text": s["text"], "corners": [list(to_stored(c[0], c[1], n, wd, hd)) for c in s["corners"]]}
                        for s in o["symbols"]]
                r = bs.score_image(t, syms)
                got = {(photo, i) for i in r["gt_hit"]}
                wrong += r["fp"]
            else:
                status = sc.classify(t, [s["text"] for s in o["symbols"]])
                if status == "correct":
                    got = {(photo, 0)}
                wrong += status == "wrong"
            hits[p][photo] = got
            cost[p][photo] = max(0.0, o.get("cpuMilliseconds", 0) - o.get("decodeCpuMilliseconds", 0))
        alone = sum(len(v) for v in hits[p].values())
        print(f"{p:30s} alone {alone:4d}/{total}  {sum(cost[p].values()):8.0f} ms over all photos  wrong/false {wrong}",
              flush=True)

    # Greedy order.
    read = {x[2]: set() for x in items}
    codes_in = {p: (len(t[1]) if t[0] == "quads" else 1) for p, t in truth.items()}
    chosen = []
    remaining = [(p, c) for p in passes for c in ("always", "unexplained", "nothingRead")]
    spent = 0.0
    print("\ngreedy order (codes gained per second of CPU over all photos):")
    while remaining:
        best = None
        for p, c in remaining:
            gain, ms = 0, 0.0
            for photo in read:
                runs = c == "always" or (c == "nothingRead" and not read[photo]) or \
                    (c == "unexplained" and len(read[photo]) < codes_in[photo])
                if not runs:
                    continue
                ms += cost[p].get(photo, 0)
                gain += len(hits[p].get(photo, set()) - read[photo])
            if gain == 0:
                continue
            score = gain / max(ms, 1.0)
            if best is None or score > best[0]:
                best = (score, p, c, gain, ms)
        if best is None:
            break
        _, p, c, gain, ms = best
        for photo in read:
            runs = c == "always" or (c == "nothingRead" and not read[photo]) or \
                (c == "unexplained" and len(read[photo]) < codes_in[photo])
            if runs:
                read[photo] |= hits[p].get(photo, set())
        spent += ms
        chosen.append((p, c))
        remaining = [(q, d) for q, d in remaining if q != p]
        have = sum(len(v) for v in read.values())
        print(f"  {p:30s} {c:12s} +{gain:4d} codes  {ms:8.0f} ms  ({1000 * gain / max(ms, 1):7.1f}/s)  "
              f"total {have}/{total} ({100 * have / total:.1f} %), {spent / len(read):6.1f} ms/photo")


if __name__ == "__main__":
    main()
