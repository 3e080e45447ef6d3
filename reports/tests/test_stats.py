# The gate's statistics on known samples: shifts, identical samples, too few samples, direction.
from reports import stats

BASE = [1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995]


def test_ten_percent_slower_is_slower():
    c = stats.compare_samples(BASE, [x * 1.10 for x in BASE])
    assert c.verdict == stats.SLOWER and abs(c.change - 0.10) < 1e-9 and c.p_value < 0.05


def test_ten_percent_faster_is_faster():
    assert stats.compare_samples(BASE, [x * 0.90 for x in BASE]).verdict == stats.FASTER


def test_identical_samples_are_same():
    assert stats.compare_samples(BASE, list(BASE)).verdict == stats.SAME
    assert stats.compare_samples([2.0] * 5, [2.0] * 5).verdict == stats.SAME


def test_two_samples_are_inconclusive():
    c = stats.compare_samples([1.0, 1.01], [1.5, 1.52])
    assert c.verdict == stats.INCONCLUSIVE and "cannot reach" in c.note
    assert stats.compare_samples([1.0, 1.0], [1.0, 1.0]).verdict == stats.INCONCLUSIVE


def test_significant_but_small_change_is_same():
    assert stats.compare_samples(BASE, [x * 1.02 for x in BASE]).verdict == stats.SAME


def test_large_but_noisy_change_is_same_with_a_note():
    c = stats.compare_samples([1.0, 2.0, 0.5, 1.5, 1.0], [1.1, 2.1, 0.6, 1.6, 1.0])
    assert c.verdict == stats.SAME and "not significant" in c.note


def test_family_correction_keeps_lone_flukes_quiet():
    noise = [stats.compare_samples(BASE, list(BASE)) for _ in range(300)]
    fluke = stats.compare_samples(BASE, [x * 1.3 for x in BASE])  # p = 0.0006 alone
    assert fluke.verdict == stats.SLOWER
    stats.adjust_family(noise + [fluke])
    assert fluke.verdict == stats.SAME and fluke.q_value > 0.05


def test_family_correction_keeps_a_broad_shift():
    comps = [stats.compare_samples(BASE, [x * 1.2 for x in BASE]) for _ in range(300)]
    stats.adjust_family(comps)
    assert {c.verdict for c in comps} == {stats.SLOWER}
    assert stats.lone_case_repetitions(300) == 8 and stats.lone_case_repetitions(1) == 4


def test_min_effect_is_respected():
    cur = [x * 1.08 for x in BASE]
    assert stats.compare_samples(BASE, cur, min_effect=0.05).verdict == stats.SLOWER
    assert stats.compare_samples(BASE, cur, min_effect=0.10).verdict == stats.SAME


def test_higher_is_better_direction():
    gflops = [100.0, 101.0, 99.0, 102.0, 98.0]
    assert stats.compare_samples(gflops, [x * 1.1 for x in gflops], direction="higher").verdict == stats.FASTER
    assert stats.compare_samples(gflops, [x * 0.9 for x in gflops], direction="higher").verdict == stats.SLOWER


def test_single_values():
    assert stats.compare_values(100, 120, "lower").verdict == stats.WORSE
    assert stats.compare_values(100, 120, "higher").verdict == stats.BETTER
    assert stats.compare_values(100, 102, "lower").verdict == stats.SAME
    assert stats.compare_values(100, 120, "lower", deterministic=False).verdict == stats.INCONCLUSIVE


def test_combine_prefers_regressions_then_doubt():
    assert stats.combine([stats.SAME, stats.FASTER, stats.SLOWER]) == stats.SLOWER
    assert stats.combine([stats.FASTER, stats.INCONCLUSIVE]) == stats.INCONCLUSIVE
    assert stats.combine([stats.SAME, stats.BETTER]) == stats.BETTER
    assert stats.combine([]) == stats.SAME
