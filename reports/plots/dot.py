# dot suite plots: the error of each DotAlgorithm preset (max relative error and error over tolerance across the grid),
# the accuracy-order measurement, and GFLOP/s vs size next to the BLAS/cuBLAS call made directly, with the ratio.

import numpy as np

from reports.correctness import worst_check
from reports.plots import style
from reports.records import metrics, num

SUITE = "dot"
PROMISES = ("dot_error_per_algorithm.png", "dot_accuracy_order.png", "dot_gflops.png")  # the PNGs users are told to expect (reports/README.md)
PERF_ONLY = ("dot_gflops.png",)  # from the nightly perf cases: not expected of a quick-profile run
BACKEND_COLORS = {"cpu": "tab:blue", "cuda": "tab:green"}


def plot(recs, out):
    return [p for p in (fn(recs, out) for fn in (error_per_algorithm, accuracy_order, gflops_vs_size)) if p]


def error_per_algorithm(recs, out):
    pts = []  # (algorithm, backend, max_rel, error/tol, failed)
    for r in recs:
        alg, rep = (r.get("params") or {}).get("algorithm"), worst_check(r)[1] or {}
        rel, ratio = num(rep.get("max_rel")), num(rep.get("error_over_tolerance"))
        if alg and isinstance(alg, str) and r["verdict"] != "skip" and rel is not None and ratio is not None:
            pts.append((alg, r.get("backend", "?"), rel, ratio, rep.get("pass") is False))
    if not pts:
        return None
    algs = sorted({p[0] for p in pts})
    fig, (a1, a2) = style.figure("dot_general: error per DotAlgorithm preset", "", "", size=(12, 5.2), ncols=2)
    at = {a: i for i, a in enumerate(algs)}
    x = np.array([at[p[0]] + ((i % 7) - 3) * 0.05 for i, p in enumerate(pts)])  # small jitter shows overlaps
    backend, failed = np.array([p[1] for p in pts]), np.array([p[4] for p in pts], dtype=bool)
    for ax, col in ((a1, 2), (a2, 3)):
        scatter_groups(ax, x, [p[col] for p in pts], backend, failed, ax is a1)
    a2.axhline(1.0, color="tab:red", ls="--", lw=1, label="tolerance (error/tol = 1)")
    for ax, ylab in ((a1, "max relative error (dimensionless, log)"), (a2, "max error / tolerance (log)")):
        ax.set_yscale("log")
        ax.set_xticks(range(len(algs)))
        ax.set_xticklabels(algs, rotation=45, ha="right", fontsize="small")
        ax.set_xlabel("DotAlgorithm preset")
        ax.set_ylabel(ylab)
    a1.set_title("worst output per case (x failed, ▲ at top: inf/NaN)", fontsize="medium")
    a2.set_title("below the red line passes", fontsize="medium")
    style.legend(a1, len(set(backend)), "backend")
    style.legend(a2, 1)
    return style.save(fig, out, "dot_error_per_algorithm.png", "Error per DotAlgorithm preset",
                      f"{len(pts)} cases; exact results sit on the dotted 'exact (0)' line")


def scatter_groups(ax, x, values, backend, failed, label):
    """One scatter per backend and marker (x failed, ▲ inf/NaN at the top), failures drawn last;
    and the 'exact (0)' line under zeros. One collection per case made a 43,488-record report
    run past 600 s, 80 % of it in this plot."""
    y, floor, top = style.floor_positive(values)
    y = np.array(y)
    marker = np.where(y == top, "^", np.where(failed, "x", "o"))
    for b in sorted(set(backend)):
        for m in ("o", "^", "x"):
            sel = (backend == b) & (marker == m)
            if sel.any():
                ax.scatter(x[sel], y[sel], color=BACKEND_COLORS.get(b, "tab:gray"), marker=m, s=24 if m == "^" else 18,
                           alpha=0.8, label=b if label and b not in [h.get_label() for h in ax.collections] else None)
    if 0 in values:
        ax.axhline(floor, color="0.5", ls=":", lw=1)
        ax.annotate("exact (0)", (1.0, floor), xycoords=("axes fraction", "data"), ha="right", va="bottom",
                    fontsize="x-small", color="0.4")


