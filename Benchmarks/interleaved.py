#!/usr/bin/env python3
"""Times whole commands interleaved: A, B, C, A, B, C, … so that a machine whose speed drifts
(shared cores, frequency changes) slows every command alike. Prints each command's median and
minimum wall time and its median ratio to the first command.

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
    base = statistics.median(times[0])
    print("| command | median ms | min ms | median / first |")
    print("|---|---|---|---|")
    for c, t in zip(commands, times):
        print(f"| `{c}` | {statistics.median(t):.1f} | {min(t):.1f} | {statistics.median(t) / base:.2f} |")


if __name__ == "__main__":
    main()
