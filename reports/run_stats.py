# Run-level statistics for the gate: repetitions inside one process never see the variance between processes (frequency,
# memory placement, neighbours on a shared host), so a test over them calls A/A differences significant. Here each
# PROCESS contributes one number per case (the median of its repetitions); the cases' log run-medians of the baseline
# side and the current side are compared with a pooled two-sample t-test (between-run spread estimated from both sides,
# df = runs - 2), Holm's step-down across cases (the chance that an A/A gate flags anything stays ≤ α), and each verdict
# carries the noise it was judged against, the change it would have taken to flag, and the smallest change detected with
# 80 %.
import math
from dataclasses import dataclass

from reports import records, stats

POWER = 0.8  # the minimum detectable effect is the change detected this often


@dataclass
class RunComparison(stats.Comparison):
    spread: float = math.nan  # between-run standard deviation of the log run-medians (≈ relative)
    df: int = 0
    threshold: float = math.nan  # smallest |change| this case flags at Holm's strictest level
    mde: float = math.nan  # change detected with POWER at that level


def run_value(rec, metric="cpu"):
    """(one process's number for a passing record, metric name): the median of its timing
    repetitions — of the process CPU time per repetition (timing.cpu_samples) when `metric` is
    "cpu" and the case ran on the CPU backend, else of the wall time. CPU time does not count
    the time a process waits for a core, which on a shared host is most of the between-run
    noise; a CUDA case's work is on the GPU, so it keeps its wall time."""
    t = rec.get("timing") or {}
    if metric == "cpu" and rec.get("backend") == "cpu":
        xs = [records.num(x) for x in t.get("cpu_samples") or []]
        xs = [x for x in xs if x is not None and math.isfinite(x)]
        if xs and min(xs) > 0:
            return stats.median(xs), "cpu_time"
    xs = records.timing_samples(rec)
    return (stats.median(xs), "time") if xs and min(xs) > 0 else (None, "time")


def run_median_series(runs, metric="cpu"):
    """({case: [one number per run]}, {case: metric name}) from a list of records lists (one
    per process), passing cases only (run_value)."""
    out, names = {}, {}
    for recs in runs:
        for r in recs:
            if r.get("verdict") != "pass":
                continue
            v, names[r["case"]] = run_value(r, metric)
            if v is not None:
                out.setdefault(r["case"], []).append(v)
    return out, names


def pooled(base_logs, cur_logs):
    """(pooled standard deviation, degrees of freedom) of two samples of log values."""
    ss, df = 0.0, 0
    for xs in (base_logs, cur_logs):
        if len(xs) >= 2:
            m = sum(xs) / len(xs)
            ss += sum((x - m) ** 2 for x in xs)
            df += len(xs) - 1
    return (math.sqrt(ss / df) if df else math.nan), df


def critical_changes(spread, df, nb, nc, alpha, m):
    """(threshold, mde) as relative changes for a case of this spread among m tests: the
    change whose t reaches Holm's strictest level α/m (two-sided), and the change detected
    with POWER there."""
    from scipy.stats import t as student_t

    if not df or not spread == spread:
        return math.nan, math.nan
    se = spread * math.sqrt(1 / nb + 1 / nc)
    crit = student_t.ppf(1 - alpha / (2 * max(m, 1)), df)
    return math.expm1(crit * se), math.expm1((crit + student_t.ppf(POWER, df)) * se)


def compare_runs(base, cur, alpha=0.05, min_effect=0.0, metric="time"):
    """One case: base and cur are run medians (one per process). INCONCLUSIVE without a spread
    to judge against (fewer than 3 runs in all, or fewer than 2 on the baseline side)."""
    from scipy.stats import t as student_t

    nb, nc = len(base), len(cur)
    mb, mc = (stats.median(base) if base else math.nan), (stats.median(cur) if cur else math.nan)
    c = RunComparison(metric, stats.SAME, mb, mc, math.nan, None, nb, nc, "", "lower", min_effect)
    lb, lc = [math.log(x) for x in base], [math.log(x) for x in cur]
    c.spread, c.df = pooled(lb, lc)
    if nb < 2 or nc < 1 or not c.df:
        c.verdict = stats.INCONCLUSIVE
        c.note = f"{nb} baseline / {nc} current runs: no between-run spread; run ≥ 3 processes per side"
        return c
    d = sum(lc) / nc - sum(lb) / nb
    c.change = math.expm1(d)  # ratio of geometric means of the run medians
    se = c.spread * math.sqrt(1 / nb + 1 / nc)
    c.p_value = 1.0 if d == 0 else (0.0 if se == 0 else float(2 * student_t.sf(abs(d) / se, c.df)))
    c.q_value = c.p_value
    return c


def holm(comps, alpha=0.05):
    """Holm's step-down over the tested comparisons: q = adjusted p; verdicts from q < alpha
    and |change| ≥ the case's minimum effect; thresholds and MDEs at the strictest level."""
    tested = sorted((c for c in comps if c.p_value is not None), key=lambda c: c.p_value)
    m, q = len(tested), 0.0
    for i, c in enumerate(tested):
        q = max(q, min(1.0, (m - i) * c.p_value))
        c.q_value = q
        c.threshold, c.mde = critical_changes(c.spread, c.df, c.n_base, c.n_current, alpha, m)
        stats.classify(c, q < alpha)
        if c.verdict == stats.SAME and abs(c.change) >= c.min_effect:
            c.note = f"within the noise: needs ≥ {c.threshold:.1%} among {m} cases"
    return comps


def noise_note(c):
    """'noise 2.1 % (8 df), flags ≥ 9.0 %, MDE 11 %' — what a verdict was judged against."""
    if c.spread != c.spread:
        return "no noise estimate"
    return f"A/A spread {c.spread:.1%} ({c.df} df); flags ≥ {c.threshold:.1%}; MDE {c.mde:.1%}"


def runs_needed(spread, effect, alpha=0.05, m=1, most=64):
    """Processes per side for `effect` (relative) to be the MDE of a case with this spread."""
    for n in range(2, most + 1):
        if critical_changes(spread, 2 * n - 2, n, n, alpha, m)[1] <= effect:
            return n
    return None
