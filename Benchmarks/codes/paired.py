#!/usr/bin/env python3
"""Two builds of `seer scan` on the same photos, each photo run by both in turn (the order swapped
every round), so that a machine whose speed drifts slows both alike. Prints the median over the
photos of each photo's least CPU time, the totals, and the photos that differ most.

    python3 Benchmarks/codes/paired.py --rounds 3 NEW OLD PHOTO...
    python3 Benchmarks/codes/paired.py NEW OLD ../shared/testdata/barcodes/falsepositives-*/*.{png,jpg}
"""
import argparse
import collections
import json
import statistics
import subprocess


def cpu_ms(binary, photo):
    out = subprocess.run([binary, "scan", "--timing", "--format", "json", photo], capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[0])["cpuMilliseconds"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("new")
    parser.add_argument("old")
    parser.add_argument("photos", nargs="+")
    args = parser.parse_args()
    times = collections.defaultdict(lambda: {"new": [], "old": []})
    for round_ in range(args.rounds):
        for photo in args.photos:
            order = [("new", args.new), ("old", args.old)]
            for name, binary in order if round_ % 2 == 0 else reversed(order):
                times[photo][name].append(cpu_ms(binary, photo))
    new = {p: min(t["new"]) for p, t in times.items()}
    old = {p: min(t["old"]) for p, t in times.items()}
    print(f"{len(args.photos)} photos, {args.rounds} rounds; least CPU ms a photo: median new {statistics.median(new.values()):.1f}, "
          f"old {statistics.median(old.values()):.1f}; total new {sum(new.values()):.0f}, old {sum(old.values()):.0f}")
    for photo in sorted(args.photos, key=lambda p: new[p] - old[p])[-5:]:
        print(f"  {photo}: new {new[photo]:.1f}, old {old[photo]:.1f}")


if __name__ == "__main__":
    main()
