# The gate's statistics. Sampled metrics (timing repetitions): a two-sided Mann–Whitney U test per case,
# Benjamini–Hochberg across all the cases of a gate (hundreds of tests at α = 0.05 would otherwise raise false alarms on
# every run), and a minimum effect size on the change of medians. Single values: the effect size alone — decisive for
# deterministic metrics (bytes), inconclusive for noisy ones.
import math
from dataclasses import dataclass

SAME, FASTER, SLOWER, INCONCLUSIVE = "SAME", "FASTER", "SLOWER", "INCONCLUSIVE"
BETTER, WORSE = "BETTER", "WORSE"  # deterministic metrics (peak bytes): no "faster" about them
REGRESSIONS = (SLOWER, WORSE)
IMPROVEMENTS = (FASTER, BETTER)


@dataclass
class Comparison:
    metric: str
    verdict: str
    base: float  # median (or the single value) of the baseline
    current: float
    change: float  # current / base - 1, in the metric's own units (+0.1 = 10% larger)
    p_value: float = None  # Mann–Whitney U, two-sided; None when there was no test
    n_base: int = 1
    n_current: int = 1
    note: str = ""
    direction: str = "lower"
    min_effect: float = 0.05
    q_value: float = None  # p adjusted for the family of tests (Benjamini–Hochberg)


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


def relative_change(base, current):
    if base == current:
        return 0.0
    if base == 0:
        return math.copysign(math.inf, current)
    return current / base - 1.0


def min_p_value(n1, n2):
    """The smallest two-sided p-value an exact Mann–Whitney U test can reach: 2 / C(n1+n2, n1)."""
    return min(1.0, 2.0 / math.comb(n1 + n2, n1))


def improved(change, direction):
    return change < 0 if direction == "lower" else change > 0


def classify(c, significant):
    if abs(c.change) < c.min_effect:
        c.verdict, c.note = SAME, f"below the {c.min_effect:.0%} minimum effect"
    elif not significant:
        c.verdict, c.note = SAME, "not significant: no evidence of a change"
    else:
        c.verdict, c.note = (FASTER if improved(c.change, c.direction) else SLOWER), ""
    return c


def compare_samples(base, current, direction="lower", min_effect=0.05, alpha=0.05, metric="time"):
    """Classifies repetitions of one metric, as a family of one test: SAME, FASTER, SLOWER or
    INCONCLUSIVE (too few samples for the test ever to reach significance)."""
    from scipy.stats import mannwhitneyu

    n1, n2 = len(base), len(current)
    if n1 == 0 or n2 == 0:
        return Comparison(metric, INCONCLUSIVE, math.nan, math.nan, math.nan, None, n1, n2, "no samples")
    mb, mc = median(base), median(current)
    c = Comparison(metric, SAME, mb, mc, relative_change(mb, mc), None, n1, n2, "", direction, min_effect)
    if min_p_value(n1, n2) > alpha:
        c.verdict = INCONCLUSIVE
        c.note = f"{n1} vs {n2} samples cannot reach p < {alpha:g}; use ≥ 4 repetitions per side"
        return c
    c.p_value = float(mannwhitneyu(base, current, alternative="two-sided").pvalue)
    if math.isnan(c.p_value):  # all values identical on both sides
        c.p_value = 1.0
    c.q_value = c.p_value
    return classify(c, c.p_value < alpha)


def adjust_family(comps, alpha=0.05):
    """Benjamini–Hochberg over every tested comparison of a gate: q-values, then verdicts from
    q < alpha, so the expected share of false alarms among flagged cases stays below alpha."""
    tested = sorted((c for c in comps if c.p_value is not None), key=lambda c: c.p_value)
    m, q = len(tested), 1.0
    for rank in range(m, 0, -1):
        c = tested[rank - 1]
        q = min(q, c.p_value * m / rank)
        c.q_value = q
        classify(c, q < alpha)
    return comps


def lone_case_repetitions(m, alpha=0.05):
    """Repetitions per side needed for a change in one case alone to survive the correction."""
    n = 4
    while min_p_value(n, n) * m > alpha and n < 64:
        n += 1
    return n


def compare_values(base, current, direction="lower", min_effect=0.05, deterministic=True, metric="value"):
    """One value per side. Deterministic metrics get BETTER/WORSE; noisy ones can't be judged."""
    change = relative_change(base, current)
    c = Comparison(metric, SAME, base, current, change, direction=direction, min_effect=min_effect)
    if abs(change) < min_effect:
        return c
    if deterministic:
        c.verdict = BETTER if improved(change, direction) else WORSE
    else:
        c.verdict = INCONCLUSIVE
        c.note = "one noisy value per side cannot be tested; record repetitions"
    return c


def combine(verdicts):
    """A case's verdict from its metrics': any regression, else any doubt, else any gain."""
    for group in (REGRESSIONS, (INCONCLUSIVE,), IMPROVEMENTS):
        for v in group:
            if v in verdicts:
                return v
    return SAME
