#!/usr/bin/env python3
"""`tandem check --program` at the size a user trains at: examples/lstm_scan.py (an LSTM over
lax.scan, masked MSE) scaled to B64 T25 IN512 H512 by setting its module constants, exported
as a user would (tools/import/export_jax_program.py), then checked, and the wall time with
the machine's load and CPU printed. The export is written at run time (its inputs are ~12 MB
of .npy), never committed.

    tools/import/check_at_size.py --tandem build/tandem --out /tmp/lstm_big
        [--set T=25 --set BATCH=64 --set IN=512 --set HIDDEN=512 --set OUT=2]
        [--export-only] [-- extra tandem check arguments]

Prints one JSON line: the size, the wall and CPU time of `tandem check --program` (its
progress, with each case's finishing time, on stderr), its exit code, the load average before
and after, the CPU model and ISA, and the count of each verdict (from the records). Exits with the check's code (4 on bad usage, 77 without JAX).
"""
import argparse
import platform
import json
import os
import resource
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPORT = os.path.join(ROOT, "tools", "import", "export_jax_program.py")
EXAMPLE = os.path.join(ROOT, "examples", "lstm_scan.py")
DEFAULT_SIZE = {"T": 25, "BATCH": 64, "IN": 512, "HIDDEN": 512, "OUT": 2}


def scaled_source(constants):
    """A file that loads the example, sets its size constants and redraws what it hard-codes
    for its own small size (the sequence lengths: one per batch row, in [1, T])."""
    sets = "\n".join(f"base.{k} = {v!r}" for k, v in constants.items())
    return f'''import importlib.util
import numpy as np
_spec = importlib.util.spec_from_file_location("base", {EXAMPLE!r})
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
{sets}
function = base.function
def example_args():
    args = list(base.example_args())
    args[3] = np.random.default_rng(3).integers(1, base.T + 1, base.BATCH).astype(np.int32)
    return tuple(args)
'''


def parse_sets(items):
    size = dict(DEFAULT_SIZE)
    for item in items:
        key, _, value = item.partition("=")
        if key not in DEFAULT_SIZE or not value.isdigit() or int(value) < 1:
            print(f"error: --set {item}: not one of {', '.join(DEFAULT_SIZE)} = a positive integer\n"
                  "  hint: --set HIDDEN=512", file=sys.stderr)
            sys.exit(4)
        size[key] = int(value)
    return size


def machine():
    """The CPU as /proc/cpuinfo names it (model name, family and model), its widest x86 vector ISA
    (else the architecture) and the cores: what a timing needs beside it (lab/bench reads it too)."""
    info = {}
    for line in open("/proc/cpuinfo"):
        key, _, value = line.partition(":")
        info.setdefault(key.strip(), value.strip())
    flags = info.get("flags", "").split()
    isa = "avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else platform.machine()
    cpu = f'{info.get("model name", "?")} family {info.get("cpu family", "?")} model {info.get("model", "?")}'
    return {"cpu": cpu, "isa": isa, "cores": os.cpu_count()}


def verdicts(records_path):
    try:
        records = json.load(open(records_path))
    except (OSError, ValueError):
        return {}
    records = records.get("records", records) if isinstance(records, dict) else records
    counts = {}
    for r in records:
        counts[r.get("verdict")] = counts.get(r.get("verdict"), 0) + 1
    return counts


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tandem", default=os.path.join(ROOT, "build", "tandem"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=N")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--export-only", action="store_true")
    ap.add_argument("rest", nargs="*", help="after --: more `tandem check` arguments")
    a = ap.parse_args(argv)
    size = parse_sets(a.set)
    os.makedirs(a.out, exist_ok=True)
    src, export = os.path.join(a.out, "scaled_lstm_scan.py"), os.path.join(a.out, "export")
    with open(src, "w") as f:
        f.write(scaled_source(size))
    done = subprocess.run([a.python, EXPORT, src, "--out", export], stdout=subprocess.DEVNULL)
    if done.returncode != 0 or a.export_only:
        return done.returncode
    load0 = os.getloadavg()
    start = time.monotonic()
    run = subprocess.run([a.tandem, "check", "--program", export, "--out", os.path.join(a.out, "records")] + a.rest)
    wall = time.monotonic() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"size": size, "wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1), "exit": run.returncode,
                      "load_before": [round(x, 2) for x in load0],
                      "load_after": [round(x, 2) for x in os.getloadavg()], **machine(),
                      "verdicts": verdicts(os.path.join(a.out, "records", "records.json"))}))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
