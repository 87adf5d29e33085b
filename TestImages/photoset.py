"""What the generated photo sets (aztecphotos.py, dmpdfphotos.py) share: their truth file, Seer's
readings of every photo in one `seer scan` process, and their command line."""
import argparse
import json
import os
import subprocess


def write_truth(out, truth):
    """Writes `truth` (file name -> what was drawn) as out/truth.json."""
    with open(os.path.join(out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


def read(out, seer, preset, symbologies):
    """(file names in order, truth, texts Seer read per file name) for the set in `out`."""
    truth = json.load(open(os.path.join(out, "truth.json")))
    names = sorted(truth)
    result = subprocess.run([seer, "scan", "--format", "json", "--jobs", "1", "--preset", preset,
                             "--symbologies", symbologies] + [os.path.join(out, n) for n in names],
                            capture_output=True, text=True).stdout
    texts = {}
    for line in result.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        texts[os.path.basename(o.get("file", ""))] = [s.get("text") for s in o.get("symbols", [])]
    return names, truth, texts


def main(make, score, count, seed):
    """The command line of a set's script: `make --out DIR [--count N] [--seed S]` calls `make`,
    `score --out DIR [--seer BINARY] [--preset P] [--verbose]` calls `score`, each with the arguments."""
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("--out", required=True)
    m.add_argument("--count", type=int, default=count)
    m.add_argument("--seed", type=int, default=seed)
    s = sub.add_parser("score")
    s.add_argument("--out", required=True)
    s.add_argument("--seer", default=".build/release/seer")
    s.add_argument("--preset", default="balanced")
    s.add_argument("--verbose", action="store_true")
    a = ap.parse_args()
    make(a) if a.cmd == "make" else score(a)
