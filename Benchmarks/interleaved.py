#!/usr/bin/env python3
"""Times whole commands interleaved: A, B, C, A, B, C, … so that a machine whose speed drifts
(shared cores, frequency changes) slows every command alike. Prints each command's median and
minimum wall time, and the ratio of its median to the previous command's (pairs such as
`djpeg …` then `seer …` read as seer ÷ djpeg).

    python3 Benchmarks/interleaved.py [--runs 60] [--warmup 5] -- "CMD A" -- "CMD B" ...
"""
import argparse
import shlex
import statistics
import subprocess
import sys
import time


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    head = argv[:argv.index("--")]
    commands, current = [], None
    for a in argv[argv.index("--"):]:
        if a == "--":
            current = []
            commands.append(current)
        else:
            current.append(a)
    commands = [" ".join(c) for c in commands if c]
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=5)
    args = parser.parse_args(head)
    argvs = [shlex.split(c) for c in commands]
    times = [[] for _ in argvs]
    for r in range(args.warmup + args.runs):
        for i, a in enumerate(argvs):
            start = time.perf_counter()
            subprocess.run(a, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
            if r >= args.warmup:
                times[i].append((time.perf_counter() - start) * 1000)
    print("| command | median ms | min ms | median ÷ previous |")
    print("|---|---|---|---|")
    previous = None
    for c, t in zip(commands, times):
        median = statistics.median(t)
        ratio = f"{median / previous:.2f}" if previous else ""
        print(f"| `{c}` | {median:.1f} | {min(t):.1f} | {ratio} |")
        previous = median


if __name__ == "__main__":
    main()
