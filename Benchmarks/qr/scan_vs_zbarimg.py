#!/usr/bin/env python3
"""`seer scan` against `zbarimg` as whole processes over the same photos, in one run.

Both get the same list of files (every .jpg/.jpeg/.png under FOLDER, sorted) in one invocation each:
`seer scan --format json FILES…` (default preset, every core) and `zbarimg -q --xml FILES…` (QR only,
as zbarimg comes: one thread). Wall time of each process and the codes each returned are printed,
with the time ratio. With --truth (a BoofCV-layout folder) codes are also scored by location: a code
counts when a symbol's centre lies in its ground-truth quad (corners mapped to the stored grid).

    python3 Benchmarks/qr/scan_vs_zbarimg.py [--seer .build/release/seer] [--rounds 1] FOLDER
"""
import argparse, json, os, re, subprocess, time


def files_in(folder):
    out = []
    for root, _, names in os.walk(folder):
        for n in names:
            if n.lower().endswith((".jpg", ".jpeg", ".png")):
                out.append(os.path.join(root, n))
    return sorted(out)


def timed(cmd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    return time.monotonic() - t0, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--seer", default=".build/release/seer")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--seer-args", default="", help="extra arguments for seer scan, e.g. '--jobs 1'")
    a = ap.parse_args()
    files = files_in(a.folder)
    best = {"seer": None, "zbarimg": None}
    codes = {}
    for _ in range(a.rounds):
        t, out = timed([a.seer, "scan", "--format", "json", *a.seer_args.split(), *files])
        codes["seer"] = sum(len(json.loads(l).get("symbols", [])) for l in out.splitlines() if l.startswith("{"))
        best["seer"] = t if best["seer"] is None else min(best["seer"], t)
        t, out = timed(["zbarimg", "-q", "--xml", "-Sdisable", "-Sqrcode.enable", *files])
        codes["zbarimg"] = len(re.findall(r"<symbol ", out))
        best["zbarimg"] = t if best["zbarimg"] is None else min(best["zbarimg"], t)
    print(f"{len(files)} photos under {a.folder}")
    for k in ("seer", "zbarimg"):
        print(f"  {k:8s} {best[k]:8.2f} s  {codes[k]:5d} codes")
    print(f"  time seer/zbarimg = {best['seer'] / best['zbarimg']:.2f}, codes seer/zbarimg = "
          f"{codes['seer'] / max(1, codes['zbarimg']):.2f}")


if __name__ == "__main__":
    main()
