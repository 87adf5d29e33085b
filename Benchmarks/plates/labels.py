#!/usr/bin/env python3
"""The format labels of the plate photos' top readings, read with no region given.

    python3 Benchmarks/plates/labels.py [--seer .build/release/seer] [--part tune|check|all] [DATA_DIR]

Runs `seer plate read --format json` over each set of DATA_DIR (default ../shared/testdata/plates:
us/, eu/, br/), on the part of the validation split asked for (docs/plates.md: FNV-1a of the file
name, even = tune), and prints for each set how the top reading of each photo is labelled: a
format of the set's own region, a format of another region, formats tied (with the set's region
among them or not), or no format or no plate; then the labels themselves, most common first.
Whether the text read is right does not enter: this counts the labels only.
"""
import argparse
import collections
import json
import os
import subprocess

GRAMMARS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../Sources/SeerPlate/Resources/grammars.txt")


def part_of(name):
    h = 0x811C9DC5
    for b in name.encode():
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return "tune" if h % 2 == 0 else "check"


def regions():
    out = {}
    for line in open(GRAMMARS):
        words = line.split()
        if len(words) >= 3 and words[0] == "plate":
            out[words[2]] = words[1]
    return out


def main():
    parser = argparse.ArgumentParser(description="Format labels of the plate photos' top readings (no region given).")
    parser.add_argument("data", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/testdata/plates"))
    parser.add_argument("--seer", default=".build/release/seer")
    parser.add_argument("--part", default="tune", choices=["tune", "check", "all"])
    args = parser.parse_args()
    region_of = regions()
    for region in ("us", "eu", "br"):
        folder = os.path.join(args.data, region)
        files = sorted(f for f in os.listdir(folder) if f.lower().endswith((".jpg", ".jpeg", ".png"))
                       and (args.part == "all" or part_of(f) == args.part))
        run = subprocess.run([args.seer, "plate", "read", "--format", "json"] + [os.path.join(folder, f) for f in files],
                             capture_output=True, text=True)
        kinds, labels = collections.Counter(), collections.Counter()
        for line in run.stdout.splitlines():
            plates = json.loads(line).get("plates") or []
            if not plates:
                kinds["no plate"] += 1
                continue
            top = plates[0]
            if top.get("grammar"):
                labels[top["grammar"]] += 1
                kinds["own region" if top.get("region") == region else "other region"] += 1
            elif top.get("formats"):
                # Format names are unique but for the catch-alls (`general` is a US and an EU one).
                labels["|".join(top["formats"])] += 1
                kinds["tie with own region" if any(region_of.get(f) == region for f in top["formats"]) else "tie without it"] += 1
            else:
                kinds["no format"] += 1
        order = ["own region", "other region", "tie with own region", "tie without it", "no format", "no plate"]
        print(f"{region} ({args.part}, {len(files)} photos): " + ", ".join(f"{k} {kinds[k]}" for k in order if kinds[k]))
        print("  " + ", ".join(f"{name} {n}" for name, n in labels.most_common()))


if __name__ == "__main__":
    main()
