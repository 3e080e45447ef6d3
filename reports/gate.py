# The A/B gate: correctness first (any failed or errored case in the current run fails it), then performance per case
# against the baseline (reports/stats.py), then one exit code and the markdown summary (reports/gate_summary.py).
import os
import sys
from dataclasses import dataclass

from reports import atomic, baseline, context, cpu_match, exit_codes, gate_anchor, gate_ratio, records, run_completion, stats
from reports.gate_config import config_from_args
from reports.gate_summary import summary

TIME_UNITS = records.TIME_UNITS
SUMMARY_HINT = "give --summary a file of its own, e.g. --summary gate-summary.md"


def noisy(name, unit):
    """Timing-derived metrics vary run to run; deterministic ones (bytes, counts) do not."""
    return unit in TIME_UNITS or str(unit).endswith("/s") or "speedup" in name or name.startswith("time")


def compare_case(b, c, cfg):
    eff, alpha = cfg.effect(c["suite"]), cfg.alpha
    out = []
    bs, cs = records.timing_samples(b), records.timing_samples(c)
    timed = bool(bs and cs)
    if timed:
        out.append(stats.compare_samples(bs, cs, "lower", eff, alpha, "time"))
    bm, cm = records.metrics(b), records.metrics(c)
    for name in [n for n in cm if n in bm]:
        mb, mc = bm[name], cm[name]
        direction = mc.get("direction") or mb.get("direction")
        if direction not in ("lower", "higher"):
            continue
        sb, sc = mb.get("samples"), mc.get("samples")
        if isinstance(sb, list) and isinstance(sc, list) and sb and sc:
            sb, sc = [records.num(x) for x in sb], [records.num(x) for x in sc]
            out.append(stats.compare_samples([x for x in sb if x is not None], [x for x in sc if x is not None],
                                             direction, eff, alpha, name))
        elif not noisy(name, mc.get("unit", "")):
            out.append(stats.compare_values(mb["value"], mc["value"], direction, eff, True, name))
        elif not timed:  # a timing-derived value is judged by the timing samples when there are some
            out.append(stats.compare_values(mb["value"], mc["value"], direction, eff, False, name))
    return out


@dataclass
class Outcome:
    code: int
    failures: list
    cases: list  # (record, verdict, [Comparison])
    not_compared: list  # (case, why): informational (new cases, cases failing in the baseline)
    context_changes: list
    missing: list = None  # (case, baseline verdict): in the baseline, absent from the current run
    newly_skipped: list = None  # (case, skip message): ran in the baseline, skipped now
    incomplete: str = None  # why the current run is known not to have completed, or None
    empty_baseline: bool = False
    ratio_gated: list = ()  # (tandem case, raw case): gated on time relative to their raw call (reports/gate_ratio.py)
    undecided: list = ()  # cases whose time/anchor moved inside the single-run band (reports/gate_anchor.py)


