#!/usr/bin/env python3
"""Times PyTorch's nn.LSTM on CPU on tandem's LSTM performance shapes, for lab/README.md.

Optional: needs Debian's python3-torch (`apt-get install python3-torch`, not in ci/deps.txt:
it is large). The shapes come from `lstm_cpu_bench --list-shapes` (lab/bench) or from the records
of tandem's own lstm/perf cases (what ci/gpu_validate.sh gives it), so both sides time the same
list. Forward is inference (torch.no_grad); forward+backward is the forward with autograd then
backward of a seeded cotangent on y (dh_n, dc_n too), as lstm_cpu_bench does. FLOPs use
the same formula (GEMM terms; forward+backward = 3 x forward). Reported: min wall time
over --reps and GFLOP/s from it, and min process CPU time with GFLOP per CPU-second.
Run it with OPENBLAS_NUM_THREADS set to --threads: torch's GEMMs go to OpenBLAS, whose
threads torch.set_num_threads does not govern.

    tools/oracles/torch_lstm_bench.py --shapes shapes.json [--threads N] [--reps N] [--filter SUBSTR] [--math fp32|tf32] > torch.json
--math is the matmul math mode, set explicitly rather than left to PyTorch's defaults (which let
cuDNN use TF32): fp32 turns TF32 off for cuDNN and for matmuls (tandem's HIGHEST, the lstm/perf
cases' precision), tf32 turns it on (tandem's HIGH); the JSON records the mode and the flags as
PyTorch reports them, and ci/gpu_lstm_vs_torch.py pairs only rows of the same mode.
--records FILE also writes tandem records (lstm perf cases named as the suite names its own,
implementation "PyTorch nn.LSTM (CPU|cuDNN)") for `tandem report` (reports/bench_records.py).
"""
import argparse
import json
import os
import statistics
import sys
import time

# The --math modes: PyTorch's two TF32 switches for each (cuDNN's defaults to True).
MATH_MODES = {"fp32": {"cudnn": False, "matmul": False}, "tf32": {"cudnn": True, "matmul": True}}


def forward_flops(s):
    d = 2 if s["bidirectional"] else 1
    proj = rec = 0.0
    for layer in range(s["layers"]):
        inp = s["input"] if layer == 0 else d * s["hidden"]
        for _ in range(d):
            proj += 2.0 * s["batch"] * s["seq"] * 4 * s["hidden"] * inp
            rec += 2.0 * s["batch"] * s["seq"] * 4 * s["hidden"] * s["hidden"]
    return proj, rec


def time_reps(reps, body, sync=lambda: None):
    """Sorted wall and process-CPU (all threads) seconds of `reps` runs after a warm-up; `sync`
    waits for the device (--device cuda: kernels run asynchronously)."""
    body()
    sync()
    wall, cpu = [], []
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        body()
        sync()
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return sorted(wall), sorted(cpu)


def apply_math_mode(torch, math):
    """Sets PyTorch's TF32 switches for `math` and returns them as PyTorch then reports them."""
    want = MATH_MODES[math]
    torch.backends.cudnn.allow_tf32 = want["cudnn"]
    torch.backends.cuda.matmul.allow_tf32 = want["matmul"]
    return {"cudnn": bool(torch.backends.cudnn.allow_tf32), "matmul": bool(torch.backends.cuda.matmul.allow_tf32)}


def load_shapes(path):
    """The shapes to time: lstm_cpu_bench's list as is, or the kernel-path lstm/perf cases of a
    tandem records file (their params), one shape per configuration, train when a train case ran."""
    data = json.load(open(path))
    if isinstance(data, list):
        return data
    shapes = {}
    for r in data.get("records", []):
        p, name = r.get("params", {}), r.get("case", "").split("/")
        if name[:2] != ["lstm", "perf"] or p.get("path") != "kernel":
            continue
        s = {"label": name[2], "batch": p["batch"], "seq": p["seq"], "input": p["input"], "hidden": p["hidden"],
             "layers": p["layers"], "bidirectional": bool(p["bidirectional"])}
        key = json.dumps(s, sort_keys=True)
        shapes.setdefault(key, dict(s, train=False))["train"] |= p.get("mode") == "train"
    return list(shapes.values())


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", required=True, help="JSON from lstm_cpu_bench --list-shapes, or tandem records of lstm/perf cases")
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: all cores)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--filter", default="", help="substrings of a shape's compact JSON or label, |-separated")
    ap.add_argument("--device", default="cpu", help="cpu, or cuda: nn.LSTM on cuDNN (ci/gpu_validate.sh)")
    ap.add_argument("--records", help="also write tandem records (tandem.records/1) to this file, for tandem report")
    ap.add_argument("--math", choices=sorted(MATH_MODES), default="fp32",
                    help="fp32: TF32 off for cuDNN and matmuls (tandem's HIGHEST, its lstm/perf cases); "
                         "tf32: on (tandem's HIGH)")
    return ap.parse_args(argv)


