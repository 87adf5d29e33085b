#!/usr/bin/env python3
"""Load benchmark of `seer serve`: POST /v1/scans with BoofCV phone photos and with small QR photos at
1, 8 and 64 concurrent clients (wrk on loopback), against `seer scan --jobs N` over the same photos
in the same run. Bounded in time: each wrk run lasts --seconds (default 15).

    python3 Benchmarks/serve/run.py [--seer .build/release/seer] [--seconds 15] [--workers 2]

Needs wrk (apt) and ../shared/testdata (skips a set whose folder is absent). Prints one table per set.
"""
import argparse, os, re, signal, socket, statistics, subprocess, sys, tempfile, time

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
        sets.append(("BoofCV phone photos (JPEG, up to 12 MP)", photos))
    small = os.path.join(testdata, "qr-photos")
    if os.path.isdir(small):
        photos = []
        for folder in sorted(os.listdir(small)):
            photos += [os.path.join(small, folder, n) for n in sorted(os.listdir(os.path.join(small, folder))) if n.endswith(".png")]
        sets.append(("small QR photos (PNG, 240 px to 1280 px)", photos))
    return sets


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cli_rate(seer, photos, jobs, rounds, seconds=8.0):
    # One warm-up run; then the list is repeated so that each timed run lasts about `seconds`.
    start = time.monotonic()
    subprocess.run([seer, "scan", "--jobs", str(jobs), "--format", "json", *photos], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    repeat = max(1, round(seconds / (time.monotonic() - start)))
    photos = photos * repeat
    times = []
    for _ in range(rounds):
        start = time.monotonic()
        subprocess.run([seer, "scan", "--jobs", str(jobs), "--format", "json", *photos], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.monotonic() - start)
    return len(photos) / statistics.median(times), times, repeat


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seer", default=os.path.join(root, ".build", "release", "seer"))
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--workers", type=int, default=os.cpu_count())
    parser.add_argument("--per-category", type=int, default=2, help="BoofCV photos per category")
    parser.add_argument("--clients", default="1,8,64,64r", help="r: clients honour Retry-After")
    parser.add_argument("--rounds", type=int, default=3, help="seer scan runs (median)")
    args = parser.parse_args()
    clients = args.clients.split(",")

    for title, photos in photo_sets(args.per_category):
        with tempfile.TemporaryDirectory() as work:
            listing = os.path.join(work, "photos.txt")
            with open(listing, "w") as f:
                f.write("\n".join(photos) + "\n")
            cli, cli_times, cli_repeat = cli_rate(args.seer, photos, args.workers, args.rounds)
            port = free_port()
            server = subprocess.Popen(
                [args.seer, "serve", "--demo", "--port", str(port), "--workers", str(args.workers)],
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
                out = subprocess.run(
                    ["wrk", "-t", str(threads), "-c", str(count), "-d", f"{args.seconds}s", "--timeout", "60s",
                     "-s", os.path.join(here, "post.lua"), f"http://127.0.0.1:{port}"],
                    capture_output=True, text=True, env={**os.environ, "SEER_PHOTO_LIST": listing, "SEER_KEY": keys["device"], "SEER_HONOUR_RETRY_AFTER": honour}).stdout
                m = re.search(r"RESULT (.*)", out)
                if not m:
                    print(out, file=sys.stderr)
                    continue
                r = dict(kv.split("=") for kv in m.group(1).split())
                ok = int(r["requests"]) - int(r["non2xx"])
                rate = ok / float(r["seconds"])
                rows.append((label.replace("r", " (Retry-After honoured)"), int(r["requests"]), ok, int(r["non2xx"]), int(r["timeouts"]), float(r["requests"]) / float(r["seconds"]),
                             rate, float(r["p50_ms"]), float(r["p99_ms"]), float(r["max_ms"]), rate / cli))
            rss = peak_rss_mb(server.pid)
            server.send_signal(signal.SIGTERM)
            status = server.wait(timeout=60)
            print(f"\n{title}: {len(photos)} photos, {args.workers} workers, {args.seconds} s per run")
            print(f"seer scan --jobs {args.workers}: {cli:.2f} photos/s (each run the list {cli_repeat}×; runs {', '.join(f'{t:.2f}' for t in cli_times)} s)")
            print("| clients | requests | 200 | non-2xx (503) | wrk timeouts | req/s | photos/s (200) | p50 ms | p99 ms | max ms | ÷ seer scan |")
            print("|---|---|---|---|---|---|---|---|---|---|---|")
            for row in rows:
                print("| %s | %d | %d | %d | %d | %.2f | %.2f | %.1f | %.1f | %.1f | %.2f |" % row)
            print(f"server peak RSS {rss:.0f} MB; exit status after SIGTERM {status}")


if __name__ == "__main__":
    main()
