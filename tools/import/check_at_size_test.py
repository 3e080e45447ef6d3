#!/usr/bin/env python3
"""Bad usage of check_at_size.py is refused before any export or check runs: exit 4 with a hint
for a size that is not one of its constants or not a positive integer, and argparse's 2 for a
missing --out. Writes nothing into --out on a refusal."""
import os
import subprocess
import sys
import tempfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_at_size.py")


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=60)


def main():
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        for bad in ("WIDTH=4", "HIDDEN=0", "HIDDEN=-3", "HIDDEN=big", "HIDDEN"):
            out = os.path.join(tmp, bad.replace("=", "_"))
            r = run("--out", out, "--set", bad)
            if r.returncode != 4 or "hint:" not in r.stderr or os.path.exists(out):
                failures.append(f"--set {bad}: exit {r.returncode}, stderr {r.stderr.strip()[:200]!r}")
        r = run("--set", "HIDDEN=8")
        if r.returncode != 2 or "--out" not in r.stderr:
            failures.append(f"no --out: exit {r.returncode}")
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("PASS: check_at_size.py refuses bad sizes (exit 4, a hint, nothing written) and a missing --out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
