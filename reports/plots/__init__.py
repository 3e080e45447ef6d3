# Plot registry: each suite module (SUITE, plot(records, out_dir) -> [Plot]) draws what that
# suite's users look at; suites without one get generic plots; a promised plot without data
# is reported as not drawn (reports/report.py), never replaced by a generic chart.
import fnmatch

from reports.plots import collectives, dot, generic, lstm, remat, scan_hoist

SPECIFIC = {m.SUITE: m.plot for m in (dot, lstm, collectives, remat, scan_hoist)}
PROMISES = {m.SUITE: m.PROMISES for m in (dot, lstm, collectives, remat, scan_hoist)}


def missing_promises(suite, plots):
    """The promised PNG names (glob patterns) of `suite` that no drawn plot matches."""
    return [pat for pat in PROMISES.get(suite, ()) if not any(fnmatch.fnmatch(p.file, pat) for p in plots)]


def plots_for(suite, recs, out_dir):
    """A suite with its own plots draws those (what it cannot draw is reported as not drawn,
    not replaced by a per-case time chart of correctness runs); others get the generic plots."""
    if suite in SPECIFIC:
        return SPECIFIC[suite](recs, out_dir)
    return generic.plot(suite, recs, out_dir)
