#!/usr/bin/env python3
"""Fits and measures plate-reading confidence: a logistic model over the evidence each reading
carries (PlateEvidence), cross-validated by leaving one photo set out at a time.

Input: JSON lines written by `plate-bench --findings OUT.jsonl [--region R] PATH` (every reading
before the confidence cut, labelled right or wrong; photos with no plate have every reading wrong;
`swift build -c release --package-path Benchmarks --product plate-bench` builds
`Benchmarks/.build/release/plate-bench`, docs/plates.md gives the commands).

    python3 scripts/plate-calibration/calibrate.py us=/tmp/f/us.jsonl eu=/tmp/f/eu.jsonl \\
        br=/tmp/f/br.jsonl boofcv=/tmp/f/boofcv.jsonl qr=/tmp/f/qrphotos.jsonl \\
        barcodes=/tmp/f/barcodes.jsonl synthetic=/tmp/f/synthetic.jsonl --weigh synthetic=0.2 \\
        [--threshold 0.5] [--swift]

Prints the cross-validated reliability table (10 bins), the expected calibration error (ECE),
and per set, at the threshold: photos with any reading kept, extra readings per 100 photos
(readings beyond one on the true plate), and exact top reading. Every figure comes from the fold
that did not see the set. `--swift` prints the weights fitted on all sets, for
Sources/SeerPlate/Verifier.swift (`Calibration.standard`).

Only a handful of numbers are fitted (one weight per evidence feature and a bias, with a ridge
penalty); the features are measured, not learnt, so the method carries to photos it has not seen.
"""
import argparse
import hashlib
import json
import math
import sys

import numpy as np

# Same order as Calibration.features in Sources/SeerPlate/Verifier.swift.
NAMES = ["log score", "runner-up", "format", "format weight", "mixed", "swaps", "layout", "over 8", "under 5", "height ratio", "at edge", "at side", "neighbours", "frame min", "frame max", "sides min", "sides max", "agreement",
         "classifier mean", "contrast", "ground spread", "stray ink", "border ink", "height spread",
         "pitch spread", "first", "rank ratio", "stacked"]


def features(e):
    return [math.log(max(e["score"], 1e-4)), e["runnerUp"], 1.0 if e["formatMatched"] else 0.0,
            e["formatWeight"], 1.0 if e["mixed"] else 0.0, float(e["swaps"]), e["layout"],
            1.0 if e["length"] > 8 else 0.0, 1.0 if e["length"] < 5 else 0.0, e["heightRatio"], 1.0 if e["atEdge"] else 0.0, 1.0 if e["atSide"] else 0.0, float(min(e["neighbours"], 3)),
            min(e["frameTop"], e["frameBottom"]), max(e["frameTop"], e["frameBottom"]),
            min(e["frameLeft"], e["frameRight"]), max(e["frameLeft"], e["frameRight"]), e["agreement"],
            e["classifierMean"], e["contrast"], e["groundSpread"], e["strayInk"], e["borderInk"],
            e["heightSpread"], e["pitchSpread"], 1.0 if e["rank"] == 0 else 0.0, e["rankRatio"],
            float(min(e["stacked"], 3))]


def load(named):
    rows, photos = [], {}
    for item in named:
        name, path = item.split("=", 1)
        for line in open(path):
            r = json.loads(line)
            photos.setdefault((name, r["file"]), r.get("truth"))
            if r.get("none"):
                continue
            r["name"] = name
            r["x"] = features(r["evidence"])
            rows.append(r)
    return rows, photos


def fit(X, y, ridge=1.0, iterations=50, sample=None):
    """Logistic regression by Newton's method with an L2 penalty on the weights (not the bias);
    `sample` weighs each reading (1 when not given)."""
    sample = np.ones(len(X)) if sample is None else sample
    mean, std = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([np.ones((len(X), 1)), (X - mean) / std])
    w = np.zeros(Z.shape[1])
    penalty = np.eye(Z.shape[1]) * ridge
    penalty[0, 0] = 0
    for _ in range(iterations):
        p = 1 / (1 + np.exp(-Z @ w))
        g = Z.T @ (sample * (p - y)) + penalty @ w
        H = (Z * (sample * p * (1 - p))[:, None]).T @ Z + penalty
        step = np.linalg.solve(H, g)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    # Back to raw feature units: bias' = b - sum(w_i mean_i / std_i), w_i' = w_i / std_i.
    raw = w[1:] / std
    return np.concatenate([[w[0] - (raw * mean).sum()], raw])


def rescale(w, X, y, floor=0.0):
    """The weights w with their log-odds z rescaled to a * z + b, a and b fitted on (X, y) alone,
    on the readings w gives at least `floor`."""
    z = w[0] + X @ w[1:]
    m = z >= math.log(floor / (1 - floor)) if floor > 0 else np.ones(len(z), dtype=bool)
    b, a = fit(z[m][:, None], y[m], ridge=1e-3)
    return np.concatenate([[a * w[0] + b], a * w[1:]])


