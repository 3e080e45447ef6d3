# Sweep records gate on tandem's time relative to the raw call of the same run:
# a shift common to both calls (a slower link) passes, tandem's own slowdown fails, the raw
# call's own change is shown but not gated, and a tandem record without a raw partner gates absolutely.
from conftest import rec, write

from reports import exit_codes

CASE = "collectives/sweep/op:psum/call:{}/dtype:f32/redop:sum/bytes:65536/inplace:0/groups:all/ranks:2"
TANDEM, RAW = CASE.format("tandem"), CASE.format("raw")
S = [1.00, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015]


def sweep(tandem=1.0, raw=1.0, with_raw=True):
    recs = [rec(TANDEM, [x * 2e-5 * tandem for x in S], suite="collectives")]
    return recs + ([rec(RAW, [x * 1.9e-5 * raw for x in reversed(S)], suite="collectives")] if with_raw else [])


def gate(cli, tmp_path, base, cur):
    return cli("gate", "--baseline", write(tmp_path / "b.json", base), "--current", write(tmp_path / "c.json", cur))


def test_slower_link_slowing_both_calls_passes(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, sweep(), sweep(1.5, 1.5))
    assert code == exit_codes.PASS and "| SLOWER | time" not in out, out
    assert f"| {TANDEM} | SAME | time/raw |" in out and "Gated on time relative to the raw call" in out
    assert f"| {RAW} | RAW | time |" in out and "+50.0%" in out  # the link's change, informational


def test_tandem_alone_slower_is_a_regression(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, sweep(), sweep(1.2, 1.0))
    assert code == exit_codes.PERFORMANCE_REGRESSION
    assert f"| {TANDEM} | SLOWER | time/raw |" in out and f"| {RAW} | SLOWER" not in out


def test_raw_call_alone_slower_is_informational(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, sweep(), sweep(1.0, 1.2))
    assert code == exit_codes.PASS, out
    assert f"| {RAW} | RAW | time |" in out and "+20.0%" in out and "the library call is the yardstick" in out
    assert f"| {TANDEM} | FASTER | time/raw |" in out or f"| {TANDEM} | SAME | time/raw |" in out


def test_tandem_without_raw_partner_gates_absolutely(cli, tmp_path):
    code, out, _ = gate(cli, tmp_path, sweep(with_raw=False), sweep(1.5, 1.5))
    assert code == exit_codes.PERFORMANCE_REGRESSION and f"| {TANDEM} | SLOWER | time |" in out
    assert "Gated on time relative" not in out


def runs(cli, tmp_path, base, cur):
    """The run-level gate over processes (lists of sweep() records), one file each."""
    files = lambda side, rs: [write(tmp_path / f"{side}{i}.json", r) for i, r in enumerate(rs)]
    return cli("gate", "--baseline-runs", *files("b", base), "--current-runs", *files("c", cur))


def jitter(i):  # a process's own level: the between-run noise both calls of a run share
    return 1 + 0.02 * ((i * 7) % 5 - 2)


def test_run_level_slower_link_passes_and_tandem_alone_fails(cli, tmp_path):
    base = [sweep(jitter(i), jitter(i)) for i in range(4)]
    code, out, _ = runs(cli, tmp_path, base, [sweep(1.5 * jitter(i + 1), 1.5 * jitter(i + 1)) for i in range(4)])
    assert code == exit_codes.PASS and "| SLOWER | time" not in out, out
    assert f"| {TANDEM} | SAME | time/raw |" in out and f"| {RAW} | RAW |" in out
    code, out, _ = runs(cli, tmp_path, base, [sweep(1.2 * jitter(i + 1), jitter(i + 1)) for i in range(4)])
    assert code == exit_codes.PERFORMANCE_REGRESSION and f"| {TANDEM} | SLOWER | time/raw |" in out, out
