#!/usr/bin/env python3
"""tandem's Program path against XLA:CPU on the same JAX programs, at the sizes users train at:
each example of examples/ scaled up (a row of SIZES), exported as a user would
(tools/import/export_jax_program.py), then timed forward and gradient through the engine
(build/lab/program_bench: the program's forward, and its gradient as the
vjp/policy:everything_saveable case runs it) and through
`jax.jit` of the same function (forward; `jax.vjp` with a ones cotangent for the gradient, as
the engine's vjp case), on the same inputs (the export's), in interleaved rounds: each round
runs every (row, threads) pair once on both sides, so a change of load hits both.

Threads: `1` pins both to one core (taskset -c 0) with every BLAS/OpenMP pool and XLA's Eigen
pool at one thread; `all` leaves both free on every core. Each side's figure for a round is
its mean time per call over >= MIN_TIME seconds; the record keeps every round, the table
takes the minimum over rounds (and the load average of each round).

    lab/bench/program_vs_xla.py --bench build/lab/program_bench --out lab/records/program/vs-xla.jsonl
        [--rounds 5] [--rows lstm_scan:T25B32,mlp_checkpoint:B128] [--threads 1,all]
        [--min-time 0.5]

`--threads all-spin` adds a third setting, free as `all` with the engine's threads spinning
briefly before they sleep (SHORT_SPIN), measured in the same rounds as the others.

Writes one JSON line per (row, threads, round, side, case) to --out (atomically, at the end
of each round, so a cut run keeps its finished rounds). Exit 4 on bad usage, 77 without JAX.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "import"))
from check_at_size import machine  # noqa: E402  (the CPU facts every timing carries)
EXPORT = os.path.join(ROOT, "tools", "import", "export_jax_program.py")
WORKER = os.path.join(ROOT, "lab", "bench", "program_vs_xla_worker.py")

# One table of rows: example file, the module constants a user would change to scale it, and
# (when its example_args hard-codes a size) the expression that rebuilds the argument.
SIZES = {
    "lstm_scan:T25B32": ("lstm_scan.py", {"T": 25, "BATCH": 32, "IN": 256, "HIDDEN": 256, "OUT": 2}),
    "lstm_scan:T25B64H512": ("lstm_scan.py", {"T": 25, "BATCH": 64, "IN": 512, "HIDDEN": 512, "OUT": 2}),
    "lstm_scan:T100B128": ("lstm_scan.py", {"T": 100, "BATCH": 128, "IN": 256, "HIDDEN": 256, "OUT": 2}),
    "mlp_checkpoint:B128D512": ("mlp_checkpoint.py", {"SIZES": (512, 512, 512, 512, 512), "BATCH": 128}),
    "mlp_checkpoint:B256D1024": ("mlp_checkpoint.py", {"SIZES": (1024, 1024, 1024, 1024, 1024), "BATCH": 256}),
    "attention_vmap:S128D256": ("attention_vmap.py", {"SEQ": 128, "DIM": 256, "BATCH": 32}),
}
# Arguments an example hard-codes for its own small size, rebuilt for the scaled one.
ARG_FIXES = {
    "lstm_scan.py": "args = list(args); args[3] = np.random.default_rng(3).integers(1, T + 1, BATCH).astype(np.int32)",
}
ONE_THREAD_ENV = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                  "TANDEM_LSTM_THREADS": "1",
                  "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"}


def refuse(message, hint, code=4):
    print(f"error: {message}\n  hint: {hint}", file=sys.stderr)
    sys.exit(code)


def scaled_source(example, constants):
    """A file that loads the example, sets its constants and rebuilds what they size."""
    path = os.path.join(ROOT, "examples", example)
    sets = "\n".join(f"base.{k} = {v!r}" for k, v in constants.items())
    fix = ARG_FIXES.get(example, "")
    return f'''import importlib.util
import numpy as np
_spec = importlib.util.spec_from_file_location("base", {path!r})
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
{sets}
globals().update({{k: getattr(base, k) for k in {list(constants)!r}}})
function = base.function
if hasattr(base, "VMAP"):
    VMAP = dict(base.VMAP, size=base.BATCH) if "BATCH" in {list(constants)!r} else base.VMAP
def example_args():
    args = base.example_args()
    {fix or "pass"}
    return tuple(args)
'''


def export_row(row, folder, python):
    example, constants = SIZES[row]
    src = os.path.join(folder, "scaled.py")
    with open(src, "w") as f:
        f.write(scaled_source(example, constants))
    out = os.path.join(folder, "export")
    subprocess.run([python, EXPORT, src, "--out", out], check=True, stdout=subprocess.DEVNULL)
    return src, out


# `all-spin`: free on every core as `all`, the engine's OpenMP threads spinning this many of
# libgomp's spins (about 10 µs) before they sleep instead of sleeping at once (PASSIVE).
SHORT_SPIN = "1000"


def thread_env(threads):
    env = dict(os.environ)
    prefix = []
    if threads == "1":
        env.update(ONE_THREAD_ENV)
        prefix = ["taskset", "-c", "0"]
    if threads == "all-spin":
        env["GOMP_SPINCOUNT"] = SHORT_SPIN
    return env, prefix


def tandem_times(bench, export, threads, min_time):
    """{case: seconds per call} from one program_bench process (the engine, unchecked: the
    reference's check, which `tandem bench` runs first, takes minutes at these sizes)."""
    env, prefix = thread_env(threads)
    # As tandem's case workers run every case (runners/cli/case_workers.cc): libgomp's threads
    # sleep while they wait instead of spinning, which on a busy machine took the cores the
    # working threads needed (T25B32 at 2 threads, load 12: gradient 1.9 s spinning, 0.2 s
    # passive). The record says which policy ran.
    # GOMP_SPINCOUNT in the environment (a short spin, then sleep) replaces that default.
    if "GOMP_SPINCOUNT" not in env:
        env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    cmd = prefix + [bench, "--program", export, "--reps", "1", "--min-time", str(min_time)]
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(run.stdout.splitlines()[0])


def wait_policy(threads):
    """How the engine's OpenMP threads waited, as tandem_times set it."""
    env, _ = thread_env(threads)
    spin = env.get("GOMP_SPINCOUNT")
    return {"omp_wait_policy": env.get("OMP_WAIT_POLICY", "default" if spin else "PASSIVE"),
            "gomp_spincount": spin}


def start_worker(python, threads):
    env, prefix = thread_env(threads)
    return subprocess.Popen(prefix + [python, WORKER], env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def xla_times(worker, source, min_time):
    worker.stdin.write(json.dumps({"source": source, "min_time": min_time}) + "\n")
    worker.stdin.flush()
    reply = json.loads(worker.stdout.readline())
    if "error" in reply:
        raise RuntimeError(reply["error"])
    return reply


def append_atomic(path, lines):
    old = open(path).read() if os.path.exists(path) else ""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(old + "".join(json.dumps(l) + "\n" for l in lines))
    os.replace(tmp, path)


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bench", required=True, help="build/lab/program_bench")
    p.add_argument("--out", required=True)
    p.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"))
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--rows", default=",".join(SIZES))
    p.add_argument("--threads", default="1,all")
    p.add_argument("--min-time", type=float, default=0.5)
    a = p.parse_args(argv)
    a.rows, a.threads = a.rows.split(","), a.threads.split(",")
    for r in a.rows:
        if r not in SIZES:
            refuse(f"unknown row {r!r}", "rows: " + ", ".join(SIZES))
    for t in a.threads:
        if t not in ("1", "all", "all-spin"):
            refuse(f"unknown thread setting {t!r}", "--threads takes 1, all, all-spin or a list: 1,all")
    if not os.access(a.bench, os.X_OK):
        refuse(f"{a.bench} is not an executable", "build it: cmake --build build --target program_bench")
    return a


def main(argv):
    a = parse(argv)
    if subprocess.run([a.python, "-c", "import jax"], capture_output=True).returncode:
        refuse(f"{a.python} has no JAX", "python3 -m venv .venv && .venv/bin/pip install jax", 77)
    facts = dict(machine(), date=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    with tempfile.TemporaryDirectory() as tmp:
        exports = {}
        for row in a.rows:
            os.makedirs(os.path.join(tmp, row))
            exports[row] = export_row(row, os.path.join(tmp, row), a.python)
        workers = {t: start_worker(a.python, t) for t in a.threads}
        for rnd in range(a.rounds):
            lines = []
            for row in a.rows:
                for t in a.threads:
                    load = os.getloadavg()[0]
                    source, export = exports[row]
                    sides = {"tandem": tandem_times(a.bench, export, t, a.min_time),
                             "xla": xla_times(workers[t], source, a.min_time)}
                    for side, times in sides.items():
                        for case, s in times.items():
                            lines.append(dict(facts, row=row, threads=t, round=rnd, side=side, case=case,
                                              seconds=s, load=round(load, 2),
                                              **(wait_policy(t) if side == "tandem" else {})))
            append_atomic(a.out, lines)
            print(f"round {rnd + 1}/{a.rounds} written ({len(lines)} lines), load {os.getloadavg()[0]:.1f}",
                  file=sys.stderr)
        for w in workers.values():
            w.stdin.close()
            w.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