def predict(w, X):
    return 1 / (1 + np.exp(-(w[0] + X @ w[1:])))


def reliability(p, y, bins=10):
    lines, ece = [], 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        m = (p >= lo) & ((p < hi) if b < bins - 1 else (p <= hi))
        if m.sum() == 0:
            continue
        conf, acc = p[m].mean(), y[m].mean()
        ece += m.sum() / len(p) * abs(conf - acc)
        lines.append(f"| {lo:.1f}–{hi:.1f} | {m.sum()} | {conf:.3f} | {acc:.3f} |")
    return lines, ece


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sets", nargs="+", help="NAME=FILE.jsonl")
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--ridge", type=float, default=1.0)
    parser.add_argument("--swift", action="store_true")
    parser.add_argument("--apply", nargs="*", default=[], metavar="NAME=FILE.jsonl",
                        help="further sets only scored, not fitted (e.g. the plate sets read with --region auto); "
                             "with --folds photo each photo is scored by the fold model that did not see it")
    parser.add_argument("--folds", default="photo",
                        help="photo: five folds of whole photos drawn across every set (each photo's readings "
                             "scored by the models fitted without it); set: leave one set out (harsher: a "
                             "region's plates scored by models that saw none of them)")
    parser.add_argument("--factored", action="store_true",
                        help="confidence = P(the row is a plate) × P(read right | a plate), two models")
    parser.add_argument("--by-confidence", action="store_true", help="order each photo's readings by confidence, not by rank")
    parser.add_argument("--weigh", nargs="*", default=[], metavar="NAME=W",
                        help="weigh every reading of set NAME by W in the fit (e.g. rendered scenes less than photos)")
    parser.add_argument("--least-agreement", type=float, default=0.25,
                        help="readings whose two readers agree on a smaller share of characters get confidence 0, "
                             "as the reader does (Calibration.leastAgreement); 0 turns the rule off")
    parser.add_argument("--word-frame", type=float, default=0.5,
                        help="readings that do not mix letters and digits (a word or a number) get confidence 0 "
                             "unless the plate's border runs along every side at least this far, as the reader "
                             "does (Calibration.wordFrame); 0 turns the rule off")
    parser.add_argument("--photo-scale", action="store_true",
                        help="after the fit, rescale its log-odds (a * z + b, two numbers fitted on the photo sets' "
                             "readings alone, not the weighed ones) so that photos are calibrated; folded into the weights")
    parser.add_argument("--photo-scale-floor", type=float, default=0.0,
                        help="fit the rescaling on the readings the model gives at least this")
    parser.add_argument("--predictions", help="write each reading with its cross-validated confidence `p` here (JSON lines)")
    args = parser.parse_args()
    rows, photos = load(args.sets)
    X = np.array([r["x"] for r in rows])
    y = np.array([1.0 if r["right"] else 0.0 for r in rows])
    on = np.array([1.0 if r["onPlate"] else 0.0 for r in rows])
    names = sorted({r["name"] for r in rows})
    weigh = {k: float(v) for k, v in (item.split("=", 1) for item in args.weigh)}
    sample = np.array([weigh.get(r["name"], 1.0) for r in rows])
    cv = np.zeros(len(rows))
    # The readers' disagreement rule and the rule for words and numbers come before the model, as
    # in the reader (below); the photo rescaling is fitted on the readings they leave.
    agreement = NAMES.index("agreement")
    mixed, frame_min, sides_min = NAMES.index("mixed"), NAMES.index("frame min"), NAMES.index("sides min")
    def unframed_word(M):
        return (M[:, mixed] == 0) & (np.minimum(M[:, frame_min], M[:, sides_min]) < args.word_frame)
    ruled = (X[:, agreement] < args.least_agreement) | unframed_word(X)
    photo_rows = np.array([r["name"] not in weigh for r in rows], dtype=bool) & ~ruled
    def fitted(m):
        w = fit(X[m], y[m], args.ridge, sample=sample[m])
        return rescale(w, X[m & photo_rows], y[m & photo_rows], args.photo_scale_floor) if args.photo_scale else w
    if args.folds == "set":
        fold_of = [r["name"] for r in rows]
    else:
        # Whole photos to folds by a hash of the file name's digest: deterministic, and spread
        # over every set.
        fold_of = [int(hashlib.sha1(r["file"].encode()).hexdigest(), 16) % 5 for r in rows]
    extra_rows, extra_photos = load(args.apply) if args.apply else ([], {})
    extra_fold = [(int(hashlib.sha1(r["file"].encode()).hexdigest(), 16) % 5 if args.folds != "set" else None) for r in extra_rows]
    extra_cv = np.zeros(len(extra_rows))
    EX = np.array([r["x"] for r in extra_rows]) if extra_rows else np.zeros((0, X.shape[1]))
    for held in sorted(set(fold_of)):
        train = np.array([f != held for f in fold_of])
        ex = np.array([f == held or f is None for f in extra_fold], dtype=bool)
        if args.factored:
            wp = fit(X[train], on[train], args.ridge, sample=sample[train])
            m = train & (on == 1)
            wr = fit(X[m], y[m], args.ridge, sample=sample[m])
            cv[~train] = predict(wp, X[~train]) * predict(wr, X[~train])
            if ex.any() and args.folds != "set":
                extra_cv[ex] = predict(wp, EX[ex]) * predict(wr, EX[ex])
        else:
            w = fitted(train)
            cv[~train] = predict(w, X[~train])
            if ex.any() and args.folds != "set":
                extra_cv[ex] = predict(w, EX[ex])
    # The readers' disagreement rule; the rule for words and numbers: only a whole border makes them a plate.
    cv[X[:, agreement] < args.least_agreement] = 0
    if len(extra_rows):
        extra_cv[EX[:, agreement] < args.least_agreement] = 0
    cv[unframed_word(X)] = 0
    if len(extra_rows):
        extra_cv[unframed_word(EX)] = 0
    if args.predictions:
        with open(args.predictions, "w") as f:
            for r, p in zip(rows, cv):
                f.write(json.dumps({k: v for k, v in r.items() if k != "x"} | {"p": float(p)}) + "\n")
    lines, ece = reliability(cv, y)
    print(f"Cross-validated (folds: {args.folds}; each reading scored by the model fitted without its fold), every reading:")
    print("| confidence | readings | mean confidence | share right |\n|---|---|---|---|")
    print("\n".join(lines))
    print(f"ECE {ece:.3f} over {len(y)} readings")
    kept = cv >= args.threshold
    lines, ece_kept = reliability(cv[kept], y[kept])
    print(f"readings kept at {args.threshold}: {kept.sum()}, ECE {ece_kept:.3f}")
    if weigh:
        photos_only = np.array([r["name"] not in weigh for r in rows], dtype=bool)
        _, ece_p = reliability(cv[photos_only], y[photos_only])
        m = kept & photos_only
        lines_p, ece_pk = reliability(cv[m], y[m])
        print(f"sets not weighed only: ECE {ece_p:.3f} over {photos_only.sum()} readings; kept {m.sum()}, ECE {ece_pk:.3f}")
        print("| confidence | readings | mean confidence | share right |\n|---|---|---|---|")
        print("\n".join(lines_p))
    print(f"\nAt --min-confidence {args.threshold}:")
    print("| set | photos | photos with a plate | extra per 100 | exact top % | exact top before % |\n|---|---|---|---|---|---|")
    all_rows, all_cv, all_photos = rows + extra_rows, np.concatenate([cv, extra_cv]), photos | extra_photos
    for name in names + sorted({r["name"] for r in extra_rows}):
        rows, cv, photos = all_rows, all_cv, all_photos
        files = [f for (n, f) in photos if n == name]
        anyp = extra = exact = exact0 = 0
        for f in files:
            mine = [(r, c) for r, c in zip(rows, cv) if r["name"] == name and r["file"] == f]
            if args.by_confidence:
                mine.sort(key=lambda rc: -rc[1])
            truth = photos[(name, f)]
            if mine and truth is not None and mine[0][0]["text"] == truth and mine[0][0]["onPlate"]:
                exact0 += 1
            k = [(r, c) for r, c in mine if c >= args.threshold]
            if k:
                anyp += 1
            plate_kept = any(r["onPlate"] for r, _ in k)
            extra += len(k) - (1 if plate_kept else 0)
            if k and truth is not None and k[0][0]["text"] == truth and k[0][0]["onPlate"]:
                exact += 1
        n = len(files)
        print(f"| {name} | {n} | {100 * anyp / n:.1f} % | {100 * extra / n:.1f} | {100 * exact / n:.1f} | {100 * exact0 / n:.1f} |")
    rows, cv, photos = rows[:len(y)], cv[:len(y)], photos
    if args.factored:
        models = {"plate": fit(X, on, args.ridge, sample=sample), "exact": fit(X[on == 1], y[on == 1], args.ridge, sample=sample[on == 1])}
    else:
        models = {"single": fitted(np.ones(len(X), dtype=bool))}
    for title, w in models.items():
        print(f"\nWeights of the {title} model fitted on every set (raw feature units), bias first:")
        for name, v in zip(["bias"] + NAMES, w):
            print(f"  {name:16s} {v:+.4f}")
        if args.swift:
            print(f"{title}: [" + ", ".join(f"{v:.6g}" for v in w) + "]")


if __name__ == "__main__":
    main()