def run(base_recs, cur_recs, cfg, incomplete=None, compare=compare_case, adjust=stats.adjust_family, ratio_pairs=None):
    """Compares the current run with the baseline; `incomplete` says why the current run did
    not complete (reports/run_completion.py), if it did not. `compare(b, c, cfg)` gives a case's
    comparisons and `adjust(comps, alpha)` corrects them as a family (reports/gate_runs.py
    passes its run-level ones). Precedence of the exit code:
    correctness failure (1), then an incomplete run or missing / newly skipped cases (6), then a
    regression (2), then inconclusive (3, also for an empty baseline), then pass.
    With the default `compare` (one run per side), a sweep's tandem case gates on its time
    relative to its raw call's, any other case on its time over the anchor timed beside it
    (reports/gate_anchor.py), a change inside the ratio's between-run band being INCONCLUSIVE;
    another `compare` does the sweep's ratio itself for `ratio_pairs` ({tandem case: raw case}),
    whose raw cases are then shown, not gated (one run per side: also the library calls other
    cases name as their baseline, gate_anchor.raw_calls)."""
    base, current = {r["case"]: r for r in base_recs}, {r["case"]: r for r in cur_recs}
    single = compare is compare_case
    if single:
        pairs = gate_ratio.paired(base_recs, cur_recs)
        compare = gate_ratio.comparer(pairs, base, current, gate_anchor.comparer(compare))
    else:
        pairs = ratio_pairs or {}
    raws = set(pairs.values()) | (gate_anchor.raw_calls(cur_recs) if single else set())
    failures = [r for r in cur_recs if r["verdict"] in records.FAILED]
    cases, not_compared = [], []
    for c in cur_recs:
        b = base.get(c["case"])
        if c["verdict"] == "skip" and (b is None or b["verdict"] == "skip"):  # newly skipped: a failure, below
            not_compared.append((c["case"], "skipped: " + " ".join(str(c.get("message") or "").split())[:100]))
        if c["verdict"] != "pass":
            continue
        if b is None:
            not_compared.append((c["case"], "new: not in the baseline"))
        elif b["verdict"] != "pass":
            not_compared.append((c["case"], f"baseline verdict {b['verdict']}"))
        else:
            cases.append((c, None, compare(b, c, cfg)))
    gated = [x for c, _, comps in cases if c["case"] not in raws for x in comps]
    adjust(gated, cfg.alpha)
    if single:
        gate_anchor.settle(gated, cfg.single_run_noise)
    cases = [(c, gate_ratio.RAW, gate_ratio.informational(comps)) if c["case"] in raws else
             (c, stats.combine([x.verdict for x in comps]), comps) for c, _, comps in cases]
    missing = [(n, b["verdict"]) for n, b in base.items() if n not in current]
    newly_skipped = [(n, " ".join(str(c.get("message") or "").split())[:100]) for n, c in current.items()
                     if c["verdict"] == "skip" and n in base and base[n]["verdict"] != "skip"]
    verdicts = [v for _, v, _ in cases]
    if failures:
        code = exit_codes.CORRECTNESS_FAILURE
    elif missing or newly_skipped or incomplete:
        code = exit_codes.INCOMPLETE
    elif any(v in stats.REGRESSIONS for v in verdicts):
        code = exit_codes.PERFORMANCE_REGRESSION
    elif stats.INCONCLUSIVE in verdicts or not cases:
        code = exit_codes.INCONCLUSIVE
    else:
        code = exit_codes.PASS
    ctx = lambda recs: recs[0].get("context") if recs else {}
    return Outcome(code, failures, cases, not_compared, context.differences(ctx(base_recs), ctx(cur_recs)),
                   missing, newly_skipped, incomplete, not base_recs, sorted(pairs.items()),
                   gate_anchor.undecided(cases))


def main(a):
    cfg = config_from_args(a)
    cur_doc, cur = records.load_document(a.current)
    base_path = baseline.require(a.baseline or baseline.path_for(baseline.resolve_kind(a.machine_kind, cur),
                                                                 a.baselines_root))
    atomic.refuse_input(a.summary, [a.current, base_path, a.config], "--summary", SUMMARY_HINT)
    base = records.load(base_path)  # records.check_timings refused a time <= 0 or NaN in either
    cross = cpu_match.check(base, cur, a.allow_cross_cpu, base_path)
    o = run(base, cur, cfg, run_completion.problem(a.current, cur_doc, cur))
    text = cpu_match.banner(cross) + summary(o, cfg, base_path, a.current, len(base), len(cur))
    return emit(a.summary, text, o.code)


def emit(summary_path, text, code):
    """The summary to --summary and stdout (`tandem gate ... | head` keeps the gate's exit code),
    the verdict to stderr; returns the exit code."""
    if summary_path:
        with atomic.file_lock(summary_path, "gate --summary"):  # never over a running run's summary.md
            atomic.write_text(summary_path, text + "\n")
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    print(f"gate: {exit_codes.NAMES[code]} (exit {code})", file=sys.stderr)
    return code
