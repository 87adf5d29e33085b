#!/usr/bin/env python3
"""Clients that misbehave on purpose, against `seer serve --demo`, with the figures RELIABILITY.md gives.

    python3 Benchmarks/serve/hostile.py --seer BIN [--stalled 200] [--timeout 2]

1. `--stalled` connections each send the head of a photo upload and 16 bytes of its body, then wait;
   meanwhile another client posts a whole photo: its status and time.
2. A `read=plates` scan of a photo slow for the plate reader (a 2 896² PNG of random 8-pixel black and
   white squares, made here) under `seer serve --timeout T --workers 1`: the answer's status and time, then how long
   until a small photo is answered 200 (the time the timed-out read kept the worker).
3. An HTTP/1.0 upload without Content-Length: the time to an answer.
4. Bytes that are not HTTP (a bad Content-Length, a garbage request line, too many headers): the
   status and body of each answer.

Every hostile input is made here; the good photo is TestImages/products/authentic-link.png.
"""
import argparse, json, os, random, socket, struct, subprocess, sys, time, zlib

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import run  # noqa: E402

PHOTO = os.path.join(here, "..", "..", "TestImages", "products", "authentic-link.png")


def png(width, height, rows):
    """A grey PNG from a row function."""
    raw = b"".join(b"\x00" + rows(y) for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def modules(side=2896, module=8, seed=0x5EE2):
    """A grey PNG of random black and white squares of `module` pixels, as tiled QR codes look to the
    plate reader: glyph-sized blobs everywhere."""
    generator = random.Random(seed)
    rows = [bytes(b for _ in range(side // module) for b in [generator.choice((0, 255))] * module) for _ in range(side // module)]
    return png(side, side, lambda y: rows[y // module])


class Server:
    def __init__(self, seer, *options):
        self.port = run.free_port()
        self.process = subprocess.Popen([seer, "serve", "--demo", "--port", str(self.port), *options],
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        env={**os.environ, "SEER_LOG": "warning"})
        self.keys = dict(self.process.stdout.readline().split() for _ in range(3))
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    sys.exit("the server did not listen")
                time.sleep(0.05)

    def head(self, length=None, version="1.1", query=""):
        text = (f"POST /v1/scans{query} HTTP/{version}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {self.keys['device']}\r\n"
                "Content-Type: image/png\r\n")
        if length is not None:
            text += f"Content-Length: {length}\r\n"
        return (text + "\r\n").encode()

    def exchange(self, data, timeout=60):
        """Sends `data`, reads one answer: (status, body, seconds); status 0 when none came."""
        start = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            received = b""
            try:
                while True:
                    if b"\r\n\r\n" in received:
                        head, _, body = received.partition(b"\r\n\r\n")
                        length = next((int(l.split(b":")[1]) for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")), 0)
                        if len(body) >= length:
                            return int(head.split()[1]), body[:length].decode(errors="replace"), time.monotonic() - start
                    more = s.recv(65536)
                    if not more:
                        break
                    received += more
            except socket.timeout:
                pass
            return 0, received.decode(errors="replace"), time.monotonic() - start

    def stop(self):
        self.process.terminate()
        self.process.wait()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seer", required=True)
    parser.add_argument("--stalled", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=2)
    args = parser.parse_args()
    photo = open(PHOTO, "rb").read()

    server = Server(args.seer)
    try:
        stalled = []
        for _ in range(args.stalled):
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(server.head(len(photo)) + photo[:16])
            stalled.append(s)
        time.sleep(1)
        status, body, seconds = server.exchange(server.head(len(photo)) + photo)
        print(f"{args.stalled} stalled uploads open: a photo from another client: {status} in {seconds * 1000:.0f} ms"
              f"{'' if status == 200 else ' ' + body[:120]}")
        for s in stalled:
            s.close()

        status, body, seconds = server.exchange(server.head(version="1.0") + photo, timeout=30)
        print(f"HTTP/1.0 upload without Content-Length: {status or 'no answer'} after {seconds:.2f} s {body[:120]}")

        many = "".join(f"X-Filler-{i}: {i}\r\n" for i in range(1200))
        for name, data in [("bad Content-Length", b"POST /v1/scans HTTP/1.1\r\nHost: x\r\nContent-Length: twelve\r\n\r\n"),
                           ("garbage request line", b"\x01\x02 NOT HTTP AT ALL\r\n\r\n"),
                           ("1 200 headers", f"GET /health HTTP/1.1\r\nHost: x\r\n{many}\r\n".encode())]:
            status, body, _ = server.exchange(data, timeout=10)
            print(f"{name}: {status} body {body[:140]!r}")
    finally:
        server.stop()

    slow = modules()
    server = Server(args.seer, "--workers", "1", "--timeout", f"{args.timeout:g}")
    try:
        status, body, seconds = server.exchange(server.head(len(slow), query="?read=plates") + slow, timeout=120)
        print(f"read=plates of the modules photo under --timeout {args.timeout:g}: {status} after {seconds:.2f} s {body[:80]}")
        # Photos sent one after another until one is answered 200: the worker is free again.
        start, tries = time.monotonic(), 0
        while time.monotonic() - start < 120:
            tries += 1
            status, _, _ = server.exchange(server.head(len(photo)) + photo, timeout=120)
            if status == 200:
                break
        print(f"then a small photo answered {status} {time.monotonic() - start:.2f} s after the timed-out answer ({tries} tries)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
