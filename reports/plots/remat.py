# remat suite plot: the memory–time trade-off of each rematerialization policy, one figure per
# model: time per step vs peak bytes, a point per policy, the Pareto front joined by a line.
from reports.plots import style
from reports.records import metrics, time_median

SUITE = "remat"


def pareto(points):
    """The points no other point beats on both time and memory, by increasing time."""
    front, best_mem = [], float("inf")
    for t, mem, name in sorted(points):
        if mem < best_mem:
            front.append((t, mem, name))
            best_mem = mem
    return front


def plot(recs, out):
    models = {}
    for r in recs:
        p, ms, t = r.get("params") or {}, metrics(r), time_median(r)
        if r["verdict"] != "pass" or t is None or "peak_bytes" not in ms:
            continue
        name = str(p.get("policy", "?")) + ("" if r.get("backend") in (None, "cpu") else f" ({r['backend']})")
        models.setdefault(str(p.get("model", "model")), []).append((t, ms["peak_bytes"]["value"], name))
    plots = []
    for model in sorted(models):
        pts = models[model]
        fig, ax = style.figure(f"remat on {model}: peak memory vs time per policy",
                               "time per step (s)", "peak memory (bytes)")
        ax.scatter([t for t, _, _ in pts], [m for _, m, _ in pts], color="tab:blue", zorder=3)
        for t, m, name in pts:
            ax.annotate(name, (t, m), textcoords="offset points", xytext=(5, 4), fontsize="small")
        front = pareto(pts)
        ax.step([t for t, _, _ in front], [m for _, m, _ in front], where="post", color="tab:orange",
                lw=1.5, label="Pareto front")
        if style.spans_decades([m for _, m, _ in pts], 1.0):
            style.bytes_axis(ax, "y", 2)
        else:
            ax.yaxis.set_major_formatter(style.FuncFormatter(style.human_bytes))
        style.auto_log(ax, "x", [t for t, _, _ in pts])
        style.legend(ax, 1)
        plots.append(style.save(fig, out, f"remat_pareto_{style.safe_name(model)}.png",
                                f"remat Pareto: {model}", "down and left is better; policies off the front are dominated"))
    return plots
