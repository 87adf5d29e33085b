#!/usr/bin/env python3
"""Measures where each of MaxiCode's 864 codeword bits lies in the 33 × 30 module grid, as
`MaxiCode.layout` (`Sources/SeerQR/MaxiCode.swift`) holds it, from symbols Debian's zint writes.

For 150 random messages of modes 2–6 (code set A only, whose codewords are known: A–Z 1–26, space
32, digits 48–57, Pad 33), the codewords are computed here (the primary and secondary messages with
their Reed–Solomon checks over GF(64), x^6 + x + 1, roots α^1…α^k; the secondary's odd and even
codewords as two blocks), and each module of zint's `--dump` is matched with the one codeword bit
that equals it in every symbol. Every bit but one is found that way; the mode codeword's bit of
weight 8 (0 in every mode 2–6) is the one module left beside the bull's-eye's upper-right cluster of
orientation modules. Prints the table, one row a line.
"""
import random
import subprocess

EXP, LOG = [0] * 128, [0] * 64
v = 1
for i in range(63):
    EXP[i], LOG[v] = v, i
    v <<= 1
    if v & 64:
        v ^= 0x43
for i in range(63, 128):
    EXP[i] = EXP[i - 63]


def mul(a, b):
    return 0 if a == 0 or b == 0 else EXP[LOG[a] + LOG[b]]


def checks(data, k):
    g = [1]
    for r in range(1, k + 1):
        n = [0] * (len(g) + 1)
        for i, c in enumerate(g):
            n[i] ^= c
            n[i + 1] ^= mul(c, EXP[r % 63])
        g = n
    rem = [0] * k
    for s in data:
        f = s ^ rem[0]
        rem = rem[1:] + [0]
        if f:
            for i in range(k):
                rem[i] ^= mul(g[i + 1], f)
    return rem


def symbol(cw, mode):
    primary, secondary = cw[:10], cw[10:]
    k = 28 if mode == 5 else 20
    out = primary + checks(primary, 10) + secondary
    for a, b in zip(checks(secondary[0::2], k), checks(secondary[1::2], k)):
        out += [a, b]
    return out


def dump(args):
    words = subprocess.run(["zint", "-b", "MAXICODE", "--dump"] + args, capture_output=True, text=True, check=True).stdout.split()
    grid = []
    for i in range(0, len(words), 4):
        value = int("".join(words[i:i + 4]), 16)
        grid.append([(value >> (31 - c)) & 1 for c in range(30)])
    return grid


def main():
    random.seed(2)
    A = {c: i + 1 for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZ")}
    A.update({c: 48 + i for i, c in enumerate("0123456789")})
    chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    samples = []
    for t in range(150):
        mode = [2, 3, 4, 5, 6][t % 5]
        if mode in (2, 3):
            country, service = random.randint(0, 999), random.randint(0, 999)
            if mode == 2:
                length = random.randint(1, 9)
                postcode = random.randint(0, 10 ** length - 1)
                field, text = postcode | length << 30, str(postcode).zfill(length)
            else:
                text = "".join(random.choice(chars) for _ in range(6))
                field = sum(A[ch] << (6 * (5 - k)) for k, ch in enumerate(text))
            n = mode | field << 4 | country << 40 | service << 50
            primary = [(n >> (6 * i)) & 63 for i in range(10)]
            s = "".join(random.choice(chars) for _ in range(random.randint(1, 84)))
            cw = primary + [A[c] for c in s] + [33] * (84 - len(s))
            grid = dump(["--mode=%d" % mode, "--primary=%s%03d%03d" % (text, country, service), "-d", s])
        else:
            total = 78 if mode == 5 else 94
            s = "".join(random.choice(chars) for _ in range(random.randint(1, total - 1)))
            cw = [mode] + [A[c] for c in s] + [33] * (total - 1 - len(s))
            grid = dump(["--mode=%d" % mode, "-d", s])
        words = symbol(cw, mode)
        samples.append(([(words[i // 6] >> (5 - i % 6)) & 1 for i in range(864)], grid))
    constant = {i for i in range(864) if len({b[i] for b, _ in samples}) == 1}
    assert constant == {2}, constant
    table = [[-1] * 30 for _ in range(33)]
    for r in range(33):
        for c in range(30):
            found = [i for i in range(864) if i not in constant and all(b[i] == g[r][c] for b, g in samples)]
            assert len(found) <= 1, (r, c, found)
            if found:
                table[r][c] = found[0]
    table[9][16] = 2
    placed = sorted(x for row in table for x in row if x >= 0)
    assert placed == list(range(864)), "every bit in one module"
    for row in table:
        print(", ".join(str(x) for x in row) + ",")


if __name__ == "__main__":
    main()
