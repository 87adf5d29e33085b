"""Trains SeerPlate's sequence recogniser (CTC over the columns of a straightened plate row).

    python3 scripts/plate-ocr/train.py            # writes Sources/SeerPlate/Resources/plate-ctc.spr

Data: plate rows rendered by render.py (seeds 1000 + chunk, fixed), never photos. The model:
four 3x3 convolutions with ReLU and max-pooling (1 -> 24 -> 48 -> 64 -> 96 channels; the height
32 is pooled to 2, the width by 4), a 2x3 convolution over the last two rows (128 channels, ReLU)
and a per-column linear layer to 37 classes (blank first, then A-Z 0-9). One output column per
4 input columns, i.e. per 8 columns of the rectifier's 40 px glyph rows.
"""
import argparse
import os
import struct
import sys
import time
from multiprocessing import Pool

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
import modelfile  # noqa: E402
import render  # noqa: E402

CLASSES = "-" + render.CHARS  # index 0 is CTC's blank
OUT = os.path.join(os.path.dirname(__file__), "../../Sources/SeerPlate/Resources/plate-ctc.spr")
CHANNELS = (24, 48, 64, 96)  # the shipped model (scripts/plate-ocr/README.md)
HEAD = 128


class Net(nn.Module):
    def __init__(self, channels=CHANNELS, head=HEAD):
        super().__init__()
        c1, c2, c3, c4 = channels
        self.channels, self.head = tuple(channels), head
        self.c1 = nn.Conv2d(1, c1, 3, padding=1)
        self.c2 = nn.Conv2d(c1, c2, 3, padding=1)
        self.c3 = nn.Conv2d(c2, c3, 3, padding=1)
        self.c4 = nn.Conv2d(c3, c4, 3, padding=1)
        self.c5 = nn.Conv2d(c4, head, (2, 3), padding=(0, 1))
        self.out = nn.Conv2d(head, len(CLASSES), 1)
        # Batch normalisation while training; folded into the convolutions when exported.
        self.bn = nn.ModuleList([nn.BatchNorm2d(c) for c in (c1, c2, c3, c4, head)])

    def forward(self, x):  # x: N x 1 x 32 x W (W a multiple of 4)
        b = self.bn
        x = F.max_pool2d(F.relu(b[0](self.c1(x))), 2)            # 16 x W/2
        x = F.max_pool2d(F.relu(b[1](self.c2(x))), (2, 1))       # 8 x W/2
        x = F.max_pool2d(F.relu(b[2](self.c3(x))), 2)            # 4 x W/4
        x = F.max_pool2d(F.relu(b[3](self.c4(x))), (2, 1))       # 2 x W/4
        x = F.relu(b[4](self.c5(x)))                             # 1 x W/4
        return self.out(x).squeeze(2)                            # N x classes x W/4


def chunk(seed_count):
    seed, count = seed_count
    r = render.Renderer(seed)
    return [r.sample() for _ in range(count)]


