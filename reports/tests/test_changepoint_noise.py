# Nightly change points under the gate's noise model (reports/changepoint.py pooled_log_p):
# a week of A/A nightly runs, each one process with its own between-run offset, raises no
# change point; a +25 % step in a fortnight's series is found.
import math
import random

from reports import changepoint


def nightly(rng, n, step_at=None, step=0.25, spread=0.04):
    return [math.exp(rng.gauss(0, spread)) * (1 + step if step_at is not None and i >= step_at else 1) for i in range(n)]


def test_an_aa_week_raises_no_change_point():
    rng = random.Random(34)
    flagged = sum(bool(changepoint.detect(nightly(rng, 7))) for _ in range(300))
    assert flagged <= 6, f"{flagged} of 300 A/A weeks raised a change point"


def test_a_25_percent_step_is_found_where_it_is():
    rng = random.Random(35)
    found = [changepoint.detect(nightly(rng, 14, step_at=7)) for _ in range(100)]
    assert sum(bool(f) for f in found) >= 95
    assert sum(any(c.index == 7 for c in f) for f in found) >= 90


def test_pooled_p_is_the_gates_test():
    assert changepoint.pooled_log_p([1.0, 1.0, 1.0], [1.0, 1.0, 1.0]) == 1.0
    assert changepoint.pooled_log_p([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]) == 0.0
    assert changepoint.pooled_log_p([0.0, 1.0, 2.0], [1.0, 2.0, 3.0]) == changepoint.welch_p([0.0, 1.0, 2.0], [1.0, 2.0, 3.0])
