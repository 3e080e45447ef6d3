#!/usr/bin/env python3
"""dot_general's f32 product against each CPU BLAS at its best thread count, and against the
machine's measured FMA limit: reads the rounds lab/bench/dot_peer_grid.sh wrote and prints,
per N, each peer's GFLOP/s at 1 thread and at every core (the best round's median-of-7 rate),
the fastest peer configuration, tandem's F32_F32_F32 rate at its own best thread count, the
ratio of the two (per round, median with its min–max; "within noise" when that spread is
wider than the median's distance from 1), and both as a fraction of the AVX-512 FMA limit
cpu_peak measured in the same rounds at the same thread count.

    lab/tables/dot_peer_grid_table.py FOLDER ROUND [ROUND ...]
"""
import os
import re
import statistics
import sys

from bad_input import load_json, refuse

ROW = re.compile(r"^\| (\S+) \| (\d+) \| ([0-9.]+) \|$")
PEAK = re.compile(r"^\| AVX-512 \| (\d+) \| ([0-9.]+) \|$")
CASE = re.compile(r"^dot/perf/N:(\d+)/alg:F32_F32_F32/cpu$")


def need(path):
    if not os.path.isfile(path):
        refuse(f"{path} is missing", f"run lab/bench/dot_peer_grid.sh into {os.path.dirname(path)}")
    return path


def peer_name(lib):
    base = os.path.basename(lib)
    return {"libopenblas": "OpenBLAS", "libblis": "BLIS", "libdnnl": "oneDNN"}.get(base.split(".")[0], base)


def thread_counts(folder, first):
    if not os.path.isdir(folder):
        refuse(f"{folder} is not a folder", "name the OUT folder of lab/bench/dot_peer_grid.sh")
    found = sorted({int(m.group(1)) for f in os.listdir(folder) if (m := re.fullmatch(rf"r{first}_peers_(\d+)\.txt", f))})
    if not found:
        refuse(f"no r{first}_peers_T.txt in {folder}", "run lab/bench/dot_peer_grid.sh into it")
    return found


def load_round(folder, r, t):
    """({(peer, N): GFLOP/s}, {N: tandem GFLOP/s}, AVX-512 peak GFLOP/s) of one round at t threads."""
    peers = {(peer_name(m.group(1)), int(m.group(2))): float(m.group(3))
             for line in open(need(os.path.join(folder, f"r{r}_peers_{t}.txt"))) if (m := ROW.match(line.strip()))}
    ours = {}
    for rec in load_json(need(os.path.join(folder, f"r{r}_tandem_{t}.json")), "records",
                         f"round {r} was cut off: rerun lab/bench/dot_peer_grid.sh, or leave round {r} out")["records"]:
        m = CASE.match(rec["case"])
        if m and rec["verdict"] == "pass":
            n = int(m.group(1))
            ours[n] = 2.0 * n ** 3 / rec["timing"]["median"] / 1e9
    peak = [float(m.group(2)) for line in open(need(os.path.join(folder, f"r{r}_peak_{t}.txt")))
            if (m := PEAK.match(line.strip()))]
    return peers, ours, (peak[0] if peak else float("nan"))


def ratio_text(ratios):
    med, lo, hi = statistics.median(ratios), min(ratios), max(ratios)
    verdict = "within noise" if hi - lo > abs(med - 1) else ("tandem faster" if med > 1 else "peer faster")
    return f"{med:.2f}× ({lo:.2f}–{hi:.2f}) {verdict}"


def main():
    if len(sys.argv) < 3:
        refuse("no FOLDER and ROUNDs", "lab/tables/dot_peer_grid_table.py FOLDER ROUND [ROUND ...]")
    folder, rounds = sys.argv[1], sys.argv[2:]
    counts = thread_counts(folder, rounds[0])
    data = {(r, t): load_round(folder, r, t) for r in rounds for t in counts}
    configs = sorted({(p, t) for (r, t), (peers, _, _) in data.items() for (p, _) in peers})
    sizes = sorted({n for (_, _, ours) in [(0, 0, d[1]) for d in data.values()] for n in ours})
    if not sizes:
        refuse("no passing dot/perf F32_F32_F32 record in these rounds", "see each round's tandem records")
    best = lambda get: max(get(d) for d in data.values())
    peak = {t: max(data[(r, t)][2] for r in rounds) for t in counts}
    print("| N | " + " | ".join(f"{p} {t}t" for p, t in configs) + " | best peer | tandem F32 "
          + " | ".join(f"{t}t" for t in counts) + " | tandem best vs best peer (rate) | % of FMA limit: tandem / best peer |")
    print("|---:|" + "---:|" * len(configs) + "---|" + "---:|" * len(counts) + "---:|---:|")
    for n in sizes:
        rate = {c: max(data[(r, c[1])][0].get((c[0], n), 0.0) for r in rounds) for c in configs}
        bp = max(configs, key=lambda c: rate[c])
        ours = {t: max(data[(r, t)][1].get(n, 0.0) for r in rounds) for t in counts}
        bt = max(counts, key=lambda t: ours[t])
        ratios = [data[(r, bt)][1][n] / data[(r, bp[1])][0][(bp[0], n)] for r in rounds
                  if n in data[(r, bt)][1] and (bp[0], n) in data[(r, bp[1])][0]]
        print(f"| {n} | " + " | ".join(f"{rate[c]:.1f}" for c in configs) + f" | {bp[0]} {bp[1]}t: {rate[bp]:.1f} | "
              + " | ".join(f"{ours[t]:.1f}" for t in counts) + f" | {ratio_text(ratios)} "
              f"| {100 * ours[bt] / peak[bt]:.0f} % / {100 * rate[bp] / peak[bp[1]]:.0f} % |")
    print()
    print("GFLOP/s, the best round's rate; FMA limit (cpu_peak, AVX-512, best round): "
          + ", ".join(f"{peak[t]:.1f} at {t} thread{'s' if t > 1 else ''}" for t in counts) + ".")


if __name__ == "__main__":
    main()