def dataset(n, base, workers):
    per = 500
    jobs = [(base + i, per) for i in range((n + per - 1) // per)]
    with Pool(workers) as p:
        parts = p.map(chunk, jobs)
    return [s for part in parts for s in part]


def batch(samples, idx):
    xs = [samples[i][0] for i in idx]
    w = max(x.shape[1] for x in xs)
    w = (w + 3) // 4 * 4
    arr = np.ones((len(xs), 1, render.HEIGHT, w), np.float32)
    for k, x in enumerate(xs):
        arr[k, 0, :, :x.shape[1]] = x
        arr[k, 0, :, x.shape[1]:] = x[:, -1:]  # the crop's last column repeated
    targets = [torch.tensor([CLASSES.index(c) for c in samples[i][1]]) for i in idx]
    lengths = [x.shape[1] // 4 for x in xs]
    return torch.from_numpy(arr), targets, lengths


def greedy(logits, length):
    best = logits[:, :length].argmax(0).tolist()
    out, prev = [], 0
    for b in best:
        if b != prev and b != 0:
            out.append(CLASSES[b])
        prev = b
    return "".join(out)


def export(net, path):
    blob = bytearray(b"SPR2") + struct.pack("<6i", render.HEIGHT, *net.channels, net.head) + struct.pack("<i", len(CLASSES))
    blob += CLASSES.encode()
    convs = (net.c1, net.c2, net.c3, net.c4, net.c5, net.out)
    for k, layer in enumerate(convs):
        w = layer.weight.detach().double()
        b = layer.bias.detach().double()
        if k < len(net.bn):  # fold the batch normalisation (running statistics) into the convolution
            bn = net.bn[k]
            g = bn.weight.detach().double() / torch.sqrt(bn.running_var.double() + bn.eps)
            w = w * g[:, None, None, None]
            b = (b - bn.running_mean.double()) * g + bn.bias.detach().double()
        blob += modelfile.layer_bytes(w.numpy().reshape(len(w), -1), b.numpy())  # Int8 with per-channel scales
    with open(path, "wb") as f:
        f.write(blob)
    return len(blob)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=60000)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--stop-after", type=int, default=0,
                    help="stop after this many epochs of the --epochs schedule (0: run it all)")
    ap.add_argument("--cache", default="/tmp/plate-ocr-data.npz")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--channels", default=",".join(map(str, CHANNELS)),
                    help="the four convolutions' channels (the shipped model: %(default)s)")
    ap.add_argument("--render-only", action="store_true", help="render (or load) the rows into --cache and stop")
    ap.add_argument("--head", type=int, default=HEAD, help="the 2x3 convolution's channels (shipped: %(default)s)")
    args = ap.parse_args()
    torch.manual_seed(7)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(7)
    t0 = time.time()
    if os.path.exists(args.cache):
        d = np.load(args.cache, allow_pickle=True)
        train, val = list(d["train"]), list(d["val"])
    else:
        train = dataset(args.samples, 1000, args.threads)
        val = dataset(2000, 900000, args.threads)
        np.savez(args.cache, train=np.array(train, dtype=object), val=np.array(val, dtype=object))
    print(f"data: {len(train)} train, {len(val)} val in {time.time() - t0:.0f} s", flush=True)
    if args.render_only:
        return
    net = Net(tuple(int(c) for c in args.channels.split(",")), args.head)
    print("parameters:", sum(p.numel() for p in net.parameters()), flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    steps = args.epochs * (len(train) // 64)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-3, total_steps=steps, pct_start=0.1)
    ctc = nn.CTCLoss(blank=0, zero_infinity=True)
    # Batches of similar widths (less padding).
    order_by_width = np.argsort([s[0].shape[1] for s in train])
    step = 0
    for epoch in range(args.epochs):
        net.train()
        groups = [order_by_width[i:i + 64] for i in range(0, len(train) - 63, 64)]
        rng.shuffle(groups)
        total = 0.0
        for g in groups:
            x, targets, lengths = batch(train, g)
            logp = F.log_softmax(net(x), 1).permute(2, 0, 1)  # T x N x C
            loss = ctc(logp, torch.cat(targets), torch.tensor(lengths), torch.tensor([len(t) for t in targets]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
            step += 1
            if step % 100 == 0:
                print(f"  step {step}: loss {loss.item():.3f}, {time.time() - t0:.0f} s", flush=True)
        net.eval()
        right = 0
        with torch.no_grad():
            for i in range(0, len(val), 64):
                idx = list(range(i, min(len(val), i + 64)))
                x, _, lengths = batch(val, idx)
                out = net(x)
                for k, j in enumerate(idx):
                    right += greedy(out[k], lengths[k]) == val[j][1]
        print(f"epoch {epoch + 1}: loss {total / len(groups):.3f}, rendered val exact {100 * right / len(val):.1f} %, "
              f"{time.time() - t0:.0f} s", flush=True)
        export(net, args.out)
        if args.stop_after and epoch + 1 >= args.stop_after:
            break
    print("wrote", args.out, export(net, args.out), "bytes")


if __name__ == "__main__":
    main()
