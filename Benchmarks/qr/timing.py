#!/usr/bin/env python3
"""Per-photo time inside one `seer scan` process (file decoding included, start-up excluded).

Runs `seer scan --jobs 1 --timing --format json --preset P` once over a folder (recursively) and
reports the median, p95 and mean of the `milliseconds` each photo took, and how many symbols were read.

    python3 Benchmarks/qr/timing.py [--seer .build/release/seer] [--preset balanced] FOLDER
"""
import argparse, json, statistics, subprocess, sys, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--seer", default=".build/release/seer")
    ap.add_argument("--preset", default="balanced")
    ap.add_argument("--jobs", default="1")
    a = ap.parse_args()
    t0 = time.monotonic()
    out = subprocess.run([a.seer, "scan", "--format", "json", "--timing", "--jobs", a.jobs, "--preset", a.preset, a.folder],
                         capture_output=True, text=True)
    wall = time.monotonic() - t0
    ms, symbols, photos = [], 0, 0
    for line in out.stdout.splitlines():
        o = json.loads(line)
        if "milliseconds" in o:
            photos += 1
            ms.append(o["milliseconds"])
            symbols += len(o.get("symbols", []))
    if not ms:
        sys.exit("no photos timed")
    ms.sort()
    p95 = ms[min(len(ms) - 1, int(round(0.95 * (len(ms) - 1))))]
    print(f"preset {a.preset}, jobs {a.jobs}: {photos} photos, {symbols} symbols, "
          f"median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, mean {statistics.mean(ms):.1f} ms, "
          f"whole run {wall:.1f} s")


if __name__ == "__main__":
    main()
