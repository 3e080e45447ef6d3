# `tandem run --program` plots (suite "program", suites/program_fuzz/program_check.h): the memory–time front of the
# checkpoint policies on the user's program (the remat suite's figure, from the vjp/policy:* records), and per program
# the error each dot_general precision leaves against the program's f64 truth, with its time when the run was timed.
import re

from reports.plots import remat, style
from reports.records import metrics, time_median

SUITE = "program"
PROMISES = ("program_pareto_*.png",)  # one per imported program; needs `tandem run` (timed)
ERROR = "normwise_error_vs_f64"


def plot(recs, out):
    plots = remat.plot([r for r in recs if "/vjp/policy:" in r["case"]], out, prefix="program")
    return plots + precisions(recs, out)


def precisions(recs, out):
    by_program = {}
    for r in recs:
        m = re.match(r"program/(.+)/dot/alg:([^/]+)", r["case"])
        err = metrics(r).get(ERROR)
        if m and r["verdict"] == "pass" and err:
            by_program.setdefault(m.group(1), []).append((m.group(2), err["value"], time_median(r)))
    plots = []
    for name, rows in sorted(by_program.items()):
        rows.sort(key=lambda x: x[1])
        fig, ax = style.figure(f"{name}: output error per dot_general precision", "normwise error vs f64 "
                                  "(max |out - f64| / max |f64|)", "", size=(9, 0.32 * len(rows) + 1.6))
        ax.barh(range(len(rows)), [max(v, 1e-18) for _, v, _ in rows], color="tab:blue")
        ax.set_yticks(range(len(rows)), [f"{a}" + ("" if t is None else f"  ({t * 1e3:.3g} ms)") for a, _, t in rows])
        ax.set_xscale("log")
        ax.invert_yaxis()
        plots.append(style.save(fig, out, f"program_dot_{style.safe_name(name)}.png", f"precisions: {name}",
                                "each dot_general of the program under one precision; shorter is closer to f64"))
    return plots
