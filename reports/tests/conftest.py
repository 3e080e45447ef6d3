# Test helpers: build records in code, write them as a records file, run the CLI in-process.
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CONTEXT = {"git_sha": "abc1234", "compiler": "g++ 12.2.0", "build_type": "Release", "host": "ci",
           "cpu_threads": 2, "ranks": 1, "blas": "OpenBLAS 0.3.21", "blas_threads": 2}


def rec(case="dot/x/cpu", samples=(1.0, 1.01, 0.99, 1.02, 0.98), verdict="pass", metrics=(), suite="dot", ctx=None):
    r = {"schema": "tandem.records/1", "suite": suite, "case": case, "params": {}, "backend": "cpu", "device": "cpu",
         "verdict": verdict, "message": "", "correctness": None, "info": {},
         "metrics": [dict(m) for m in metrics], "context": dict(ctx or CONTEXT)}
    if samples:
        s = sorted(samples)
        r["timing"] = {"unit": "s", "median": s[len(s) // 2], "repetitions": len(s), "samples": list(samples)}
    return r


def write(path, recs, complete=True):
    """A records file; `complete` is the top-level flag reports/run_completion.py honours first
    (None: no flag, so completion is judged from a summary.md beside the file, as for `tandem run`)."""
    doc = {"schema": "tandem.records/1", "records": recs}
    if complete is not None:
        doc["complete"] = complete
    Path(path).write_text(json.dumps(doc))
    return str(path)


@pytest.fixture
def cli(capsys):
    """Runs `python3 -m reports ARGS` in-process: returns (exit code, stdout, stderr)."""
    from reports.__main__ import main

    def run(*args):
        code = main([str(a) for a in args])
        out = capsys.readouterr()
        return code, out.out, out.err

    return run
