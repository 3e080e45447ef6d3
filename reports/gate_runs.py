# The run-level gate: `tandem gate --baseline-runs B1 B2 ... --current-runs C1 ...`. Each records file is one process
# (ci/gate_ab.sh writes them interleaved ABAB… from two binaries); a case's number per process is the median of its
# repetitions, and the two sides' run medians are compared by reports/run_stats.py, so the spread between processes is
# the noise a change is judged against. With stored baseline runs only (reports/baselines/<kind>/ runs/*.json, several
# runs of the baseline build) the spread comes from those runs alone and a single current run may be gated: each case's
# threshold follows its own history. A sweep's tandem row gates on its run medians over its raw call's, as in the
# single-run gate.
import glob
from pathlib import Path

from reports import atomic, baseline, cpu_match, gate, gate_ratio, records, run_completion, run_stats
from reports.exit_codes import BadInput
from reports.gate_config import config_from_args
from reports.gate_summary import summary

DEFAULT_FLOOR = 0.03  # run-level mode: smallest change that counts unless --min-effect says


def load_runs(paths):
    """[(path, document, records)] of each records file: one process each."""
    return [(p, doc, recs) for p in paths or [] for doc, recs in [records.load_document(p)]]


def stored_runs(a, cur_recs):
    """The stored baseline runs of the machine kind: <baselines>/<kind>/runs/*.json."""
    kind = baseline.resolve_kind(a.machine_kind, cur_recs)
    folder = Path(baseline.path_for(kind, a.baselines_root)).parent / "runs"
    paths = sorted(glob.glob(str(folder / "*.json")))
    if len(paths) < 2:
        raise BadInput(f"{folder}: {len(paths)} stored baseline run(s); the run-level gate needs ≥ 2 (3+ advised)",
                       "pass --baseline-runs FILES, or store several runs of the baseline build there")
    return paths


def compare_with(base_series, cur_series, floor, ratios=({}, {})):
    """The case comparer for gate.run: base_series and cur_series are run_median_series's;
    ratios, (base, current) gate_ratio.run_series: the sweep's tandem cases, gated on their run
    medians over their raw calls' (a slower link or machine cancels)."""
    (bs, _), (cs, names) = base_series, cur_series

    def compare(b, c, cfg):
        case = c["case"]
        eff = cfg.suites.get(c["suite"], floor)
        if case in ratios[1]:
            return [run_stats.compare_runs(ratios[0].get(case, []), ratios[1][case], cfg.alpha, eff, "time/raw")]
        return [run_stats.compare_runs(bs.get(case, []), cs.get(case, []), cfg.alpha, eff, names.get(case, "time"))]
    return compare


def adjust_and_annotate(comps, alpha):
    run_stats.holm(comps, alpha)
    for c in comps:
        c.note = "; ".join(x for x in (c.note, run_stats.noise_note(c)) if x)
    return comps


def method_text(cfg, floor, nb, nc, n_tests, metric):
    what = ("process CPU time (`cpu_time`; wall time for GPU cases)" if metric == "cpu" else "wall time")
    return (f"Correctness first; then, per case, the median of each process's repetitions of its {what} (run level: "
            f"{nb} baseline / {nc} current processes), a two-sided pooled t-test on the log run medians "
            f"(the between-run spread of both sides is the noise), Holm's step-down across {n_tests} cases at "
            f"α = {cfg.alpha:g} (an A/A gate flags anything at most α of the time), minimum effect {floor:.0%}. "
            "Each note states the case's A/A spread, the change it takes to flag and the minimum detectable "
            f"effect ({run_stats.POWER:.0%} power).")


def main(a):
    cfg = config_from_args(a)
    floor = cfg.min_effect if (a.min_effect is not None or a.config) else DEFAULT_FLOOR
    cur = load_runs(a.current_runs)
    if not cur:
        raise BadInput("--current-runs needs at least one records file", "e.g. --current-runs results/ab/b*/records.json")
    base_paths = a.baseline_runs or stored_runs(a, cur[-1][2])
    atomic.refuse_input(a.summary, [*a.current_runs, *base_paths, a.config], "--summary", gate.SUMMARY_HINT)
    base = load_runs(base_paths)
    if len(base) < 2:
        raise BadInput(f"--baseline-runs: {len(base)} run(s); the run-level gate needs ≥ 2 (3+ advised)",
                       "run the baseline in several processes (ci/gate_ab.sh does)")
    cross = cpu_match.check(base[0][2], cur[-1][2], a.allow_cross_cpu, base_paths[0])
    problem = next((x for x in (run_completion.problem(p, d, r) for p, d, r in cur) if x), None)
    cur_failures = {r["case"]: r for _, _, recs in cur for r in recs if r["verdict"] in records.FAILED}
    last = [cur_failures.get(r["case"], r) for r in cur[-1][2]]  # a failure in any current run counts
    bs = run_stats.run_median_series([r for _, _, r in base], a.run_metric)
    cs = run_stats.run_median_series([r for _, _, r in cur], a.run_metric)
    # A sweep's tandem row and its raw call, whole in every run of both sides, gate on their ratio.
    pairs = gate_ratio.paired_in_all([r for _, _, r in base + cur])
    value = lambda r: run_stats.run_value(r, a.run_metric)[0]
    ratios = tuple(gate_ratio.run_series([r for _, _, r in side], pairs, value) for side in (base, cur))
    o = gate.run(base[0][2], last, cfg, problem, compare_with(bs, cs, floor, ratios), adjust_and_annotate, pairs)
    n_tests = sum(1 for _, _, comps in o.cases for x in comps if x.p_value is not None)
    text = cpu_match.banner(cross) + summary(o, cfg, f"{len(base)} runs: {base[0][0]} …", f"{len(cur)} runs: {cur[0][0]} …",
                   len(base[0][2]), len(cur[-1][2]), method_text(cfg, floor, len(base), len(cur), n_tests, a.run_metric))
    return gate.emit(a.summary, text, o.code)
