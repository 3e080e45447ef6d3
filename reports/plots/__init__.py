# Plot registry: each suite module (SUITE, plot(records, out_dir) -> [Plot]) draws what that
# suite's users look at; suites without one, or whose records it can't use, get generic plots.
import fnmatch

from reports.plots import collectives, dot, generic, lstm, remat, scan_hoist

SPECIFIC = {m.SUITE: m.plot for m in (dot, lstm, collectives, remat, scan_hoist)}
PROMISES = {m.SUITE: m.PROMISES for m in (dot, lstm, collectives, remat, scan_hoist)}


def missing_promises(suite, plots):
    """The promised PNG names (glob patterns) of `suite` that no drawn plot matches."""
    return [pat for pat in PROMISES.get(suite, ()) if not any(fnmatch.fnmatch(p.file, pat) for p in plots)]


def plots_for(suite, recs, out_dir):
    plots = SPECIFIC[suite](recs, out_dir) if suite in SPECIFIC else []
    return plots or generic.plot(suite, recs, out_dir)
