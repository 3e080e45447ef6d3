"""Tests of torch_lstm_bench.py's math mode, without PyTorch: --math parsing, the TF32
switches it sets (PyTorch's cuDNN one defaults to True, which once timed PyTorch at TF32
against tandem at FP32), and a whole CPU run against a stand-in `torch` module that records
the switches, so the JSON is checked to say the mode and the flags as PyTorch reports them."""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import types

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "torch_lstm_bench.py")


def load():
    spec = importlib.util.spec_from_file_location("torch_lstm_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # must not need torch
    return mod


def fake_torch_flags():
    """The two switches as torch has them, at PyTorch's defaults (cuDNN True, matmul False)."""
    return types.SimpleNamespace(backends=types.SimpleNamespace(
        cudnn=types.SimpleNamespace(allow_tf32=True),
        cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False))))


def test_math_defaults_to_fp32_and_rejects_other_modes(capsys):
    m = load()
    assert m.parse_args(["--shapes", "s.json"]).math == "fp32"
    assert m.parse_args(["--shapes", "s.json", "--math", "tf32"]).math == "tf32"
    with pytest.raises(SystemExit):
        m.parse_args(["--shapes", "s.json", "--math", "bf16"])
    assert "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("math,want", [("fp32", False), ("tf32", True)])
def test_math_mode_sets_both_tf32_switches(math, want):
    m = load()
    t = fake_torch_flags()
    assert m.apply_math_mode(t, math) == {"cudnn": want, "matmul": want}
    assert t.backends.cudnn.allow_tf32 is want and t.backends.cuda.matmul.allow_tf32 is want


# A stand-in for the parts of torch the script's CPU path uses; tensors are plain floats.
FAKE_TORCH = textwrap.dedent('''
    import contextlib, types
    __version__ = "0.0-fake"
    backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(allow_tf32=True, version=lambda: None),
                                     cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=False)))
    cuda = types.SimpleNamespace(synchronize=lambda: None, get_device_name=lambda d: "")
    _threads = [1]
    def set_num_threads(n): _threads[0] = n
    def get_num_threads(): return _threads[0]
    def manual_seed(s): pass
    class _T(float):
        def __new__(cls, v=0.0): return float.__new__(cls, v)
        def to(self, d): return self
        def clone(self): return self
        def requires_grad_(self, f): return self
        def __mul__(self, o): return _T(0.0)
        def __sub__(self, o): return _T(0.0)
    def rand(*s): return _T()
    def zeros(*s, device=None): return _T()
    def device(name): return types.SimpleNamespace(type=name)
    no_grad = contextlib.nullcontext
    class _LSTM:
        def __init__(self, *a, **k): pass
        def to(self, d): return self
        def __call__(self, x, hc): return _T(), (_T(), _T())
    nn = types.SimpleNamespace(LSTM=_LSTM)
    autograd = types.SimpleNamespace(backward=lambda outs, grads: None)
''')

SHAPE = {"label": "tiny", "batch": 1, "seq": 2, "input": 3, "hidden": 4, "layers": 1, "bidirectional": False,
         "train": True}


@pytest.mark.parametrize("math", ["fp32", "tf32"])
def test_cpu_run_records_the_math_mode(tmp_path, math):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(FAKE_TORCH)
    shapes = tmp_path / "shapes.json"
    shapes.write_text(json.dumps([SHAPE]))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    p = subprocess.run([sys.executable, SCRIPT, "--shapes", str(shapes), "--reps", "1", "--math", math],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    on = math == "tf32"
    assert out["math"] == math and out["allow_tf32"] == {"cudnn": on, "matmul": on}
    assert [r["mode"] for r in out["results"]] == ["fwd", "fwd+bwd"]
    assert all(r["math"] == math for r in out["results"])


def test_shapes_from_tandem_records(tmp_path):
    """ci/gpu_validate.sh gives the lstm/perf records as the shapes: one shape per configuration,
    train when its train case ran, the Program path's cases and other suites left out."""
    m = load()
    params = {"batch": 1, "seq": 2, "input": 3, "hidden": 4, "layers": 1, "bidirectional": False}
    recs = [{"case": "lstm/perf/tiny/B:1/fwd", "params": dict(params, path="kernel", mode="fwd")},
            {"case": "lstm/perf/tiny/B:1/train", "params": dict(params, path="kernel", mode="train")},
            {"case": "lstm/perf/tiny/B:1/program/fwd", "params": dict(params, path="program", mode="fwd")},
            {"case": "lstm/perf/inf/B:1/fwd", "params": dict(params, batch=8, path="kernel", mode="fwd")},
            {"case": "dot/perf/N:512", "params": {"path": "kernel"}}]
    f = tmp_path / "records.json"
    f.write_text(json.dumps({"schema": "tandem.records/1", "records": recs}))
    assert m.load_shapes(str(f)) == [dict(SHAPE), dict(SHAPE, label="inf", batch=8, train=False)]
    listed = tmp_path / "shapes.json"
    listed.write_text(json.dumps([SHAPE]))
    assert m.load_shapes(str(listed)) == [SHAPE]
