# The single-run gate on each case's time over the anchor timed beside it (reports/gate_anchor.py):
# a machine that slowed case and anchor alike is SAME; a ratio change inside the between-run
# band is INCONCLUSIVE with what would decide it; a change beyond it is still a regression;
# records without an anchor gate on absolute time as before, saying so.
from conftest import rec, write

from reports import exit_codes

S = [1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015, 0.985]
A = [0.50, 0.503, 0.497, 0.51, 0.49, 0.502, 0.498, 0.507, 0.493]  # the anchor, close to half the case


def anchored(case, scale=1.0, anchor_scale=1.0, name="dot/perf/N:512/blas_sgemm"):
    r = rec(case, [x * scale for x in S])
    r["anchor"] = {"name": name, "kind": "library call", "samples": [x * anchor_scale for x in A]}
    return r


def gate(cli, tmp_path, base, cur, *extra):
    return cli("gate", "--baseline", write(tmp_path / "b.json", base), "--current", write(tmp_path / "c.json", cur), *extra)


def test_case_and_anchor_slowed_alike_is_same(cli, tmp_path):
    # A busier machine: +60 % on the case and on its anchor timed beside it (absolute: SLOWER).
    code, out, _ = gate(cli, tmp_path, [anchored("a"), anchored("b")], [anchored("a", 1.6, 1.6), anchored("b", 1.55, 1.55)])
    assert code == exit_codes.PASS, out
    assert "| a | SAME | time/anchor |" in out and "| b | SAME | time/anchor |" in out


def test_small_ratio_change_on_one_run_is_inconclusive(cli, tmp_path):
    # +8 %, consistent across every repetition (p tiny), but inside the ±12 % the ratio moves between runs.
    code, out, _ = gate(cli, tmp_path, [anchored("a"), anchored("b")], [anchored("a", 1.08), anchored("b")])
    assert code == exit_codes.INCONCLUSIVE, out
    assert "| a | INCONCLUSIVE | time/anchor |" in out and "Undecided on one run per side: 1 case(s)" in out
    assert "3+ runs per side" in out and "--baseline-runs" in out and "reports/baselines/" in out
    # A band set narrower (a quiet, calibrated runner) lets the same change gate.
    assert gate(cli, tmp_path, [anchored("a")], [anchored("a", 1.08)], "--single-run-noise", "5%")[0] \
        == exit_codes.PERFORMANCE_REGRESSION


