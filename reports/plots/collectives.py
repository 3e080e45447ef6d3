# collectives suite plots, nccl-tests style: bus bandwidth vs message size, both axes log2,
# one figure per op; tandem and the raw library call it wraps (MPI_Allreduce …) on the same
# figure, out-of-place (solid) and in-place (dashed) as separate series.
from matplotlib.ticker import FuncFormatter

from reports.plots import style
from reports.records import metrics, num

SUITE = "collectives"
PROMISES = ("collectives_busbw_*.png",)  # one per collective op  # the PNGs users are told to expect (reports/README.md)


def attr(r, p, k):
    if k == "backend":
        return r.get("backend")
    if k == "ranks":
        return (r.get("context") or {}).get("ranks", p.get("ranks"))
    return p.get(k)


def series_key(r, p, many):
    """(who, place): tandem or the raw call (with what else varies between the op's records),
    and out-of-place / in-place."""
    who = "tandem" if p.get("impl", "tandem") == "tandem" else str(p.get("call", "raw"))
    extra = [f"{attr(r, p, k)}{' ranks' if k == 'ranks' else ''}" for k in many]
    return who + (f" ({', '.join(extra)})" if extra else ""), "in-place" if p.get("inplace") else "out-of-place"


def plot(recs, out):
    by_op = {}
    for r in recs:
        p, ms = r.get("params") or {}, metrics(r)
        size = num(p.get("bytes", p.get("size")))
        if r["verdict"] != "pass" or not size or "busbw" not in ms or ms["busbw"]["value"] <= 0:
            continue
        by_op.setdefault(str(p.get("op", "?")), []).append((r, p, size, ms["busbw"]["value"]))
    plots = []
    for op in sorted(by_op):
        rows = by_op[op]
        # Parameters that take several values among this op's records tell the series apart.
        many = [k for k in ("dtype", "redop", "groups", "ranks", "backend")
                if len({str(attr(r, p, k)) for r, p, _, _ in rows}) > 1]
        series = {}
        for r, p, size, bus in rows:
            series.setdefault(series_key(r, p, many), []).append((size, bus))
        fig, ax = style.figure(f"{op}: bus bandwidth vs message size", "message size S (bytes, log2)",
                               "busbw (GB/s, log2)")
        who = sorted({w for w, _ in series}, key=lambda w: (not w.startswith("tandem"), w))
        cols = dict(zip(who, style.colors(len(who))))
        for w, place in sorted(series, key=lambda k: (who.index(k[0]), k[1] == "in-place")):
            pts = sorted(series[(w, place)])
            oop = place == "out-of-place"
            ax.plot([s for s, _ in pts], [b for _, b in pts], marker="o" if oop else "s", ms=3, ls="-" if oop else "--",
                    color=cols[w], label=f"{w}, {place}")
        style.bytes_axis(ax, "x", 2)
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:.3g}"))  # GB/s, not powers of 2
        style.legend(ax, len(series))
        plots.append(style.save(fig, out, f"collectives_busbw_{style.safe_name(op)}.png",
                                f"{op}: busbw vs size, tandem and the raw call",
                                "higher is better; busbw = S / mean time × the op's bus factor (nccl-tests); "
                                "solid out-of-place, dashed in-place"))
    return plots
