#!/usr/bin/env python3
"""The held-out check that chooses the cost per weight of an 18 cost table
(the `# cost per weight: power P, cv C` line that tools/ed-costs.sh writes,
src/campaign/costs.rs `CostTable::shrink_per_weight`).

From two or more one-entry estimate files of one goal (`s17 exhaust
--estimate 1 --clues 18 [--first] --seed S --threads 1`, one a seed), each
seed's entries of weight above 0 (weight = BANDS3 + 8 HI_GRIDS) are
predicted by a table of the other seeds: the slice's cost per weight, its
entries' seconds over their weights to the power P, shrunk on the log scale
with noise ln(1 + C^2/n) toward a line in ln(grids per entry + 0.01), the
sample's total kept, times the entry's weight to the power P. Printed per
P and C: the rms of ln(measured / predicted), the share within [1/2, 2],
and measured over predicted in all; the (P, C) of the least rms last.

    tools/ed-costs-weight-check.py est-17.tsv est-18.tsv est-19.tsv

benches/README.md, "An entry's weight at plan time (18)": P = 0.8, C = 0.5
on the committed three seeds of 18 and 18 first (rms 0.66 and 0.62).
Standard library only; a few seconds.
"""
import math
import sys

HI_WEIGHT = 8
OFFSET = 0.01
FLOOR = 0.001


def read(path):
    rows = {}
    for line in open(path):
        if line.startswith('#'):
            continue
        f = line.rstrip('\n').split('\t')
        if int(f[3]) > 1:
            sys.exit(f'{path}: slice {f[0]} has {f[3]} entries sampled; one a line is needed (--estimate 1)')
        rows[int(f[0])] = (int(f[1]), int(f[2]), int(f[3]), int(f[4]) + HI_WEIGHT * int(f[5]), float(f[6]))
    return rows


def fit(seeds, power, cv):
    """Slice -> cost per weight^power from the entries of `seeds`."""
    pos = {}
    for s in seeds:
        for k, (n_e, grids, n, x, secs) in s.items():
            pos.setdefault(k, (n_e, grids, []))
            if n == 1 and x > 0:
                pos[k][2].append((x, max(secs, FLOOR)))
    s2 = (lambda n: math.log1p(cv * cv / n)) if cv > 0 else (lambda n: 0.0)
    pts = {k: (math.log(g / e + OFFSET), math.log(sum(s for _, s in v) / sum(x ** power for x, _ in v)) + s2(len(v)) / 2, s2(len(v)))
           for k, (e, g, v) in pos.items() if v}
    c = len(pts)
    mx = sum(p[0] for p in pts.values()) / c
    my = sum(p[1] for p in pts.values()) / c
    sxx = sum((p[0] - mx) ** 2 for p in pts.values())
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts.values()) / sxx if sxx > 0 else 0.0
    line = lambda x: my + slope * (x - mx)
    spread = sum((p[1] - line(p[0])) ** 2 for p in pts.values()) / c
    tau2 = max(spread - sum(p[2] for p in pts.values()) / c, spread / 10)
    r = {}
    for k, (e, g, v) in pos.items():
        if k in pts:
            x, y, v2 = pts[k]
            w = tau2 / (tau2 + v2) if tau2 + v2 > 0 else 1.0
            r[k] = math.exp(w * y + (1 - w) * line(x) + w * v2 / 2)
        else:
            r[k] = math.exp(line(math.log(g / e + OFFSET)) + tau2 / 2)
    want = sum(s for _, _, v in pos.values() for _, s in v)
    got = sum(r[k] * x ** power for k, (_, _, v) in pos.items() for x, _ in v)
    return {k: v * want / got for k, v in r.items()}


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    seeds = [read(p) for p in sys.argv[1:]]
    best = None
    print('P\tC\trms_log\twithin_half_twice\tmeasured_over_predicted')
    for power in [0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]:
        for cv in [0.0, 0.25, 0.5, 0.75, 1.0, 2.0]:
            logs, meas, pred = [], 0.0, 0.0
            for i, held in enumerate(seeds):
                r = fit(seeds[:i] + seeds[i + 1:], power, cv)
                for k, (_, _, n, x, secs) in held.items():
                    if n == 1 and x > 0:
                        p = max(r[k] * x ** power, FLOOR)
                        logs.append(math.log(max(secs, FLOOR) / p))
                        meas += secs
                        pred += p
            rms = math.sqrt(sum(v * v for v in logs) / len(logs))
            inside = sum(1 for v in logs if abs(v) <= math.log(2)) / len(logs)
            print(f'{power}\t{cv}\t{rms:.3f}\t{inside:.3f}\t{meas / pred:.3f}')
            if best is None or rms < best[0]:
                best = (rms, power, cv)
    print(f'# least rms: power {best[1]}, cv {best[2]} ({best[0]:.3f}; {len(logs)} entries)')


if __name__ == '__main__':
    main()
