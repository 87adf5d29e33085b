#!/usr/bin/env python3
"""Code reading side by side: Seer's presets and zxing-cpp on the same photos, in one run.

Seer runs as one `seer scan --jobs 1 --timing --format json` process per preset over every photo
(start-up excluded; each photo's `milliseconds` covers reading the file, decoding and recognition).
zxing-cpp runs in this process on the same photos: Pillow load + grey conversion (timed as `load`)
and the `read_barcodes` call (timed as `decode`), after one untimed warm-up. Scoring uses the
functions of ../shared/tools (boofcv_scoring.py, score_codes.py, score_barcodes.py) when that folder
is present, so the numbers are the ones those scorers give.

    python3 Benchmarks/codes/codes.py --dataset boofcv [--presets fast,balanced,thorough] [--no-zxing]
    python3 Benchmarks/codes/codes.py --dataset qr
    python3 Benchmarks/codes/codes.py --dataset barcodes [--symbologies all]
    python3 Benchmarks/codes/codes.py --dataset codes2d      (DataMatrix, PDF417, Aztec, ...; zxing-cpp: every format)

Options: --data DIR (default ../shared/testdata/<dataset folder>), --seer BINARY, --out DIR (CSV of
every photo), --sets GLOB (only matching sets/categories), --verbose (misses and wrong readings).
"""
import argparse
import csv
import fnmatch
import hashlib
import json
import math
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(os.path.dirname(ROOT), "shared", "tools")
FOLDERS = {"boofcv": "qr-boofcv", "qr": "qr-photos", "barcodes": "barcodes", "codes2d": "codes-2d"}
IMAGE_EXT = (".jpg", ".jpeg", ".png")


def percentile(values, q):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, max(0, int(math.ceil(q * len(v))) - 1))]


def part_of(data, path):
    """The fixed half a photo belongs to: `tune` or `check`, from a hash of its path under the data
    folder (`set/file`), so that the split does not depend on the order or number of photos."""
    rel = os.path.relpath(path, data).replace(os.sep, "/")
    return "check" if hashlib.sha256(rel.encode("utf-8")).digest()[0] & 1 else "tune"


def discover(data, pattern, part=None):
    items = []
    for s in sorted(os.listdir(data)):
        d = os.path.join(data, s)
        if not os.path.isdir(d) or (pattern and not fnmatch.fnmatch(s, pattern)):
            continue
        for f in sorted(os.listdir(d)):
            p = os.path.join(d, f)
            if f.lower().endswith(IMAGE_EXT) and (part in (None, "all") or part_of(data, p) == part):
                items.append((s, p))
    return items


def to_stored(x, y, n, wd, hd):
    """Displayed corner → stored pixel grid (BoofCV's truth is in the stored grid)."""
    return {1: (x, y), 2: (wd - x, y), 3: (wd - x, hd - y), 4: (x, hd - y),
            5: (y, x), 6: (y, wd - x), 7: (hd - y, wd - x), 8: (hd - y, x)}.get(n, (x, y))


def run_seer(seer, paths, preset, symbologies, budget=None, passes=None):
    args = [seer, "scan", "--format", "json", "--timing", "--jobs", "1", "--preset", preset] + (["--budget", str(budget)] if budget else [])
    if passes:
        args += ["--passes", passes]
    if symbologies:
        args += ["--symbologies", symbologies]
    t0 = time.monotonic()
    out = subprocess.run(args + paths, capture_output=True, text=True)
    wall = time.monotonic() - t0
    results = {}
    for line in out.stdout.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        results[o.get("file")] = o
    return results, wall


def seer_symbols(o, stored):
    syms = []
    n, wd, hd = o.get("orientation", 1) or 1, o.get("width", 0), o.get("height", 0)
    for s in o.get("symbols", []):
        corners = s.get("corners") or []
        if stored:
            corners = [list(to_stored(p[0], p[1], n, wd, hd)) for p in corners]
        syms.append({"format": s.get("format"), "text": s.get("text"), "corners": corners})
    return syms


def zxing_reader(formats_name):
    try:
        import numpy as np
        import zxingcpp
        from PIL import Image
    except ImportError:
        return None

    F = zxingcpp.BarcodeFormat
    formats = {"linear": F.AllLinear, "qr": F.QRCode}.get(formats_name)
    if formats is None:
        formats = getattr(F, "AllReadable", None) or getattr(F, "All", None) or getattr(F, "Any")
    # Every format: the symbol's own characters (GS/RS as they are), as score_barcodes.py reads them.
    options = {"text_mode": zxingcpp.TextMode.Plain} if formats_name == "all" else {}

    def load(path):
        im = Image.open(path)
        im.load()
        if im.mode in ("RGBA", "LA", "P"):
            im = im.convert("RGBA")
            bg = Image.new("RGBA", im.size, (255, 255, 255, 255))
            im = Image.alpha_composite(bg, im)
        return np.array(im.convert("L"))

    def read(path, clock=time.perf_counter):
        t0 = clock()
        gray = load(path)
        t1 = clock()
        found = zxingcpp.read_barcodes(gray, formats=formats, **options)
        t2 = clock()
        syms = []
        for r in found:
            p = r.position
            corners = [[p.top_left.x, p.top_left.y], [p.top_right.x, p.top_right.y],
                       [p.bottom_right.x, p.bottom_right.y], [p.bottom_left.x, p.bottom_left.y]]
            syms.append({"format": str(r.format), "text": r.text, "corners": corners})
        return syms, (t1 - t0) * 1000, (t2 - t1) * 1000

    return read


