# The single-run gate's yardstick: each record times an anchor interleaved with the case (harness/anchor.h: the raw
# library call the case stands for, else a fixed canary), so the gate judges the case's time over its anchor's,
# repetition by repetition (process CPU times on the CPU: waiting for a core on a shared host is in neither; wall times
# on CUDA). Between two runs a busier machine or a slower clock moves both alike and cancels in the ratio; tandem's own
# extra cost does not. What one run per side cannot know is how much the ratio itself moves between runs: a change
# inside that band (measured A/A, docs/CI.md) is INCONCLUSIVE, not a regression, with what would decide it. The band
# widens by half of what the anchor itself moved between the two runs: the ratio cancels a busier machine only to first
# order (a case's memory-bound part feels a neighbour's cache and bandwidth more than a compute-bound GEMM does), so on
# a machine that changed that much one run per side cannot tell. Records without an anchor (older runs) gate on absolute
# time, saying so.
from reports import records, stats

METRIC, CPU_METRIC = "time/anchor", "cpu_time/anchor"
METRICS = (METRIC, CPU_METRIC)
# The ratio's between-run spread on a shared 2-core host, A/A (docs/CI.md "The single-run gate").
DEFAULT_NOISE = 0.12
# The share of the anchor's own between-run change added to the band: seen on this VM, a
# preset's ratio +15 % (its memory-bound TF32 rounding) between A/A runs whose anchor moved +11 %.
ANCHOR_SHARE = 0.5
NO_ANCHOR_NOTE = "no anchor in the records (a run before anchors): absolute time, which a busier machine moves too"


def anchor(rec, field):
    """(name, [the case's time over the anchor run's beside it, per repetition]) or None;
    `field`: "samples" (wall) or "cpu_samples" (process CPU time)."""
    a = rec.get("anchor")
    t = (rec.get("timing") or {}).get(field) or []
    s = (a or {}).get(field) or []
    if not a or not t or len(s) != len(t):
        return None
    pairs = [(records.num(x), records.num(y)) for x, y in zip(t, s)]
    return a.get("name"), [x / y for x, y in pairs if x and y and x > 0 and y > 0]


def anchor_change(b, c, field):
    """How far the anchor's own median time moved from the baseline run to the current one."""
    mb, mc = (stats.median([records.num(v) for v in r["anchor"][field]]) for r in (b, c))
    return stats.relative_change(mb, mc) if mb > 0 and mc > 0 else 0.0


def band(noise, change_of_anchor):
    """The single-run band of one comparison: the ratio's between-run noise, widened by a share
    of what the anchor itself moved (a machine that changed that much leaves the ratio less sure)."""
    return noise + ANCHOR_SHARE * abs(change_of_anchor)


def comparer(absolute):
    """compare(b, c, cfg) for gate.run: when both records carry the same anchor, on the ratio of
    process CPU times (both sides have them: CPU cases; a shared host's waiting for a core is
    not in them, docs/CI.md), else of wall times (CUDA); otherwise `absolute`."""
    def compare(b, c, cfg):
        field = "cpu_samples" if anchor(b, "cpu_samples") and anchor(c, "cpu_samples") else "samples"
        ab, ac = anchor(b, field), anchor(c, field)
        if ab and ac and ab[0] == ac[0]:
            metric = CPU_METRIC if field == "cpu_samples" else METRIC
            x = stats.compare_samples(ab[1], ac[1], "lower", cfg.effect(c["suite"]), cfg.alpha, metric)
            x.anchor, x.anchor_change = ac[0], anchor_change(b, c, field)
            return [x]
        return absolute(b, c, cfg)
    return compare


def raw_calls(recs):
    """The cases another record names as its baseline (`info.baseline`: the library call alone it
    is measured against, dot's blas_sgemm): no tandem code runs in them, and over the canary their
    multi-threaded CPU time moved ±50 % between A/A runs under load, so the single-run gate shows
    them RAW, not gated, as it shows a sweep's raw rows (reports/gate_ratio.py)."""
    named = {f"{r['info']['baseline']}/{r.get('backend')}" for r in recs if (r.get("info") or {}).get("baseline")}
    return {r["case"] for r in recs if r["case"] in named}


def hint(kind):
    return (f"3+ runs per side decide it (ci/gate_ab.sh; `tandem gate --baseline-runs B1 B2 B3 --current-runs C1 C2 C3`), "
            f"or ≥ 2 stored runs of the baseline build in reports/baselines/{kind}/runs/ (`tandem gate --current-runs C`)")


def settle(comps, noise):
    """After the family correction (which re-derives verdicts): a time/anchor change inside
    the single-run band is INCONCLUSIVE; an absolute time comparison says it had no anchor."""
    for x in comps:
        if x.metric in METRICS:
            where, moved = f"over `{x.anchor}`", getattr(x, "anchor_change", 0.0)
            width = band(noise, moved)
            if x.verdict in (stats.SLOWER, stats.FASTER) and abs(x.change) < width:
                x.verdict = stats.INCONCLUSIVE
                why = f" (±{noise:.0%}, + half the anchor's own {moved:+.0%})" if width > noise else ""
                x.note = (f"{where}: {x.change:+.1%} is inside the ±{width:.0%} the ratio moves between runs{why}; "
                          "one run per side cannot tell")
            else:
                x.note = "; ".join(n for n in (where, x.note) if n)
        elif x.metric == "time":
            x.note = "; ".join(n for n in (x.note, NO_ANCHOR_NOTE) if n)
    return comps


def undecided(cases):
    """The cases INCONCLUSIVE only for want of runs (a time/anchor change inside the band)."""
    return [rec["case"] for rec, v, comps in cases if v == stats.INCONCLUSIVE
            and any(x.metric in METRICS and x.verdict == stats.INCONCLUSIVE and x.p_value is not None for x in comps)]
