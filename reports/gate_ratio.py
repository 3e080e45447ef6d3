# Sweep records (`tandem collectives`) gated on tandem's time relative to the raw library call
# of the same run: a slower link or a busier machine slows both calls alike and
# cancels in the ratio, so only tandem's own overhead gates. The raw records are shown, not gated.
from reports import records, stats

RAW = "RAW"
RAW_NOTE = "not gated: the library call is the yardstick"


def call_key(case):
    """(the case with its `call:` segment blanked, the call) or None: a sweep's tandem row and
    its raw call's row differ only there."""
    parts = case.split("/")
    i = next((i for i, p in enumerate(parts) if p.startswith("call:")), None)
    return None if i is None else ("/".join(parts[:i] + ["call:*"] + parts[i + 1:]), parts[i][5:])


def partners(recs):
    """{tandem case: raw case} among one run's passing, timed records."""
    calls = {}
    for r in recs:
        k = call_key(r["case"]) if r["verdict"] == "pass" and records.timing_samples(r) else None
        if k:
            calls.setdefault(k[0], {})[k[1]] = r["case"]
    raws = lambda by_call: [case for call, case in by_call.items() if call != "tandem"]
    return {g["tandem"]: raws(g)[0] for g in calls.values() if "tandem" in g and len(raws(g)) == 1}


def paired(base_recs, cur_recs):
    """The pairs whole in both runs; a record missing its partner on either side gates absolutely."""
    b = partners(base_recs)
    return {t: r for t, r in partners(cur_recs).items() if b.get(t) == r}


def relative(rec, raw):  # over the same run's raw median: a shift common to both calls cancels
    m = stats.median(records.timing_samples(raw))
    return [x / m for x in records.timing_samples(rec)]


def paired_in_all(runs):
    """The pairs whole in every one of `runs` (records lists, one per process; both sides')."""
    maps = [partners(recs) for recs in runs]
    return {t: r for t, r in maps[0].items() if all(m.get(t) == r for m in maps[1:])} if maps else {}


def run_series(runs, pairs, value):
    """{tandem case: [its run's number over its raw call's, one per run]} for the run-level gate
    (reports/gate_runs.py): each process's ratio of the two medians, `value(record)` giving a
    passing record's number (run_stats.run_value) or None."""
    out = {}
    for recs in runs:
        by_case = {r["case"]: r for r in recs if r.get("verdict") == "pass"}
        for t, raw in pairs.items():
            x, y = (value(by_case[c]) if c in by_case else None for c in (t, raw))
            if x is not None and y is not None and y > 0:
                out.setdefault(t, []).append(x / y)
    return out


def comparer(pairs, base, cur, absolute):
    """compare(b, c, cfg) for gate.run: a paired tandem case on time/raw, the others by `absolute`."""
    def compare(b, c, cfg):
        raw = pairs.get(c["case"])
        if raw is None:
            return absolute(b, c, cfg)
        return [stats.compare_samples(relative(b, base[raw]), relative(c, cur[raw]), "lower",
                                      cfg.effect(c["suite"]), cfg.alpha, "time/raw")]
    return compare


def informational(comps):
    """A raw call's comparisons (kept out of the family's correction): their change shown, no verdict."""
    for x in comps:
        x.verdict, x.note = RAW, RAW_NOTE
    return comps
