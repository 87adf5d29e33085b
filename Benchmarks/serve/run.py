#!/usr/bin/env python3
"""Load benchmark of `seer serve`: POST /v1/scans with BoofCV phone photos and with small QR photos at
1, 8 and 64 concurrent clients (wrk on loopback), against `seer scan --jobs N` over the same photos
in the same run. Bounded in time: each wrk run lasts --seconds (default 15).

    python3 Benchmarks/serve/run.py [--seer .build/release/seer] [--seconds 15] [--workers 2]
        [--compare OTHER_SEER]

With --pin, the server and `seer scan` run on the first --workers CPUs only and wrk on the others
(taskset), as when the clients are phones elsewhere: what the server spends beyond `seer scan` is then
all the server's own (on 2 cores: --workers 1 --pin).

With --compare, the same runs are made against a second build of `seer serve` (say, one built from
the previous commit), one after the other in the same run, so that the two can be compared under the
same machine load; `seer scan` is timed with --seer.

Besides wrk's figures, each row gives where the CPU went while wrk ran: the server's recognition
workers (threads `seer-read-*`, CPU time as a share of `--workers` cores), the server's other threads (event
loops, Swift's pool, store threads), wrk itself, and the server's pollers (`seer-poll-*`, which spin at
idle priority while photos flow instead of letting the CPUs halt: time the CPUs had nothing else to
run), in cores. Load averages are printed per set.

Needs wrk (apt) and ../shared/testdata (skips a set whose folder is absent). Prints one table per set.
"""
import argparse, os, re, resource, signal, socket, statistics, subprocess, sys, tempfile, time

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", ".."))
testdata = os.path.abspath(os.path.join(root, "..", "shared", "testdata"))


def photo_sets(per_category):
    sets = []
    boofcv = os.path.join(testdata, "qr-boofcv")
    if os.path.isdir(boofcv):
        photos = []
        for category in sorted(os.listdir(boofcv)):
            names = sorted(n for n in os.listdir(os.path.join(boofcv, category)) if n.endswith(".jpg"))
            photos += [os.path.join(boofcv, category, n) for n in names[:per_category]]
        sets.append(("boofcv", "BoofCV phone photos (JPEG, up to 12 MP)", photos))
    small = os.path.join(testdata, "qr-photos")
    if os.path.isdir(small):
        photos = []
        for folder in sorted(os.listdir(small)):
            photos += [os.path.join(small, folder, n) for n in sorted(os.listdir(os.path.join(small, folder))) if n.endswith(".png")]
        sets.append(("small", "small QR photos (PNG, 240 px to 1280 px)", photos))
    return sets


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Command prefixes that pin the server (and `seer scan`) and the load generator to CPUs (--pin).
server_cpus = []
client_cpus = []


