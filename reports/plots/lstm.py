# lstm suite plot: GFLOP/s per performance shape, forward and training side by side, a bar per implementation — tandem's
# CPU kernel (the lstm_fwd/lstm_bwd primitives on the CPU), the Program path (scan over a cell), cuDNN (the primitives
# on CUDA) and PyTorch's nn.LSTM (records from tools/oracles/torch_lstm_bench.py --records) — with the BLAS sgemm rate
# of the same report (the dot suite's dot/perf/N:*/blas_sgemm and cublas_gemm_ex cases) as the ceiling line. GFLOP/s is
# recomputed here from the shape's forward FLOPs (params fwd_projection_flops + fwd_recurrent_flops) and the median
# time, with training = 3 × forward for every series, so implementations whose writers count training differently still
# compare.
import math

from reports.plots import style
from reports.records import metrics, num, time_median

SUITE = "lstm"
PROMISES = ("lstm_gflops.png",)  # the PNGs users are told to expect (reports/README.md)
PERF_ONLY = ("lstm_gflops.png",)  # from the nightly perf cases: not expected of a quick-profile run
NEEDS_ALL_RECORDS = True  # the sgemm ceiling comes from the dot suite's records
TRAIN_FACTOR = 3.0  # forward + backward = 3 × forward GEMM FLOPs (PyTorch fastrnns' convention)
CEILINGS = {"blas_sgemm": ("BLAS sgemm (CPU)", "black"), "cublas_gemm_ex": ("cublasGemmEx f32 (CUDA)", "0.45")}
SERIES_COLORS = {"tandem CPU kernel": "tab:blue", "tandem Program (scan)": "tab:cyan", "PyTorch nn.LSTM (CPU)": "tab:orange",
                 "tandem cuDNN": "tab:green", "PyTorch nn.LSTM (cuDNN)": "tab:red"}  # tandem cool, PyTorch warm


def series(rec):
    """Which implementation a perf record measured."""
    p = rec.get("params") or {}
    if p.get("implementation"):
        return str(p["implementation"])
    if p.get("path") == "program":
        return "tandem Program (scan)"
    return "tandem cuDNN" if rec.get("backend") == "cuda" else "tandem CPU kernel"


def shape_key(rec):
    """(mode, label) shared by every implementation timed on the same shape."""
    p = rec.get("params") or {}
    parts = rec["case"].split("/")
    tag = parts[2] if len(parts) > 2 and parts[1] == "perf" else "?"
    bidi = " bidi" if p.get("bidirectional") in (True, 1, "true") else ""
    return (str(p.get("mode")), f"{tag} B{p.get('batch')} T{p.get('seq')} H{p.get('hidden')} L{p.get('layers')}{bidi}")


def gflops(rec):
    p, t = rec.get("params") or {}, time_median(rec)
    fwd = (num(p.get("fwd_projection_flops")) or 0) + (num(p.get("fwd_recurrent_flops")) or 0)
    if fwd <= 0 or not t or t <= 0 or p.get("mode") not in ("fwd", "train"):
        return None
    g = fwd * (TRAIN_FACTOR if p["mode"] == "train" else 1.0) / t * 1e-9
    return g if math.isfinite(g) else None  # a 5e-324 s median is a time > 0, but no bar's length


def ceilings(all_recs):
    """{label: (GFLOP/s, colour, N)}: the fastest size of each direct GEMM baseline."""
    best = {}
    for r in all_recs:
        p = r.get("params") or {}
        alg, g = str(p.get("algorithm", "")), metrics(r).get("gflops")
        if alg in CEILINGS and g and r["verdict"] == "pass":
            name, color = CEILINGS[alg]
            if name not in best or g["value"] > best[name][0]:
                best[name] = (g["value"], color, p.get("n"))
    return best


def plot(recs, out, all_recs=()):
    table = {}  # (mode, shape) → {series: GFLOP/s}
    for r in recs:
        g = gflops(r) if r["verdict"] == "pass" else None
        if g:
            table.setdefault(shape_key(r), {})[series(r)] = g
    if not table:
        return []
    names = [s for s in SERIES_COLORS if any(s in row for row in table.values())]
    names += sorted({s for row in table.values() for s in row} - set(names))
    modes = [m for m in ("fwd", "train") if any(k[0] == m for k in table)]
    rows = {m: sorted(k[1] for k in table if k[0] == m) for m in modes}
    tallest = max(len(v) for v in rows.values())
    fig, axes = style.figure("LSTM throughput per shape: tandem vs PyTorch nn.LSTM, BLAS sgemm as the ceiling",
                             "GFLOP/s (GEMM FLOPs / median time)", "", ncols=len(modes),
                             size=(7.5 * len(modes), max(4.5, 0.22 * tallest * len(names) + 2.5)))
    axes = axes if len(modes) > 1 else [axes]
    colors = dict(zip(names, style.colors(len(names))), **{s: c for s, c in SERIES_COLORS.items() if s in names})
    ceil = ceilings(all_recs)
    values = [v for row in table.values() for v in row.values()] + [c[0] for c in ceil.values()]
    bar = 0.8 / len(names)
    for ax, mode in zip(axes, modes):
        shapes = rows[mode]
        for j, s in enumerate(names):
            pts = [(i + j * bar, table[(mode, sh)][s]) for i, sh in enumerate(shapes) if s in table[(mode, sh)]]
            if pts:
                ax.barh([y for y, _ in pts], [v for _, v in pts], bar, color=colors[s], label=s)
            for y, v in pts:  # the value at the bar's end: log bars are hard to read off the axis
                ax.annotate(f"{v:.0f}" if v >= 100 else f"{v:.3g}", (v, y), xytext=(2, 0), textcoords="offset points", va="center", fontsize=6.5)
        for name, (v, color, n) in sorted(ceil.items()):
            ax.axvline(v, color=color, ls="--", lw=1.4, label=f"ceiling: {name}, N={n}: {v:.0f} GFLOP/s")
        ax.set_yticks([i + 0.4 - bar / 2 for i in range(len(shapes))])
        ax.set_yticklabels(shapes, fontsize="small")
        ax.set_ylim(len(shapes) - 0.1, -0.3)
        ax.set_title("forward (inference)" if mode == "fwd" else f"training (fwd + bwd, {TRAIN_FACTOR:.0f} × fwd FLOPs)",
                     fontsize="medium")
        if style.auto_log(ax, "x", values):
            ax.set_xlim(min(values) / 2, max(values) * 3)
        else:
            ax.set_xlim(0, max(values) * 1.15)
    axes[0].set_ylabel("shape")
    handles = {}
    for ax in axes:  # one legend for both panels (a series may be timed in one mode only)
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(3, len(handles)), fontsize="small",
               title="implementation", bbox_to_anchor=(0.5, 0.0))
    rect = (0, min(0.4, (0.5 + 0.22 * ((len(handles) + 2) // 3)) / fig.get_figheight()), 1, 1)
    caption = (f"series: {', '.join(names)}; "
               + (f"ceiling: {', '.join(sorted(ceil))}" if ceil else
                  "no sgemm ceiling: add the dot suite's dot/perf/N:*/blas_sgemm records to the report")
               + "; shape: label, B batch, T steps, H hidden, L layers; higher is better; "
               "FLOPs are the GEMM terms (2·B·T·4H·(In + H) per layer and direction)")
    return [style.save(fig, out, "lstm_gflops.png", "LSTM GFLOP/s per shape and implementation", caption, rect)]
