# Plot registry: each suite module (SUITE, plot(records, out_dir) -> [Plot]) draws what that
# suite's users look at; suites without one, or whose records it can't use, get generic plots.
from reports.plots import collectives, dot, generic, lstm, remat, scan_hoist

SPECIFIC = {m.SUITE: m.plot for m in (dot, lstm, collectives, remat, scan_hoist)}


def plots_for(suite, recs, out_dir):
    plots = SPECIFIC[suite](recs, out_dir) if suite in SPECIFIC else []
    return plots or generic.plot(suite, recs, out_dir)
