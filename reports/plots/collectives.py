# collectives suite plots, nccl-tests style: bus bandwidth vs message size on a log2 axis,
# one figure per op, a line per backend/dtype (algorithm bandwidth dashed).
from reports.plots import style
from reports.records import metrics, num

SUITE = "collectives"
PROMISES = ("collectives_busbw_*.png",)  # one per collective op  # the PNGs users are told to expect (reports/README.md)


def plot(recs, out):
    ops = {}  # op → {series: [(bytes, busbw, algbw)]}
    ranks = set()
    for r in recs:
        p, ms = r.get("params") or {}, metrics(r)
        size = num(p.get("bytes", p.get("size")))
        if r["verdict"] != "pass" or not size or "busbw" not in ms:
            continue
        key = r.get("backend", "?") + (f" {p['dtype']}" if p.get("dtype") else "")
        algbw = ms.get("algbw", {}).get("value")
        ops.setdefault(str(p.get("op", "?")), {}).setdefault(key, []).append((size, ms["busbw"]["value"], algbw))
        ranks.add((r.get("context") or {}).get("ranks"))
    plots = []
    for op in sorted(ops):
        rk = ", ".join(str(x) for x in sorted(ranks, key=str) if x is not None)
        fig, ax = style.figure(f"{op}: bus bandwidth vs message size" + (f" (ranks: {rk})" if rk else ""),
                               "message size (bytes, log2)", "bandwidth (GB/s)")
        n = 0
        for key in sorted(ops[op]):
            pts = sorted(ops[op][key])
            line, = ax.plot([s for s, _, _ in pts], [b for _, b, _ in pts], marker="o", ms=3, label=f"{key} busbw")
            if all(a is not None for _, _, a in pts):
                ax.plot([s for s, _, _ in pts], [a for _, _, a in pts], ls="--", color=line.get_color(), lw=1,
                        label=f"{key} algbw")
                n += 1
            n += 1
        style.bytes_axis(ax, "x", 2)
        style.auto_log(ax, "y", [b for s in ops[op].values() for _, b, _ in s])
        style.legend(ax, n)
        plots.append(style.save(fig, out, f"collectives_busbw_{style.safe_name(op)}.png",
                                f"{op}: busbw vs size", "higher is better; busbw = algbw × the op's bus factor"))
    return plots
