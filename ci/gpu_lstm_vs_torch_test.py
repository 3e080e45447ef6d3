"""Tests of gpu_lstm_vs_torch.py: rows pair at the same math mode, and a pair whose modes
differ (PyTorch at TF32 against tandem at FP32) or do not say theirs is refused, exit 1."""
import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu_lstm_vs_torch.py")
SHAPE = {"batch": 16, "seq": 25, "input": 512, "hidden": 512, "layers": 1, "bidirectional": False}


def run(tmp_path, tandem_math, torch_math, torch_min=2e-3):
    params = dict(SHAPE, mode="fwd", path="kernel")
    if tandem_math is not None:
        params["math"] = tandem_math
    rec = {"case": "lstm/perf/deepbench/B:16/T:25/I:512/H:512/L:1/bidi:0/fwd", "backend": "cuda",
           "verdict": "pass", "params": params, "timing": {"min": 1e-3}}
    row = dict(SHAPE, mode="fwd", min_s=torch_min)
    if torch_math is not None:
        row["math"] = torch_math
    (tmp_path / "r.json").write_text(json.dumps({"records": [rec]}))
    (tmp_path / "t.json").write_text(json.dumps({"tool": "torch fake", "math": torch_math, "results": [row]}))
    return subprocess.run([sys.executable, SCRIPT, str(tmp_path / "r.json"), str(tmp_path / "t.json")],
                          capture_output=True, text=True)


def test_same_math_mode_pairs(tmp_path):
    p = run(tmp_path, "fp32", "fp32")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "| fp32 | 1.000 | 2.000 | 2.000 |" in p.stdout


def test_different_math_modes_are_refused(tmp_path):
    p = run(tmp_path, "fp32", "tf32")
    assert p.returncode == 1
    assert "REFUSED: math modes differ (tandem fp32, torch tf32)" in p.stdout
    assert "1 pair(s) refused, 0 compared" in p.stderr


def test_a_row_without_its_math_mode_is_refused(tmp_path):
    for ours, theirs in (("fp32", None), (None, "fp32")):
        p = run(tmp_path, ours, theirs)
        assert p.returncode == 1 and "REFUSED: math mode not recorded" in p.stdout