def pin(workers, parser):
    """Sets the prefixes: the server and `seer scan` on the first `workers` CPUs, wrk on the others."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) <= workers:
        parser.error(f"--pin needs more CPUs than --workers ({len(cpus)} CPUs, {workers} workers)")
    server_cpus[:] = ["taskset", "-c", ",".join(map(str, cpus[:workers]))]
    client_cpus[:] = ["taskset", "-c", ",".join(map(str, cpus[workers:]))]


def cli_rate(seer, photos, jobs, rounds, seconds=8.0):
    # One warm-up run; then the list is repeated so that each timed run lasts about `seconds`.
    start = time.monotonic()
    subprocess.run(server_cpus + [seer, "scan", "--jobs", str(jobs), "--format", "json", *photos], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    repeat = max(1, round(seconds / (time.monotonic() - start)))
    photos = photos * repeat
    times = []
    for _ in range(rounds):
        start = time.monotonic()
        subprocess.run(server_cpus + [seer, "scan", "--jobs", str(jobs), "--format", "json", *photos], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.monotonic() - start)
    return len(photos) / statistics.median(times), times, repeat


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def thread_cpu(pid):
    """CPU seconds of the process's threads, as (recognition workers, the other threads, the pollers
    that keep the CPUs from halting: time the CPUs would otherwise have been idle)."""
    tick = os.sysconf("SC_CLK_TCK")
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    total = (int(fields[11]) + int(fields[12])) / tick  # the process, threads that ended included
    workers = pollers = 0.0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        seconds = (int(fields[11]) + int(fields[12])) / tick
        if re.fullmatch(r"seer-read-\d+", name):
            workers += seconds
        elif re.fullmatch(r"seer-poll-\d+", name):
            pollers += seconds
    return workers, total - workers - pollers, pollers


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load():
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def serve_rows(seer, workers, clients, seconds, listing, cli, cli_at):
    port = free_port()
    server = subprocess.Popen(
        server_cpus + [seer, "serve", "--demo", "--port", str(port), "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, "SEER_LOG": "warning"})
    keys = {}
    for _ in range(3):
        role, key = server.stdout.readline().split()
        keys[role] = key
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    rows = []
    for label in clients:
        count = int(label.rstrip("r"))
        honour = "1" if label.endswith("r") else "0"
        threads = min(count, 2)
        before, wrk_before, start = thread_cpu(server.pid), children_cpu(), time.monotonic()
        out = subprocess.run(
            client_cpus + ["wrk", "-t", str(threads), "-c", str(count), "-d", f"{seconds}s", "--timeout", "60s",
             "-s", os.path.join(here, "post.lua"), f"http://127.0.0.1:{port}"],
            capture_output=True, text=True, env={**os.environ, "SEER_PHOTO_LIST": listing, "SEER_KEY": keys["device"], "SEER_HONOUR_RETRY_AFTER": honour}).stdout
        after, wrk_after, wall = thread_cpu(server.pid), children_cpu(), time.monotonic() - start
        m = re.search(r"RESULT (.*)", out)
        if not m:
            print(out, file=sys.stderr)
            continue
        r = dict(kv.split("=") for kv in m.group(1).split())
        ok = int(r["requests"]) - int(r["non2xx"])
        rate = ok / float(r["seconds"])
        rows.append((label.replace("r", " (Retry-After honoured)"), int(r["requests"]), ok, int(r["non2xx"]), int(r["timeouts"]) + int(r["errors"]),
                     float(r["requests"]) / float(r["seconds"]), rate, float(r["p50_ms"]), float(r["p99_ms"]), float(r["max_ms"]), rate / cli,
                     rate / cli_at[min(count, workers)],
                     100 * (after[0] - before[0]) / wall / workers, (after[1] - before[1]) / wall, (wrk_after - wrk_before) / wall,
                     (after[2] - before[2]) / wall))
    rss = peak_rss_mb(server.pid)
    server.send_signal(signal.SIGTERM)
    status = server.wait(timeout=60)
    return rows, rss, status


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seer", default=os.path.join(root, ".build", "release", "seer"))
    parser.add_argument("--compare", help="a second seer binary whose server is measured in the same run")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--per-category", type=int, default=2, help="BoofCV photos per category")
    parser.add_argument("--clients", default="1,8,64,64r", help="r: clients honour Retry-After")
    parser.add_argument("--sets", default="boofcv,small", help="photo sets: boofcv, small")
    parser.add_argument("--rounds", type=int, default=3, help="seer scan runs (median)")
    parser.add_argument("--pin", action="store_true", help="server and seer scan on the first --workers CPUs, wrk on the others")
    args = parser.parse_args()
    if args.pin:
        pin(args.workers, parser)
    clients = args.clients.split(",")

    for name, title, photos in photo_sets(args.per_category):
        if name not in args.sets.split(","):
            continue
        with tempfile.TemporaryDirectory() as work:
            listing = os.path.join(work, "photos.txt")
            with open(listing, "w") as f:
                f.write("\n".join(photos) + "\n")
            cli, cli_times, cli_repeat = cli_rate(args.seer, photos, args.workers, args.rounds)
            pinned = f"; server on CPUs {server_cpus[2]}, wrk on {client_cpus[2]}" if args.pin else ""
            print(f"\n{title}: {len(photos)} photos, {args.workers} workers, {args.seconds} s per run{pinned}; load average {load()}")
            print(f"seer scan --jobs {args.workers}: {cli:.2f} photos/s (each run the list {cli_repeat}×; runs {', '.join(f'{t:.2f}' for t in cli_times)} s)")
            # Clients fewer than the workers keep at most that many photos in flight: they are also
            # set against `seer scan` with as many jobs.
            cli_at = {args.workers: cli}
            for jobs in sorted({min(int(c.rstrip("r")), args.workers) for c in clients} - {args.workers}):
                rate, times, repeat = cli_rate(args.seer, photos, jobs, args.rounds)
                cli_at[jobs] = rate
                print(f"seer scan --jobs {jobs}: {rate:.2f} photos/s (each run the list {repeat}×; runs {', '.join(f'{t:.2f}' for t in times)} s)")
            for seer in [args.seer] + ([args.compare] if args.compare else []):
                rows, rss, status = serve_rows(seer, args.workers, clients, args.seconds, listing, cli, cli_at)
                print(f"\nseer serve: {seer}")
                print("| clients | requests | 200 | non-2xx (503) | wrk timeouts, errors | req/s | photos/s (200) | p50 ms | p99 ms | max ms | ÷ seer scan | ÷ seer scan, jobs = min(clients, workers) | workers CPU % | other server threads, cores | wrk, cores | polling, cores |")
                print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
                for row in rows:
                    print("| %s | %d | %d | %d | %d | %.2f | %.2f | %.1f | %.1f | %.1f | %.2f | %.2f | %.0f | %.2f | %.2f | %.2f |" % row)
                print(f"server peak RSS {rss:.0f} MB; exit status after SIGTERM {status}; load average {load()}", flush=True)


if __name__ == "__main__":
    main()
