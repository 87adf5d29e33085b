#!/usr/bin/env python3
"""Alternating rounds of `seer scan --jobs N` and `seer serve` (one build or several), for a ratio that
the machine's drifting speed disturbs less than one long run of each.

    python3 Benchmarks/serve/rounds.py --seer BIN [--seer OTHER ...] [--rounds 8] [--seconds 6]
        [--clients 8] [--workers 2] [--jobs N] [--sets small|boofcv] [--pin]

Each round times `seer scan --jobs N` over the photos, then each server in turn (the order reversed
every other round; wrk posts the photos for --seconds after a 2 s warm-up), then `seer scan` again.
A server's ratio in a round is its photos per second over the mean of that round's two `seer scan`
rates. Per round and server it also prints the CPU time per request: the server's threads (from
/proc) plus wrk's (which runs on the same cores), and apart, its pollers' (time the CPUs had nothing
else to run). Then the median and quartiles of each server's
ratios. `seer scan` is timed with the first --seer. A --seer may carry options for `seer serve` after
the binary, to compare settings of one build: --seer "BIN --queue 64".

With --pin, the servers and `seer scan` run on the first --workers CPUs and wrk on the others, as
when the clients are phones elsewhere (on 2 CPUs: --workers 1 --pin).

Needs wrk (apt) and ../shared/testdata.
"""
import argparse, os, re, shlex, socket, statistics, subprocess, sys, time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import run  # noqa: E402  (photo sets and ports, as run.py picks them)

tick = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """CPU seconds of the process, without its pollers (threads `seer-poll-*`, which spin at idle
    priority while photos flow: time the CPUs had nothing else to run), and of its pollers."""
    stat = open(f"/proc/{pid}/stat").read()
    fields = stat[stat.rindex(")") + 2:].split()
    total = (int(fields[11]) + int(fields[12])) / tick
    polling = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        if re.fullmatch(r"seer-poll-\d+", stat[stat.index("(") + 1:stat.rindex(")")]):
            fields = stat[stat.rindex(")") + 2:].split()
            polling += (int(fields[11]) + int(fields[12])) / tick
    return total - polling, polling


def scan_rate(seer, photos, jobs, seconds, estimate=None):
    """Photos per second of `seer scan --jobs` over the list, repeated to last about `seconds` at the
    `estimate` rate (once through without one)."""
    repeat = max(1, round(seconds * estimate / len(photos))) if estimate else 1
    args = photos * repeat
    start = time.monotonic()
    subprocess.run(run.server_cpus + [seer, "scan", "--jobs", str(jobs), "--format", "json", *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return len(args) / (time.monotonic() - start)


def serve_rate(seer, photo_list, clients, workers, seconds):
    """(photos per second, CPU ms per request of the server and of wrk, and of the server's pollers) at
    `clients` clients; `seer` is the binary, then any options for `seer serve`."""
    port = run.free_port()
    binary, *options = shlex.split(seer)
    server = subprocess.Popen(run.server_cpus + [binary, "serve", "--demo", "--port", str(port), "--workers", str(workers), *options],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                              env={**os.environ, "SEER_LOG": "warning"})
    try:
        keys = dict(server.stdout.readline().split() for _ in range(3))
        # The keys come before the server listens.
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit(f"{seer} serve did not listen on port {port}")
                time.sleep(0.05)
        env = {**os.environ, "SEER_PHOTO_LIST": photo_list, "SEER_KEY": keys["device"], "SEER_HONOUR_RETRY_AFTER": "0"}

        def wrk(duration):
            command = run.client_cpus + ["wrk", "-t", str(min(2, clients)), "-c", str(clients), "-d", duration, "--timeout", "60s",
                       "-s", os.path.join(here, "post.lua"), f"http://127.0.0.1:{port}"]
            return subprocess.run(command, capture_output=True, text=True, env=env, check=False).stdout

        wrk("2s")
        before, children = cpu_seconds(server.pid), os.times()
        out = wrk(f"{seconds:g}s")
        after, later = cpu_seconds(server.pid), os.times()
    finally:
        server.terminate()
        server.wait()
    found = re.search(r"requests=(\d+) seconds=([\d.]+) .* non2xx=(\d+)", out)
    if not found:
        sys.exit(f"wrk printed no result:\n{out}")
    requests, elapsed, refused = int(found.group(1)), float(found.group(2)), int(found.group(3))
    wrk_cpu = later.children_user + later.children_system - children.children_user - children.children_system
    return ((requests - refused) / elapsed, 1000 * (after[0] - before[0]) / requests, 1000 * wrk_cpu / requests,
            1000 * (after[1] - before[1]) / requests)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seer", action="append", required=True, help="a seer binary; give several to compare")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--jobs", type=int, help="seer scan --jobs (default: --workers); at one client, 1")
    parser.add_argument("--sets", default="small", help="boofcv or small")
    parser.add_argument("--per-category", type=int, default=3, help="BoofCV photos per category")
    parser.add_argument("--pin", action="store_true", help="servers and seer scan on the first --workers CPUs, wrk on the others")
    args = parser.parse_args()
    if args.pin:
        run.pin(args.workers, parser)
    chosen = [s for s in run.photo_sets(args.per_category) if s[0] == args.sets]
    if not chosen:
        sys.exit(f"no photos for set {args.sets} under {run.testdata}")
    _, title, photos = chosen[0]
    photo_list = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"seer-rounds-{os.getpid()}.list")
    with open(photo_list, "w") as f:
        f.write("\n".join(photos) + "\n")
    jobs = args.jobs or args.workers
    pinned = f"; servers and seer scan on CPUs {run.server_cpus[2]}, wrk on {run.client_cpus[2]}" if args.pin else ""
    print(f"{title}: {len(photos)} photos; {args.workers} workers, {args.clients} clients, {args.seconds:g} s per server run, "
          f"against seer scan --jobs {jobs}{pinned}")
    names = [shlex.join([os.path.abspath(binary), *options]) for binary, *options in map(shlex.split, args.seer)]
    ratios = {s: [] for s in names}
    scanner = shlex.split(names[0])[0]
    estimate = scan_rate(scanner, photos, jobs, 0)  # also warms the page cache
    for index in range(args.rounds):
        first = scan_rate(scanner, photos, jobs, args.seconds / 2, estimate)
        order = names if index % 2 == 0 else names[::-1]
        served = {s: serve_rate(s, photo_list, args.clients, args.workers, args.seconds) for s in order}
        last = scan_rate(scanner, photos, jobs, args.seconds / 2, estimate)
        scanned = (first + last) / 2
        line = f"round {index + 1}: seer scan {first:.0f} and {last:.0f} photos/s"
        for s in names:
            rate, server_ms, wrk_ms, polling_ms = served[s]
            ratios[s].append(rate / scanned)
            line += f"; {s}: {rate:.0f}/s, {rate / scanned:.3f}, {server_ms:.2f} + {wrk_ms:.2f} ms CPU per request"
            if polling_ms > 0:
                line += f" (polling {polling_ms:.2f})"
        print(line, flush=True)
    os.remove(photo_list)
    for s in names:
        values = sorted(ratios[s])
        quarter = len(values) // 4
        print(f"{s}: median ratio {statistics.median(values):.3f} (quartiles {values[quarter]:.3f}–{values[-1 - quarter]:.3f}; "
              f"all {' '.join(f'{v:.2f}' for v in values)})")


if __name__ == "__main__":
    main()
