# Writes the generated fixture records under fixtures/ (one file per suite), seeded so they
# never change: `/usr/bin/python3 reports/tests/make_fixtures.py`. Hand-made fixtures
# (dot_small.json, the broken files) live beside them and are not touched.
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent / "fixtures"
CONTEXT = {"git_sha": "5d38602abc", "compiler": "g++ 12.2.0", "build_type": "Release", "host": "ci-1",
           "cpu_threads": 2, "ranks": 1, "blas": "OpenBLAS 0.3.21", "blas_threads": 2}
rng = random.Random(5)


def timing(median, reps=5, noise=0.02):
    s = [round(median * (1 + rng.uniform(-noise, noise)), 9) for _ in range(reps)]
    ss = sorted(s)
    return {"unit": "s", "median": ss[reps // 2], "min": ss[0], "max": ss[-1], "p99": ss[-1],
            "mean": round(sum(s) / reps, 12), "repetitions": reps, "samples": s}


def record(suite, case, params, backend, metrics, t=None, verdict="pass", correctness=None, ctx=None):
    r = {"schema": "tandem.records/1", "suite": suite, "case": f"{case}/{backend}", "params": params,
         "backend": backend, "device": "cuda:0" if backend == "cuda" else "cpu", "verdict": verdict,
         "message": "", "correctness": correctness, "info": {},
         "metrics": [{"name": n, "value": v, "unit": u, "direction": d} for n, v, u, d in metrics],
         "context": dict(ctx or CONTEXT)}
    if t is not None:
        r["timing"] = t
    return r


def check(max_abs, max_rel, ratio, rel_tol):
    return {"out": {"pass": ratio <= 1, "count": 64, "bad": 0 if ratio <= 1 else 3, "max_abs": max_abs,
                    "max_rel": max_rel, "error_over_tolerance": ratio,
                    "tolerance": {"abs": 0, "rel": rel_tol, "scaled": 0, "why": "fixture"}}}


def dot():
    out = []
    presets = {"F32_F32_F32": 6e-8, "BF16_BF16_F32": 4e-3, "BF16_BF16_F32_X3": 1e-5, "TF32_TF32_F32": 5e-4,
               "F16_F16_F32": 5e-4}
    for alg, u in presets.items():
        for m, k, n in ((4, 8, 4), (17, 33, 9), (64, 256, 32)):
            rel = u * rng.uniform(0.05, 0.8)
            t = 2e-6 + 2 * m * k * n / (rng.uniform(5, 50) * 1e9)
            out.append(record("dot", f"dot/B:1/M:{m}/K:{k}/N:{n}/in:f32/alg:{alg}",
                              {"batch": 1, "m": m, "k": k, "n": n, "input_dtype": "f32", "algorithm": alg}, "cpu",
                              [("gflops", 2 * m * k * n / t / 1e9, "GFLOP/s", "higher"), ("time_median", t, "s", "lower")],
                              timing(t), correctness=check(rel * 3, rel, rel / (u * 4), u * 4)))
    out[4]["verdict"], out[4]["correctness"] = "fail", check(0.5, 0.2, 12.0, 1e-7)
    out[4].pop("timing")
    table = {p: {"max_error_over_sum_abs": u * 0.3, "log2": 0} for p, u in presets.items()}
    out.append(record("dot", "dot/accuracy_order/M:32/K:256/N:32", {"m": 32, "k": 256, "n": 32}, "cpu", [],
                      correctness={"normalized_error": table, "checks": {"X3 more accurate than one bf16 pass": True}}))
    out.append(record("dot", "dot/B:1/M:4/K:8/N:4/in:f32/alg:F32_F32_F32", {"algorithm": "F32_F32_F32"}, "cuda", [],
                      verdict="skip"))
    out[-1]["message"] = "no CUDA device: GPU cases skip"
    for n in (512, 1024, 2048):  # the nightly perf cases: presets next to sgemm called directly
        for alg, speed in (("blas_sgemm", 60.0), ("F32_F32_F32", 57.0), ("BF16_BF16_F32_X3", 19.0), ("BF16_BF16_F32_X6", 10.0)):
            g = speed * (n / 2048) ** 0.2 * rng.uniform(0.95, 1.05)
            t = 2 * n ** 3 / (g * 1e9)
            out.append(record("dot", f"dot/perf/N:{n}/" + (alg if alg == "blas_sgemm" else f"alg:{alg}"),
                              {"m": n, "k": n, "n": n, "input_dtype": "f32", "algorithm": alg}, "cpu",
                              [("gflops", g, "GFLOP/s", "higher"), ("time_median", t, "s", "lower")], timing(t)))
            if alg != "blas_sgemm":
                out[-1]["info"] = {"algorithm_run": alg, "baseline": f"dot/perf/N:{n}/blas_sgemm"}
        for alg, speed in (("cublas_gemm_ex", 40000.0), ("F32_F32_F32", 39000.0)):  # the same names on CUDA
            g = speed * (n / 2048) ** 0.5
            t = 2 * n ** 3 / (g * 1e9)
            out.append(record("dot", f"dot/perf/N:{n}/" + (alg if alg.startswith("cublas") else f"alg:{alg}"),
                              {"m": n, "k": n, "n": n, "input_dtype": "f32", "algorithm": alg}, "cuda",
                              [("gflops", g, "GFLOP/s", "higher"), ("time_median", t, "s", "lower")], timing(t)))
            if not alg.startswith("cublas"):
                out[-1]["info"] = {"algorithm_run": alg, "baseline": f"dot/perf/N:{n}/cublas_gemm_ex"}
    return out


def lstm():
    """Perf records as suites/lstm/lstm_perf_cases.cc writes them (plus the Program path and
    PyTorch series that tools/oracles/torch_lstm_bench.py --records adds)."""
    out = []
    for label, b, t, h in (("deepbench", 16, 25, 512), ("fastrnns", 64, 100, 512), ("infer_b1", 1, 100, 512)):
        fwd = 2.0 * b * t * 4 * h * h
        for mode, factor in (("fwd", 1), ("train", 3)):
            if label == "infer_b1" and mode == "train":
                continue
            params = {"batch": b, "seq": t, "input": h, "hidden": h, "layers": 1, "bidirectional": False, "mode": mode,
                      "fwd_projection_flops": fwd, "fwd_recurrent_flops": fwd}
            for backend, impl, speed in (("cpu", None, 40.0), ("cpu", "program", 25.0), ("cuda", None, 9000.0),
                                         ("cpu", "PyTorch nn.LSTM (CPU)", 35.0)):
                if impl == "program" and mode == "train":
                    continue
                g = speed * (b / 64) ** 0.3 * rng.uniform(0.9, 1.1)
                extra = {"path": "program"} if impl == "program" else ({"implementation": impl} if impl else {})
                name = f"lstm/perf/{label}/B:{b}/T:{t}/I:{h}/H:{h}/L:1/bidi:0" + ("/program" if impl == "program" else "") + f"/{mode}"
                out.append(record("lstm", name + ("/torch" if impl and impl != "program" else ""), dict(params, **extra), backend,
                                  [("gflops", g, "GFLOP/s", "higher")],
                                  timing(factor * 2 * fwd / (g * 1e9))))
    return out


def collectives():
    out = []
    for op, factor in (("psum", 2 * 7 / 8), ("all_gather", 7 / 8), ("ragged_all_to_all", 7 / 8)):
        for e in range(10, 29, 3):
            size = 2 ** e
            algbw = 90 * size / (size + 2 ** 20)
            t = size / (algbw * 1e9)
            out.append(record("collectives", f"collectives/{op}/bytes:{size}/dtype:f32", {"op": op, "bytes": size, "dtype": "f32"},
                              "cuda", [("algbw", algbw, "GB/s", "higher"), ("busbw", algbw * factor, "GB/s", "higher")],
                              timing(t), ctx=dict(CONTEXT, ranks=8, gpu="NVIDIA H100 80GB HBM3", nccl="2.21.5")))
    return out


def scan_hoist():
    out = []
    for length in (16, 256, 4096):
        out.append(record("scan_hoist", f"scan_hoist/length:{length}/reduce:sum", {"length": length, "reduce": "sum"}, "cpu",
                          [("speedup", 1 + length / 1000, "x", "higher"), ("peak_bytes", 4096 * 8, "B", "lower"),
                           ("peak_bytes_unhoisted", 4096 * length, "B", "lower")], timing(1e-6 * length)))
    table = [{"L": L, "E": E, "speedup": 0.4 + E / 5000 * L / 32, "peak_original_bytes": 8 * L * E,
              "peak_hoisted_bytes": 16 * E + 64 * L} for L in (16, 32, 64) for E in (256, 1024, 4096)]
    out.append(record("scan_hoist", "scan_hoist/sweep/mse/L:16-64/E:256-4096", {}, "cpu",
                      [("speedup_at_largest", table[-1]["speedup"], "x", "higher")], timing(1e-4)))
    out[-1]["info"] = {"table": table}  # as suites/scan_hoist/scan_hoist_sweep.cc writes it
    return out


def vmap():  # a suite with no plots of its own: the generic fallback draws it
    return [record("vmap", f"vmap/prim:{p}/batch:{b}", {"prim": p, "batch": b}, "cpu", [("time_median", 1e-5 * b, "s", "lower")],
                   timing(1e-5 * b)) for p in ("dot", "reduce") for b in (1, 64)]


# remat.json is not made here: it is what the real binary writes (so a renamed metric shows),
#   build/tandem run --suite remat --profile quick -n 5 -q --filter '/(mlp|attention)/' --out DIR
# and DIR/records.json copied over.
if __name__ == "__main__":
    for name, fn in (("dot", dot), ("lstm", lstm), ("collectives", collectives),
                     ("scan_hoist", scan_hoist), ("vmap", vmap)):
        lines = ",\n".join(json.dumps(r, separators=(",", ":")) for r in fn())
        (HERE / f"{name}.json").write_text('{"schema": "tandem.records/1", "records": [\n' + lines + "\n]}\n")