def summary(part, rows, readers):
    """The readers' table over `rows`: codes read, wrong, false, times (all photos, and those with no code)."""
    print(f"\n**{part}**: {len({x['photo'] for x in rows})} photos, {len({x['photo'] for x in rows if x['total'] == 0})} with no code\n")
    print("| reader | read | % | wrong | false | median ms | p95 ms | max ms | no-code median ms | whole run s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for name, wall in readers:
        r = [x for x in rows if x["reader"] == name]
        good, total = sum(x["good"] for x in r), sum(x["total"] for x in r)
        ms = [x["ms"] for x in r if x["ms"] is not None]
        nc = [x["ms"] for x in r if x["total"] == 0 and x["ms"] is not None]
        medians[name] = statistics.median(ms) if ms else float("nan")
        extra = ""
        if name == "zxing-cpp":
            extra = f" (load {statistics.median([x['load'] for x in r]):.1f} + decode {statistics.median([x['decode'] for x in r]):.1f})"
        print(f"| {name} | {good}/{total} | {100 * good / max(1, total):.1f} | {sum(x['wrong'] for x in r)} | "
              f"{sum(x['false'] for x in r)} | {medians[name]:.1f}{extra} | {percentile(ms, 0.95):.1f} | "
              f"{max(ms) if ms else float('nan'):.1f} | {statistics.median(nc) if nc else float('nan'):.1f} | {wall:.1f} |")
    if "zxing-cpp" in medians:
        print()
        for name, _ in readers:
            if name != "zxing-cpp":
                print(f"{name}: median time {medians[name] / medians['zxing-cpp']:.2f}× zxing-cpp's load + decode")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", choices=sorted(FOLDERS), default="boofcv")
    ap.add_argument("--data")
    ap.add_argument("--seer", default=os.path.join(ROOT, ".build", "release", "seer"))
    ap.add_argument("--presets", default="balanced")
    ap.add_argument("--symbologies")
    ap.add_argument("--sets")
    ap.add_argument("--part", choices=["tune", "check", "all"], default="all",
                    help="only the photos of one fixed half (a hash of set/file; see docs/codes.md)")
    ap.add_argument("--zxing-formats", choices=["qr", "linear", "all"],
                    help="the formats zxing-cpp reads (default: linear for barcodes, all for codes2d, else qr)")
    ap.add_argument("--no-zxing", action="store_true")
    ap.add_argument("--out")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--base", help="a second Seer binary run in the same session (e.g. the build before a change)")
    ap.add_argument("--base-symbologies", help="--symbologies for the --base binary (default: as for Seer)")
    ap.add_argument("--passes", help="Seer's passes instead of the preset's (seer scan --passes)")
    ap.add_argument("--budget", type=int, help="Seer's time budget per photo in ms (default: the preset's)")
    ap.add_argument("--clock", choices=["milliseconds", "cpuMilliseconds"], default="milliseconds",
                    help="time per photo: wall clock (default) or CPU time (Seer's reading thread; zxing-cpp's "
                         "thread_time), steady on a loaded machine")
    a = ap.parse_args()
    data = a.data or os.path.join(os.path.dirname(ROOT), "shared", "testdata", FOLDERS[a.dataset])
    if not os.path.isdir(data):
        sys.exit(f"no data at {data}: skipped")
    if not os.path.isdir(TOOLS):
        sys.exit(f"the scorers are not at {TOOLS}")
    sys.path.insert(0, TOOLS)
    items = discover(data, a.sets, a.part)
    paths = [p for _, p in items]
    linear = a.dataset in ("barcodes", "codes2d")
    symbologies = a.symbologies or ("all" if linear else None)
    zxing_formats = a.zxing_formats or {"barcodes": "linear", "codes2d": "all"}.get(a.dataset, "qr")

    if a.dataset == "boofcv":
        import boofcv_scoring as bs
        truth = {p: bs.read_quads(os.path.splitext(p)[0] + ".txt") for p in paths}

        def score(path, syms):
            r = bs.score_image(truth[path], syms)
            return {"good": r["decoded"], "total": r["n_gt"], "wrong": 0, "false": r["fp"]}
    elif a.dataset == "qr":
        import score_codes as sc

        def expected_of(p):
            base = os.path.splitext(p)[0]
            if os.path.exists(base + ".txt"):
                return sc.strip_nl(open(base + ".txt", encoding="utf-8", newline="").read())
            return open(base + ".bin", "rb").read()

        truth = {p: expected_of(p) for p in paths}

        def score(path, syms):
            status = sc.classify(truth[path], [s["text"] for s in syms])
            return {"good": int(status == "correct"), "total": 1, "wrong": int(status == "wrong"), "false": 0}
    else:
        import score_barcodes as sb

        def expected_of(p, s):
            t = os.path.splitext(p)[0] + ".txt"
            return sb.strip_nl(open(t, encoding="utf-8", newline="").read()) if os.path.exists(t) else None

        truth = {p: (s, expected_of(p, s)) for s, p in items}

        def score(path, syms):
            s, exp = truth[path]
            fam = sb.family_of(s)
            item = {"family": fam, "expected": exp}
            texts = [(x["format"], sb.strip_nl(x["text"] or "")) for x in syms if x["text"]]
            status, _ = sb.classify(item, texts)
            if status in ("fp", "clean"):
                return {"good": 0, "total": 0, "wrong": 0, "false": int(status == "fp")}
            return {"good": int(status == "correct"), "total": 1, "wrong": int(status == "wrong"), "false": 0}

    rows = []
    readers = []
    binaries = [("seer", a.seer, symbologies)]
    if a.base:
        binaries.append(("base", a.base, a.base_symbologies or symbologies))
    for preset in a.presets.split(","):
        for label, binary, syms_arg in binaries:
            name = f"{label} {preset}" + (f" ({syms_arg or 'default'})" if a.base else "")
            res, wall = run_seer(binary, paths, preset, syms_arg, a.budget, a.passes)
            readers.append((name, wall))
            for s, p in items:
                o = res.get(p)
                syms = seer_symbols(o, a.dataset == "boofcv") if o and "error" not in o else []
                ms = o.get(a.clock) if o else None
                rows.append({"reader": name, "set": s, "photo": p, "ms": ms, "load": None, "part": part_of(data, p),
                             "texts": [x["text"] for x in syms], **score(p, syms)})
    if not a.no_zxing:
        read = zxing_reader(zxing_formats)
        if read is None:
            print("zxing-cpp is not installed (pip install zxing-cpp pillow numpy): skipped", file=sys.stderr)
        else:
            read(paths[0])  # warm-up
            t0 = time.monotonic()
            for s, p in items:
                syms, load, dec = read(p, time.thread_time if a.clock == "cpuMilliseconds" else time.perf_counter)
                rows.append({"reader": "zxing-cpp", "set": s, "photo": p, "ms": load + dec, "load": load, "part": part_of(data, p),
                             "decode": dec, "texts": [x["text"] for x in syms], **score(p, syms)})
            readers.append(("zxing-cpp", time.monotonic() - t0))

    sets = sorted({s for s, _ in items})
    print(f"{a.dataset}: {len(items)} photos in {len(sets)} sets ({data}), part {a.part}, "
          f"Seer symbologies {symbologies or 'default'}, zxing-cpp formats {zxing_formats}, "
          f"time {a.clock}\n")
    parts = [("all", rows)]
    if a.part == "all":
        parts += [(name, [x for x in rows if x["part"] == name]) for name in ("tune", "check")]
    for part, part_rows in parts:
        summary(part, part_rows, readers)
    # Sets, and misses with --verbose, of the tune half only when both halves were run: the check half
    # is measured, not looked into.
    shown = [x for x in rows if a.part != "all" or x["part"] == "tune"]
    print(f"\nBy set ({'tune half' if a.part == 'all' else a.part}):")
    print("\n| set | " + " | ".join(n for n, _ in readers) + " |")
    print("|---|" + "---:|" * len(readers))
    for s in sets:
        cells = []
        for name, _ in readers:
            r = [x for x in shown if x["reader"] == name and x["set"] == s]
            good, total = sum(x["good"] for x in r), sum(x["total"] for x in r)
            ms = statistics.median([x["ms"] for x in r if x["ms"] is not None] or [float("nan")])
            bad = sum(x["wrong"] + x["false"] for x in r)
            cells.append(f"{good}/{total}{f' ({bad} bad)' if bad else ''} {ms:.0f} ms")
        print(f"| {s} | " + " | ".join(cells) + " |")
    if a.verbose:
        print()
        for x in shown:
            if x["reader"] != "zxing-cpp" and (x["wrong"] or x["false"] or x["good"] < x["total"]):
                print(f"{x['reader']}: {os.path.relpath(x['photo'], data)}: {x['good']}/{x['total']} wrong {x['wrong']} "
                      f"false {x['false']} {x['ms']} ms {[t[:40] if t else t for t in x['texts']]}")
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, f"{a.dataset}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["reader", "part", "set", "photo", "good", "total", "wrong", "false", "ms", "load"],
                               extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
