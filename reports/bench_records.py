# Records (tandem.records/1) for measurements taken outside `tandem run`, so `tandem report` draws them beside tandem's
# own: tools/oracles/torch_lstm_bench.py --records FILE writes PyTorch's nn.LSTM on the suite's perf shapes as lstm perf
# records. The context carries what harness/context.cc writes (date, CPU, cores, load at start and end, git sha at run
# time, command line); the file is validated against record.schema.json before it is written.
import datetime
import json
import os
import platform
import shlex
import socket
import statistics
import subprocess
import sys
from pathlib import Path

from reports import atomic, records

ROOT = Path(__file__).resolve().parent.parent


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def git_sha():
    p = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() if p.returncode == 0 else "unknown"


def run_context(**extra):
    """The start-of-run context; `finish` adds the end fields."""
    ctx = {"date": utc_now(), "load_avg_start": list(os.getloadavg()), "command_line": shlex.join(sys.argv),
           "git_sha": git_sha(), "host": socket.gethostname(), "cpu_model": cpu_model(),
           "cpu_threads": os.cpu_count(), "python": platform.python_version(), "ranks": 1}
    ctx.update(extra)
    return ctx


def timing(samples, cpu_samples=()):
    s = sorted(samples)
    t = {"unit": "s", "median": statistics.median(s), "min": s[0], "max": s[-1], "mean": statistics.fmean(s),
         "repetitions": len(s), "samples": list(samples)}
    if cpu_samples:
        t.update(cpu_median=statistics.median(cpu_samples), cpu_samples=list(cpu_samples))
    return t


def lstm_record(shape, mode, samples, cpu_samples, implementation, backend, ctx, info=None):
    """A perf record of an LSTM implementation on one of suites/lstm's perf shapes (the dict
    `lstm_cpu_bench --list-shapes` prints); mode "fwd" or "train" (forward + backward), named
    and parametrised as suites/lstm/lstm_perf_cases.cc names its own."""
    d = 2 if shape["bidirectional"] else 1
    proj = rec = 0.0
    for layer in range(shape["layers"]):
        width = shape["input"] if layer == 0 else d * shape["hidden"]
        proj += d * 2.0 * shape["batch"] * shape["seq"] * 4 * shape["hidden"] * width
        rec += d * 2.0 * shape["batch"] * shape["seq"] * 4 * shape["hidden"] * shape["hidden"]
    t = timing(samples, cpu_samples)
    factor = 3.0 if mode == "train" else 1.0  # forward + backward = 3 × forward GEMM FLOPs
    tag = implementation.split()[0].lower()
    name = (f"lstm/perf/{shape['label']}/B:{shape['batch']}/T:{shape['seq']}/I:{shape['input']}/H:{shape['hidden']}"
            f"/L:{shape['layers']}/bidi:{int(bool(shape['bidirectional']))}/{mode}/{tag}")
    return {"schema": records.SCHEMA, "suite": "lstm", "case": f"{name}/{backend}", "backend": backend,
            "device": backend, "verdict": "pass", "message": f"timing only ({implementation}): not checked by tandem",
            "correctness": None, "info": dict(info or {}),
            "params": {"batch": shape["batch"], "seq": shape["seq"], "input": shape["input"], "hidden": shape["hidden"],
                       "layers": shape["layers"], "bidirectional": bool(shape["bidirectional"]), "mode": mode,
                       "fwd_projection_flops": proj, "fwd_recurrent_flops": rec, "implementation": implementation,
                       "flop_formula": "fwd = sum_p 2*B*T*4H*(In_p + H); train = 3*fwd"},
            "metrics": [{"name": "gflops", "value": factor * (proj + rec) / t["median"] * 1e-9, "unit": "GFLOP/s",
                         "direction": "higher"},
                        {"name": "time_median", "value": t["median"], "unit": "s", "direction": "lower"}],
            "timing": t, "context": ctx}


def write(path, recs):
    """Validates and writes a complete records file (atomically); adds the end-of-run context."""
    end = {"load_avg_end": list(os.getloadavg()), "date_end": utc_now()}
    for r in recs:
        r["context"] = dict(r["context"], **end)
    doc = {"schema": records.SCHEMA, "complete": True, "records": recs}
    records.validate(doc, str(path))
    atomic.write_text(Path(path), json.dumps(doc, indent=1) + "\n")
