# The gate refuses a baseline recorded on another CPU model or ISA (the kernels' dispatch:
# vector clones, oneDNN's ISA, OpenBLAS's core) with exit 6, a message and a hint, unless
# --allow-cross-cpu, which compares and warns. Both gates: one run each and run-level.
from conftest import CONTEXT, rec, write

from reports import exit_codes

S = [1.00, 1.01, 0.99, 1.02, 0.98]
ZEN4 = dict(CONTEXT, cpu_model="AMD EPYC 9B14", isa={"vector_clones": "x86-64-v4", "onednn": "avx512_core_bf16",
                                                      "openblas_core": "Zen"})
ZEN3_MODEL = dict(ZEN4, cpu_model="AMD EPYC 7B13")
AVX2_ISA = dict(ZEN4, isa=dict(ZEN4["isa"], vector_clones="x86-64-v3", onednn="avx2"))


def gate(cli, tmp_path, base_ctx, cur_ctx, *extra):
    b = write(tmp_path / "b.json", [rec("a", S, ctx=base_ctx)])
    c = write(tmp_path / "c.json", [rec("a", S, ctx=cur_ctx)])
    return cli("gate", "--baseline", b, "--current", c, *extra)


def test_same_cpu_passes(cli, tmp_path):
    assert gate(cli, tmp_path, ZEN4, dict(ZEN4))[0] == exit_codes.PASS


def test_another_cpu_model_is_refused(cli, tmp_path):
    code, out, err = gate(cli, tmp_path, ZEN4, ZEN3_MODEL)
    assert code == exit_codes.INCOMPLETE
    assert "cpu_model: AMD EPYC 9B14 → AMD EPYC 7B13" in err and "hint:" in err and "--allow-cross-cpu" in err
    assert "| a |" not in out  # no verdicts drawn from incomparable timings


def test_another_isa_on_the_same_model_is_refused(cli, tmp_path):
    code, _, err = gate(cli, tmp_path, ZEN4, AVX2_ISA)
    assert code == exit_codes.INCOMPLETE and "isa:" in err and "x86-64-v3" in err


def test_allow_cross_cpu_compares_and_warns(cli, tmp_path):
    code, out, err = gate(cli, tmp_path, ZEN4, ZEN3_MODEL, "--allow-cross-cpu")
    assert code == exit_codes.PASS and "warning: comparing across CPUs" in err and "AMD EPYC 7B13" in err
    assert out.startswith("> **Compared across CPUs** (--allow-cross-cpu): cpu_model: AMD EPYC 9B14 → AMD EPYC 7B13")


def test_a_baseline_without_isa_is_compared_on_the_model(cli, tmp_path):
    old = {k: v for k, v in ZEN4.items() if k != "isa"}
    assert gate(cli, tmp_path, old, ZEN4)[0] == exit_codes.PASS
    assert gate(cli, tmp_path, dict(old, cpu_model="Intel Xeon"), ZEN4)[0] == exit_codes.INCOMPLETE


def test_run_level_gate_refuses_too(cli, tmp_path):
    base = [write(tmp_path / f"b{i}.json", [rec("a", S, ctx=ZEN4)]) for i in range(3)]
    cur = [write(tmp_path / f"c{i}.json", [rec("a", S, ctx=AVX2_ISA)]) for i in range(3)]
    code, _, err = cli("gate", "--baseline-runs", *base, "--current-runs", *cur)
    assert code == exit_codes.INCOMPLETE and "onednn" in err
    code, out, err = cli("gate", "--baseline-runs", *base, "--current-runs", *cur, "--allow-cross-cpu")
    assert code != exit_codes.INCOMPLETE and "warning: comparing across CPUs" in err and "Compared across CPUs" in out