def accuracy_order(recs, out):
    rows = []  # (k, backend, {preset: error})
    for r in recs:
        table = (r.get("correctness") or {}).get("normalized_error")
        if isinstance(table, dict) and table:
            errs = {p: num(v.get("max_error_over_sum_abs")) for p, v in table.items() if isinstance(v, dict)}
            rows.append(((r.get("params") or {}).get("k", "?"), r.get("backend", "?"), errs))
    if not rows:
        return None
    presets = sorted(sorted({p for _, _, e in rows for p in e}), key=lambda p: -max(e.get(p) or 0 for _, _, e in rows))
    fig, ax = style.figure("dot_general: accuracy of each preset on the same inputs",
                           "DotAlgorithm preset", "max |error| / Σ|a·b|  (dimensionless, log)", size=(11, 5.2))
    width = 0.8 / len(rows)
    for j, (k, backend, errs) in enumerate(sorted(rows, key=lambda t: (str(t[1]), num(t[0]) or 0))):
        vals, _, _ = style.floor_positive([errs.get(p) or 0.0 for p in presets], 1e-18)
        ax.bar([i + j * width for i in range(len(presets))], vals, width, label=f"K={k} ({backend})")
    ax.set_yscale("log")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(presets))])
    ax.set_xticklabels(presets, rotation=45, ha="right", fontsize="small")
    style.legend(ax, len(rows), "reduction length")
    return style.save(fig, out, "dot_accuracy_order.png", "Accuracy order of the presets",
                      "lower is more accurate; F32_F32_F32 should sit below every reduced-precision preset")


BASELINES = ("blas_sgemm", "cublas_gemm_ex", "cublas_gemm_ex_tf32")  # the direct library calls


def gflops_vs_size(recs, out):
    """Left: GFLOP/s vs N of the square perf cases, a line per preset and backend, the direct
    BLAS/cuBLAS call drawn thick and black-edged. Right: each preset over the baseline its
    record names (info.baseline, same run, same operands): 1 = as fast as calling BLAS."""
    rate, base_of = {}, {}  # (case, backend) → GFLOP/s; (case, backend) → its baseline's case
    series = {}  # (algorithm, backend) → {N: GFLOP/s}
    for r in recs:
        m, p = metrics(r).get("gflops"), r.get("params") or {}
        n = num(p.get("n"))
        if not m or r["verdict"] != "pass" or not n or num(p.get("m")) != n or num(p.get("k")) != n:
            continue
        case_name = r["case"][: -len(r.get("backend", "")) - 1] if r.get("backend") else r["case"]
        key = (case_name, r.get("backend", "?"))
        rate[key] = m["value"]
        if (r.get("info") or {}).get("baseline"):
            base_of[key] = r["info"]["baseline"]
        series.setdefault((str(p.get("algorithm", "?")), r.get("backend", "?")), {})[int(n)] = m["value"]
    if not series:
        return None
    ratios = {}  # (algorithm, backend) → {N: ratio}
    for (case_name, backend), base in base_of.items():
        if (base, backend) in rate:
            alg = case_name.split("/alg:")[-1]
            n = int(case_name.split("/N:")[1].split("/")[0])
            ratios.setdefault((alg, backend), {})[n] = rate[(case_name, backend)] / rate[(base, backend)]
    fig, (a1, a2) = style.figure("dot_general: throughput vs size, against the library called directly", "", "",
                                 size=(13, 5.6), ncols=2)
    keys = sorted(series, key=lambda k: (k[0] not in BASELINES, k))
    colors = dict(zip(keys, style.colors(len(keys))))
    sizes = sorted({n for pts in series.values() for n in pts})
    for k in keys:
        pts = sorted(series[k].items())
        base = k[0] in BASELINES
        a1.plot([n for n, _ in pts], [v for _, v in pts], marker="s" if base else "o", ms=7 if base else 4,
                lw=3 if base else 1.4, color="black" if base else colors[k], ls="-",
                mfc=colors[k] if base else None, label=f"{k[0]} ({k[1]})" + (" — direct call" if base else ""))
    for k in sorted(ratios):
        pts = sorted(ratios[k].items())
        a2.plot([n for n, _ in pts], [v for _, v in pts], marker="o", ms=4, lw=1.2, color=colors.get(k), label=f"{k[0]} ({k[1]})")
    a2.axhline(1.0, color="black", lw=2, label="= the direct call")
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([str(n) for n in sizes])
        ax.minorticks_off()
        ax.set_xlabel("N (square f32 product N×N · N×N)")
    a1.set_ylabel("throughput (GFLOP/s)")
    style.auto_log(a1, "y", [v for pts in series.values() for v in pts.values()])
    a2.set_ylabel("GFLOP/s of the preset / GFLOP/s of the direct call")
    style.auto_log(a2, "y", [v for pts in ratios.values() for v in pts.values()] + [1.0])
    a1.set_title("higher is better", fontsize="medium")
    a2.set_title("ratio to the BLAS/cuBLAS baseline of the same run" if ratios else "no baseline record in this report",
                 fontsize="medium")
    style.legend(a1, len(keys), "preset (backend)")
    style.legend(a2, len(ratios) + 1, "preset (backend)")
    return style.save(fig, out, "dot_gflops.png", "GFLOP/s vs size and the ratio to BLAS/cuBLAS",
                      f"{len(ratios)} preset(s) over their baseline; "
                      "the black line is sgemm/cublasGemmEx called directly on the same operands; "
                      "X3/X6/X9 presets run 3/6/9 products, so their ratio shows the cost of emulated f32")
