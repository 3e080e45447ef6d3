# remat suite plot: the memory–time trade-off of each rematerialization policy, one figure per
# model configuration: time per step (ms) vs measured peak memory (MB), a point per policy, the
# Pareto front joined by a step line. Only front points are numbered on the plot (long policy
# names would overlap); a table beside it lists every policy with its numbers.
import re

from reports.plots import style
from reports.records import label, metrics, time_median

SUITE = "remat"
PROMISES = ("remat_pareto_*.png",)  # one per model configuration  # the PNGs users are told to expect (reports/README.md)
# What suites/remat writes: the measured peak of the backward pass and the planner's prediction.
# `peak_bytes` is the name records used before; read it when a record has nothing newer.
MEASURED, PREDICTED, LEGACY = "measured_peak_bytes", "predicted_peak_bytes", "peak_bytes"
MB, MS = 1e6, 1e-3


def pareto(points):
    """The points no other point beats on both time and memory, by increasing time."""
    front, best_mem = [], float("inf")
    for p in sorted(points):
        if p[1] < best_mem:
            front.append(p)
            best_mem = p[1]
    return front


def configuration(rec):
    """The case without its policy: one figure per model and shape (and rerun mode)."""
    return re.sub(r"/policy:.*$", "", label(rec)) + ("" if rec.get("backend") in (None, "cpu") else f" ({rec['backend']})")


def points_by_configuration(recs):
    """{configuration: [(time s, measured bytes, policy, predicted bytes or None)]}."""
    out = {}
    for r in recs:
        ms, t = metrics(r), time_median(r)
        peak = ms.get(MEASURED) or ms.get(LEGACY)
        if r["verdict"] != "pass" or t is None or peak is None:
            continue
        pred = ms.get(PREDICTED)
        policy = str((r.get("params") or {}).get("policy", "?"))
        out.setdefault(configuration(r), []).append((t, peak["value"], policy, pred["value"] if pred else None))
    return out


def failed_by_configuration(recs):
    """{configuration: [(policy, verdict)]} of the policies that did not pass: they have no
    trustworthy point, but the figure lists them, marked, rather than drop them in silence."""
    out = {}
    for r in recs:
        if r["verdict"] in ("fail", "error"):  # a skip is no result, said elsewhere
            policy = str((r.get("params") or {}).get("policy", "?"))
            out.setdefault(configuration(r), []).append((policy, r["verdict"]))
    return out


def short(name, width=50):
    """Long composed policy names keep their head and tail: 'save_from_both_po…_names(act))'."""
    return name if len(name) <= width else name[: width // 2 - 1] + "…" + name[-(width // 2):]


def table(ax, pts, front, failed=()):
    rank = {p: i + 1 for i, p in enumerate(front)}
    rows = [[str(rank.get(p, "")), short(p[2]), f"{p[0] / MS:.3g}", f"{p[1] / MB:.4g}",
             "—" if p[3] is None else f"{p[3] / MB:.4g}"] for p in sorted(pts, key=lambda p: (p not in rank, p[0]))]
    rows += [["✗", short(policy), verdict.upper(), "—", "—"] for policy, verdict in failed]
    ax.axis("off")
    t = ax.table(cellText=rows, colLabels=["front", "policy", "time (ms)", "peak (MB)", "predicted (MB)"],
                 loc="upper center", cellLoc="left", colLoc="left", colWidths=[0.09, 0.55, 0.12, 0.12, 0.16])
    t.auto_set_font_size(False)
    t.set_fontsize(7.5)
    t.scale(1, 1.25)
    for (row, _), cell in t.get_celld().items():
        cell.set_edgecolor("0.8")
        if row == 0:
            cell.set_facecolor("0.92")
        elif rows[row - 1][0] == "✗":
            cell.set_facecolor("#fdd")
        elif rows[row - 1][0]:
            cell.set_facecolor("#fff1dc")


def plot(recs, out, prefix="remat"):
    """One front per configuration; `prefix` names the files (suite program draws the same front)."""
    plots = []
    points, failed = points_by_configuration(recs), failed_by_configuration(recs)
    for config in sorted(set(points) | set(failed)):
        pts, bad = points.get(config, []), failed.get(config, [])
        fig, (ax, tab) = style.figure(f"remat on {config}: peak memory vs time per policy",
                                      "time per step (ms)", "peak memory (MB)", size=(13, 5.2), ncols=2,
                                      width_ratios=(1, 1.15))
        ax.scatter([p[0] / MS for p in pts], [p[1] / MB for p in pts], color="tab:blue", zorder=3, label="measured peak")
        pred = [p for p in pts if p[3] is not None]
        if pred:
            ax.scatter([p[0] / MS for p in pred], [p[3] / MB for p in pred], facecolors="none", edgecolors="tab:gray",
                       s=90, zorder=2, label="predicted peak")
        front = pareto(pts)
        ax.step([p[0] / MS for p in front], [p[1] / MB for p in front], where="post", color="tab:orange", lw=1.5,
                label="Pareto front (measured)")
        for i, p in enumerate(front):
            ax.annotate(str(i + 1), (p[0] / MS, p[1] / MB), textcoords="offset points", xytext=(5, 5),
                        fontsize="small", fontweight="bold", color="tab:orange")
        style.legend(ax, 3)
        table(tab, pts, front, bad)
        tab.set_title(f"{len(pts)} policies; numbered: on the front"
                      + (f"; ✗ {len(bad)} failed, not plotted: {', '.join(short(p, 30) for p, _ in bad)}" if bad else ""),
                      fontsize="medium", color="tab:red" if bad else "black")
        plots.append(style.save(fig, out, f"{prefix}_pareto_{style.safe_name(config)}.png", f"{prefix} Pareto: {config}",
                                "down and left is better; policies off the front are dominated"))
    return plots
