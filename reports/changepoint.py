# Change-point detection for nightly series: binary segmentation with a t-test, the scheme Apache Otava (ex Hunter)
# builds on, judged with the gate's run-level noise model (a pooled t-test on log values: each nightly run is one
# process, the spread between them the case's noise; reports/run_stats.py). In a segment, the split that best separates
# the two sides' means (smallest p-value, ≥ min_size points a side) is a change point when its Bonferroni-corrected
# p-value (× the number of candidate splits) is below alpha and the means differ by at least min_effect; then each side
# is searched again, recursively.
import math
from dataclasses import dataclass


@dataclass
class ChangePoint:
    index: int  # first point of the new regime
    before: float  # mean of the points before it (back to the previous change point)
    after: float
    change: float  # after / before - 1
    p_value: float


def mean(xs):
    return sum(xs) / len(xs)


def welch_p(a, b):
    """Two-sided p-value of Welch's t-test; exact for zero-variance sides (0 or 1)."""
    from scipy.stats import t as student_t

    scale = max(abs(x) for x in a + b) or 1.0  # t is scale-free; unscaled, 1e200 squared overflowed (reports/fuzz.py)
    a, b = [x / scale for x in a], [x / scale for x in b]
    ma, mb = mean(a), mean(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1)
    se2 = va / len(a) + vb / len(b)
    if se2 <= 1e-30 * max(ma * ma, mb * mb, 1e-300):
        return 0.0 if ma != mb else 1.0
    t = (mb - ma) / math.sqrt(se2)
    df = se2 ** 2 / ((va / len(a)) ** 2 / (len(a) - 1) + (vb / len(b)) ** 2 / (len(b) - 1))
    return float(2 * student_t.sf(abs(t), df))


def pooled_log_p(a, b):
    """Two-sided p-value of the gate's run-level test (reports/run_stats.py): a pooled t-test
    on the logs, both sides' spread together as the series' between-run noise — steadier than
    Welch's two separate variances from three runs each. Welch's for non-positive values."""
    from scipy.stats import t as student_t

    from reports import run_stats

    if min(a + b) <= 0:
        return welch_p(a, b)
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    s, df = run_stats.pooled(la, lb)
    d = mean(lb) - mean(la)
    se = s * math.sqrt(1 / len(a) + 1 / len(b))
    if se <= 1e-15 * max(abs(mean(la)), abs(mean(lb)), 1.0):
        return 0.0 if d else 1.0
    return float(2 * student_t.sf(abs(d) / se, df))


def detect(values, min_size=3, alpha=0.01, min_effect=0.05):
    """Change points in `values` (ordered oldest first), sorted by index."""
    found = []

    def search(lo, hi):
        candidates = range(lo + min_size, hi - min_size + 1)
        if len(candidates) < 1:
            return
        scored = [(pooled_log_p(values[lo:k], values[k:hi]), -abs(mean(values[k:hi]) - mean(values[lo:k])), k)
                  for k in candidates]
        p, _, k = min(scored)
        p = min(1.0, p * len(candidates))
        before, after = mean(values[lo:k]), mean(values[k:hi])
        change = after / before - 1 if before else (0.0 if after == before else math.inf)
        if p < alpha and abs(change) >= min_effect:
            found.append(ChangePoint(k, before, after, change, p))
            search(lo, k)
            search(k, hi)

    search(0, len(values))
    found.sort(key=lambda c: c.index)
    bounds = [0] + [c.index for c in found] + [len(values)]
    for i, c in enumerate(found):  # means between neighbouring change points, not search windows
        c.before, c.after = mean(values[bounds[i]:c.index]), mean(values[c.index:bounds[i + 2]])
        c.change = c.after / c.before - 1 if c.before else c.change
    return found


def segments(keys):
    """[(start, end)] runs of equal consecutive keys: a history-breaking change starts a segment."""
    out, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[start]:
            out.append((start, i))
            start = i
    return out
