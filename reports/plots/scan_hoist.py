# scan_hoist suite plots: per case, the speedup of hoisting reductions out of the scan and the peak memory with and
# without it; and the length × batch sweep (speedup and peak memory vs the batch size E, a line per scan length L). A
# speedup below 1 (hoisting made it slower) is drawn apart: its bar grows left of 1 on a log axis, red and hatched; in
# the sweep, an open marker under the shaded band.
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from reports.plots import style
from reports.records import label, metrics, num

SUITE = "scan_hoist"
PROMISES = ("scan_hoist_speedup_memory.png", "scan_hoist_sweep.png")  # the PNGs users are told to expect (reports/README.md)
FASTER, SLOWER = "tab:green", "tab:red"
TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100)


def plot(recs, out):
    return [p for p in (per_case(recs, out), sweep(recs, out)) if p]


def speedup_axis(ax, values, axis="x"):
    """A log axis symmetric about 1, so 0.5× and 2× sit equally far from 'no change'."""
    span = min(max(max(values), 1 / min(values), 1.25), 1e6) * 1.15  # finite for a 1e300x or a 5e-324x speedup
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    (ax.set_xlim if axis == "x" else ax.set_ylim)(1 / span, span)
    which = ax.xaxis if axis == "x" else ax.yaxis
    which.set_major_locator(FixedLocator([t for t in TICKS if 1 / span <= t <= span]))  # 0.5× 1× 2×: no crowding
    which.set_major_formatter(style.FuncFormatter(lambda v, _: f"{v:g}×"))
    which.set_minor_formatter(NullFormatter())


def per_case(recs, out):
    rows = [(label(r) + ("" if r.get("backend") in (None, "cpu") else f" ({r['backend']})"), metrics(r))
            for r in recs if r["verdict"] == "pass"]
    rows = [(name, ms) for name, ms in rows if "speedup" in ms and ms["speedup"]["value"] > 0]
    if not rows:
        return None
    mem_names = sorted({n for _, ms in rows for n, m in ms.items() if str(m.get("unit", "")).lower() in ("b", "bytes")})
    fig, (a1, a2) = style.figure("scan reduction hoisting: speedup and peak memory", "", "",
                                 size=(12, max(4.0, 0.35 * len(rows) + 1.8)), ncols=2)
    ys = list(range(len(rows)))
    speedups = [ms["speedup"]["value"] for _, ms in rows]
    slower = [v < 1 for v in speedups]
    a1.barh(ys, [v - 1 for v in speedups], left=1, color=[SLOWER if s else FASTER for s in slower],
            hatch=None, edgecolor="none")
    a1.barh([y for y, s in zip(ys, slower) if s], [v - 1 for v, s in zip(speedups, slower) if s], left=1,
            fill=False, hatch="///", edgecolor="white", lw=0)
    a1.axvline(1.0, color="black", lw=1)
    speedup_axis(a1, speedups)
    a1.set_xlabel("speedup (× faster with hoisting, log: ← slower | faster →)")
    bar = 0.8 / max(1, len(mem_names))
    for j, n in enumerate(mem_names):
        off = (j - (len(mem_names) - 1) / 2) * bar  # centred on the case's row
        a2.barh([y + off for y, (_, ms) in zip(ys, rows) if n in ms], [ms[n]["value"] for _, ms in rows if n in ms],
                bar, label=n.replace("peak_above_inputs_", ""))
    a2.set_xlabel("peak memory above the inputs")
    if style.spans_decades([ms[n]["value"] for _, ms in rows for n in mem_names if n in ms]):
        style.bytes_axis(a2, "x", 2)
    else:
        a2.xaxis.set_major_formatter(style.FuncFormatter(style.human_bytes))
    for ax in (a1, a2):
        ax.set_yticks(ys)
        ax.set_yticklabels([name for name, _ in rows] if ax is a1 else [], fontsize="small")
        ax.set_ylabel("case" if ax is a1 else "")
        ax.set_ylim(len(rows) - 0.5, -0.5)
    a1.legend(handles=[Patch(color=FASTER, label=f"faster with hoisting (> 1): {slower.count(False)}"),
                       Patch(facecolor=SLOWER, hatch="///", edgecolor="white", label=f"slower with hoisting (< 1): {sum(slower)}")],
              fontsize="small", loc="best")
    style.legend(a2, len(mem_names), "program")
    return style.save(fig, out, "scan_hoist_speedup_memory.png", "scan hoisting: speedup and peak memory",
                      "speedup > 1 means hoisting helps (bars right of 1); peak memory lower is better")


def sweep(recs, out):
    """Speedup and peak memory over the sweep's (L, E) grid (info.table of the sweep case)."""
    table = []
    for r in recs:
        t = (r.get("info") or {}).get("table")
        if r["verdict"] == "pass" and "/sweep/" in r["case"] and isinstance(t, list):
            table += [row for row in t if isinstance(row, dict) and num(row.get("speedup")) and num(row.get("E"))]
    if not table:
        return None
    lengths = sorted({int(row["L"]) for row in table})
    sizes = sorted({int(row["E"]) for row in table})
    fig, (a1, a2) = style.figure("scan hoisting over the length × batch sweep (MSE)", "", "", size=(13, 5.2), ncols=2)
    for L, color in zip(lengths, style.colors(len(lengths))):
        pts = sorted((int(row["E"]), row) for row in table if int(row["L"]) == L)
        es, sp = [e for e, _ in pts], [num(row["speedup"]) for _, row in pts]
        a1.plot(es, sp, color=color, lw=1.2, label=f"L = {L}")
        a1.scatter([e for e, v in zip(es, sp) if v >= 1], [v for v in sp if v >= 1], color=color, s=36, zorder=3)
        a1.scatter([e for e, v in zip(es, sp) if v < 1], [v for v in sp if v < 1], facecolors="white",
                   edgecolors=color, s=36, zorder=3)
        for key, ls in (("peak_original_bytes", "-"), ("peak_hoisted_bytes", "--")):
            a2.plot(es, [num(row.get(key)) for _, row in pts], color=color, ls=ls, marker="o", ms=3,
                    label=f"L = {L}, {key.split('_')[1]}")
    speedup_axis(a1, [num(row["speedup"]) for row in table], axis="y")
    a1.axhline(1.0, color="black", lw=1)
    a1.axhspan(a1.get_ylim()[0], 1.0, color=SLOWER, alpha=0.07, label="slower with hoisting (open markers)")
    a1.set_ylabel("speedup (× faster with hoisting, log)")
    a1.set_title("filled: faster with hoisting; open: slower", fontsize="medium")
    style.bytes_axis(a2, "y", 2)
    a2.set_ylabel("peak memory above the inputs")
    a2.set_title("solid: original program; dashed: hoisted", fontsize="medium")
    for ax in (a1, a2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes)
        ax.set_xticklabels([count_label(e) for e in sizes])
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("E (batch × features per step)")
    style.legend(a1, len(lengths) + 1, "scan length")
    style.legend(a2, 2 * len(lengths), "scan length, program")
    return style.save(fig, out, "scan_hoist_sweep.png", "scan hoisting over the length × batch sweep",
                      f"{len(table)} (L, E) points; hoisting should win as E grows and keep the peak flat in L")


def count_label(n):
    """256, 4K, 64K, 1M: powers of two read as sizes, not as 2^18."""
    for unit, size in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)
