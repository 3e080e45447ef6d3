# scan_hoist suite plot: for each case, the speedup of hoisting reductions out of the scan
# and the peak memory with and without it (every byte-valued metric, side by side).
from reports.plots import style
from reports.records import label, metrics

SUITE = "scan_hoist"
PROMISES = ("scan_hoist_speedup_memory.png",)  # the PNGs users are told to expect (reports/README.md)


def plot(recs, out):
    rows = [(label(r) + ("" if r.get("backend") in (None, "cpu") else f" ({r['backend']})"), metrics(r))
            for r in recs if r["verdict"] == "pass"]
    rows = [(name, ms) for name, ms in rows if "speedup" in ms]
    if not rows:
        return []
    mem_names = sorted({n for _, ms in rows for n, m in ms.items() if str(m.get("unit", "")).lower() in ("b", "bytes")})
    fig, (a1, a2) = style.figure("scan reduction hoisting: speedup and peak memory", "", "",
                                 size=(12, max(4.0, 0.35 * len(rows) + 1.5)), ncols=2)
    ys = list(range(len(rows)))
    speedups = [ms["speedup"]["value"] for _, ms in rows]  # < 1: hoisting made it slower, drawn apart
    a1.barh(ys, speedups, color=["tab:green" if v >= 1 else "tab:red" for v in speedups], edgecolor="none")
    a1.axvline(1.0, color="tab:red", ls="--", lw=1, label="no speedup")
    a1.set_xlabel("speedup (× faster with hoisting)")
    bar = 0.8 / max(1, len(mem_names))
    for j, n in enumerate(mem_names):
        a2.barh([y + j * bar for y, (_, ms) in zip(ys, rows) if n in ms],
                [ms[n]["value"] for _, ms in rows if n in ms], bar, label=n)
    a2.set_xlabel("peak memory (bytes)")
    if style.spans_decades([ms[n]["value"] for _, ms in rows for n in mem_names if n in ms]):
        style.bytes_axis(a2, "x", 2)
    else:
        a2.xaxis.set_major_formatter(style.FuncFormatter(style.human_bytes))
    for ax in (a1, a2):
        ax.set_yticks(ys)
        ax.set_yticklabels([name for name, _ in rows] if ax is a1 else [], fontsize="small")
        ax.set_ylabel("case" if ax is a1 else "")
        ax.invert_yaxis()
    from matplotlib.patches import Patch

    handles = a1.get_legend_handles_labels()[0] + [Patch(color="tab:green", label="faster with hoisting (> 1)"),
                                                   Patch(color="tab:red", label="slower with hoisting (< 1)")]
    a1.legend(handles=handles, fontsize="small", loc="best")
    style.legend(a2, len(mem_names), "metric")
    return [style.save(fig, out, "scan_hoist_speedup_memory.png", "scan hoisting: speedup and peak memory",
                       "speedup > 1 means hoisting helps; peak memory lower is better")]