def main():
    a = parse_args()
    import torch  # here, so the argument parsing and math modes are testable without torch

    allow_tf32 = apply_math_mode(torch, a.math)
    if a.records:  # reports/ of this checkout: the records writer and its schema
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        from reports import bench_records
        ctx = bench_records.run_context(torch=torch.__version__)
        recs = []
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    threads = a.threads or len(os.sched_getaffinity(0))
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    results = []
    for s in load_shapes(a.shapes):
        # The shape's compact JSON, as lstm_cpu_bench matches it; "|" separates alternatives.
        compact = json.dumps(s, separators=(",", ":"), sort_keys=True)
        if a.filter and not any(f in compact or f in s["label"] for f in a.filter.split("|")):
            continue
        d = 2 if s["bidirectional"] else 1
        B, T, H, L = s["batch"], s["seq"], s["hidden"], s["layers"]
        lstm = torch.nn.LSTM(s["input"], H, num_layers=L, bidirectional=s["bidirectional"], batch_first=True).to(dev)
        x = (torch.rand(B, T, s["input"]) * 0.2 - 0.1).to(dev)
        h0, c0 = torch.zeros(L * d, B, H, device=dev), torch.zeros(L * d, B, H, device=dev)
        dy = (torch.rand(B, T, d * H) * 0.2 - 0.1).to(dev)
        dh, dc = (torch.rand(L * d, B, H) * 0.2 - 0.1).to(dev), (torch.rand(L * d, B, H) * 0.2 - 0.1).to(dev)
        proj, rec = forward_flops(s)

        def fwd():
            with torch.no_grad():
                lstm(x, (h0, c0))

        def fwd_bwd():
            xg = x.clone().requires_grad_(True)
            y, (hn, cn) = lstm(xg, (h0.clone().requires_grad_(True), c0.clone().requires_grad_(True)))
            torch.autograd.backward([y, hn, cn], [dy, dh, dc])

        modes = [("fwd", 1.0, fwd)] + ([("fwd+bwd", 3.0, fwd_bwd)] if s["train"] else [])
        for mode, factor, body in modes:
            wall, cpu = time_reps(a.reps, body, sync)
            flops = factor * (proj + rec)
            r = dict(s, mode=mode, math=a.math, median_s=statistics.median(wall), min_s=wall[0], min_cpu_s=cpu[0],
                     reps=len(wall), flops=flops, projection_flops=factor * proj, recurrent_flops=factor * rec,
                     gflops=flops / wall[0] / 1e9, gflops_cpu=flops / cpu[0] / 1e9,
                     load_average=os.getloadavg()[0])
            print(f"{s['label']} B{B} T{T} H{H} L{L}{' bidi' if d == 2 else ''} {mode}: "
                  f"min {wall[0] * 1e3:.1f} ms wall, {cpu[0] * 1e3:.1f} ms cpu; {r['gflops']:.2f} GFLOP/s wall, "
                  f"{r['gflops_cpu']:.2f} per cpu-second", file=sys.stderr)
            results.append(r)
            if a.records:
                impl = "PyTorch nn.LSTM (cuDNN)" if dev.type == "cuda" else "PyTorch nn.LSTM (CPU)"
                recs.append(bench_records.lstm_record(s, "train" if mode == "fwd+bwd" else mode, wall, cpu, impl,
                                                      dev.type, ctx, {"threads": torch.get_num_threads(), "math": a.math}))
    json.dump({"tool": f"torch {torch.__version__} nn.LSTM", "device": str(dev),
               "gpu": torch.cuda.get_device_name(dev) if dev.type == "cuda" else "",
               "cudnn": torch.backends.cudnn.version() if dev.type == "cuda" else None,
               "threads": torch.get_num_threads(), "math": a.math, "allow_tf32": allow_tf32,
               "reps": a.reps, "results": results}, sys.stdout, indent=1)
    print()
    if a.records:
        bench_records.write(a.records, recs)


if __name__ == "__main__":
    main()
