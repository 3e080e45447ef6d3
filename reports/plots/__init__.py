# Plot registry: each suite module (SUITE, plot(records, out_dir) -> [Plot]) draws what that
# suite's users look at; suites without one get generic plots; a promised plot without data
# is reported as not drawn (reports/report.py), never replaced by a generic chart.
import fnmatch

from reports.plots import collectives, dot, generic, lstm, program, remat, scan_hoist
from reports.records import run_profile

MODULES = {m.SUITE: m for m in (dot, lstm, collectives, remat, scan_hoist, program)}
SPECIFIC = {s: m.plot for s, m in MODULES.items()}
PROMISES = {s: m.PROMISES for s, m in MODULES.items()}


PERF_ONLY = {s: getattr(m, "PERF_ONLY", ()) for s, m in MODULES.items()}  # drawn from nightly perf cases only


def quick_only(recs):
    """True when every record comes from a quick-profile run: no perf case ran."""
    return bool(recs) and all(run_profile(r) == "quick" for r in recs)


def missing_promises(suite, plots, recs=()):
    """The promised PNG names (glob patterns) of `suite` that no drawn plot matches; a plot of
    perf cases is not promised by a quick-profile run (report.py says where it comes from)."""
    skip = PERF_ONLY.get(suite, ()) if quick_only(recs) else ()
    return [pat for pat in PROMISES.get(suite, ())
            if pat not in skip and not any(fnmatch.fnmatch(p.file, pat) for p in plots)]


def plots_for(suite, recs, out_dir, all_recs=()):
    """A suite with its own plots draws those (what it cannot draw is reported as not drawn,
    not replaced by a per-case time chart of correctness runs); others get the generic plots.
    A module with NEEDS_ALL_RECORDS also sees the other suites' records (lstm: the sgemm ceiling)."""
    if suite in SPECIFIC:
        if getattr(MODULES[suite], "NEEDS_ALL_RECORDS", False):
            return SPECIFIC[suite](recs, out_dir, all_recs)
        return SPECIFIC[suite](recs, out_dir)
    return generic.plot(suite, recs, out_dir)