def test_tandem_slower_than_its_anchor_is_a_regression(cli, tmp_path):
    # +30 % on the case, its anchor unchanged (even a faster machine: anchor -10 %).
    code, out, _ = gate(cli, tmp_path, [anchored("a"), anchored("b")], [anchored("a", 1.3), anchored("b")])
    assert code == exit_codes.PERFORMANCE_REGRESSION, out
    assert "| a | SLOWER | time/anchor |" in out and "over `dot/perf/N:512/blas_sgemm`" in out
    code, out, _ = gate(cli, tmp_path, [anchored("a")], [anchored("a", 1.2, 0.9)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | time/anchor |" in out, out


def test_records_without_anchor_gate_on_absolute_time_saying_so(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, [rec("a", S)], [rec("a", [x * 1.3 for x in S])])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | time |" in out
    assert "no anchor in the records" in out
    # An anchor on one side only, or a different anchor, is no yardstick: absolute time.
    code, out, _ = gate(cli, tmp_path, [anchored("a")], [anchored("a", 1.3, 1.3, name="canary/sgemm_128")])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | time |" in out


def test_bad_single_run_noise_is_bad_input(cli, tmp_path):
    code, _, err = gate(cli, tmp_path, [anchored("a")], [anchored("a")], "--single-run-noise", "12")
    assert code == exit_codes.BAD_INPUT and "hint:" in err


def test_cpu_cases_gate_on_the_ratio_of_cpu_times(cli, tmp_path):
    # The case's wall time +50 % (it waited for a core), its CPU time and its anchor's unchanged:
    # the CPU-time ratio is judged, and it did not move.
    def with_cpu(r, wall_scale=1.0, cpu_scale=1.0):
        r["timing"]["cpu_samples"] = [x * cpu_scale for x in S]
        r["timing"]["samples"] = [x * wall_scale for x in S]
        r["anchor"]["cpu_samples"] = list(A)
        return r
    code, out, _ = gate(cli, tmp_path, [with_cpu(anchored("a"))], [with_cpu(anchored("a"), wall_scale=1.5)])
    assert code == exit_codes.PASS and "| a | SAME | cpu_time/anchor |" in out, out
    code, out, _ = gate(cli, tmp_path, [with_cpu(anchored("a"))], [with_cpu(anchored("a"), cpu_scale=1.3)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | cpu_time/anchor |" in out, out


def test_ratio_change_when_the_anchor_itself_moved_is_inconclusive(cli, tmp_path):
    # A/A across a change of machine state: the anchor +30 % between the runs, the case +50 %,
    # so the ratio +15 % (a memory-bound part felt the busier neighbour more than the GEMM did).
    # The band widens by half the anchor's move (±12 % + 15 %): INCONCLUSIVE, saying why.
    code, out, _ = gate(cli, tmp_path, [anchored("a")], [anchored("a", 1.3 * 1.15, 1.3)])
    assert code == exit_codes.INCONCLUSIVE, out
    assert "| a | INCONCLUSIVE | time/anchor |" in out and "anchor's own +30%" in out and "±27%" in out, out
    # The same +15 % with the anchor steady is beyond the band: a regression.
    code, out, _ = gate(cli, tmp_path, [anchored("a")], [anchored("a", 1.15)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | time/anchor |" in out, out
    # A change beyond even the widened band still gates: +40 % of ratio over an anchor +30 %.
    code, out, _ = gate(cli, tmp_path, [anchored("a")], [anchored("a", 1.3 * 1.4, 1.3)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| a | SLOWER | time/anchor |" in out, out


def test_band_is_noise_plus_half_the_anchors_move():
    from reports import gate_anchor
    assert gate_anchor.band(0.12, 0.0) == 0.12
    assert abs(gate_anchor.band(0.12, -0.2) - 0.22) < 1e-12  # a faster anchor widens it alike
    r = lambda xs: {"anchor": {"samples": xs}}
    assert abs(gate_anchor.anchor_change(r([1.0, 2.0, 3.0]), r([2.0, 2.4, 9.0]), "samples") - 0.2) < 1e-12


def test_a_library_call_other_cases_name_as_baseline_is_shown_not_gated(cli, tmp_path):
    # dot's blas_sgemm is the BLAS alone (the presets' info.baseline): no tandem code, and its multi-threaded CPU time
    # over the canary moves tens of percent between runs. RAW, not gated; the preset beside it still gates.
    def case(name, scale=1.0, baseline=None):
        r = anchored(name, scale)
        r["case"] += "/cpu"
        r["backend"] = "cpu"
        r["info"] = {"baseline": baseline} if baseline else {}
        return r
    base = [case("dot/perf/N:512/blas_sgemm"), case("dot/perf/N:512/alg:F32", baseline="dot/perf/N:512/blas_sgemm")]
    cur = [case("dot/perf/N:512/blas_sgemm", 2.0), case("dot/perf/N:512/alg:F32", baseline="dot/perf/N:512/blas_sgemm")]
    code, out, _ = gate(cli, tmp_path, base, cur)
    assert code == exit_codes.PASS, out
    assert "| dot/perf/N:512/blas_sgemm/cpu | RAW |" in out, out
    cur[1] = case("dot/perf/N:512/alg:F32", 1.3, baseline="dot/perf/N:512/blas_sgemm")
    code, out, _ = gate(cli, tmp_path, base, cur)
    assert code == exit_codes.PERFORMANCE_REGRESSION and "| dot/perf/N:512/alg:F32/cpu | SLOWER |" in out, out
