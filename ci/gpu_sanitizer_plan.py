#!/usr/bin/env python3
"""What the sanitizer phase of a GPU session runs, and its report (ci/gpu_validate.sh).

    ci/gpu_sanitizer_plan.py BUILD_DIR     one line per run: tool, name, binary, gtest filter
    ci/gpu_sanitizer_plan.py --report OUT  OUT/sanitizer/*.txt as Markdown (sanitizer.md)

The plan comes from ctest's own list of the `gpu` label in the built tree, so it cannot drift
from the tests: every binary behind a gpu test (a gtest binary run directly, or the binary an
mpiexec line starts at one rank, which runs as a singleton) gets `memcheck` on exactly its gpu
cases, and the binaries holding LSTM cases get `initcheck` on those too (cuDNN's reserve and
workspace are the buffers most likely read before written). Exit 1 with a reason when the
tree lists no gpu test (not built, or built without tests).
"""
import collections
import json
import os
import re
import subprocess
import sys

LAUNCHERS = {"mpiexec", "mpirun", "mpiexec.openmpi", "mpirun.openmpi"}
FILTER = "--gtest_filter="
LSTM = re.compile(r"lstm", re.I)


def gpu_tests(build):
    """(binary, gtest filter) for each test of ctest's gpu label in BUILD."""
    out = subprocess.run(["ctest", "-L", "gpu", "--show-only=json-v1"], cwd=build, capture_output=True,
                         text=True, timeout=60)
    tests = json.loads(out.stdout or "{}").get("tests", [])
    build_real = os.path.realpath(build)
    for t in tests:
        cmd = t.get("command") or []
        binaries = [a for a in cmd if os.path.realpath(a).startswith(build_real + os.sep) and os.path.isfile(a)
                    and os.path.basename(a) not in LAUNCHERS]
        if binaries:
            filters = [a[len(FILTER):] for a in cmd if a.startswith(FILTER)]
            yield binaries[0], filters[0] if filters else "*"


def plan(pairs):
    """Rows (tool, name, binary, filter): memcheck per binary, initcheck on its LSTM cases."""
    by_binary = collections.OrderedDict()
    for binary, filt in pairs:
        by_binary.setdefault(binary, []).append(filt)
    rows = []
    for binary, filters in by_binary.items():
        name = re.sub(r"[^A-Za-z0-9_]", "_", os.path.basename(binary))
        rows.append(("memcheck", name, binary, "*" if "*" in filters else ":".join(filters)))
        lstm = [f for f in filters if LSTM.search(f)]
        if lstm or ("*" in filters and LSTM.search(name)):
            rows.append(("initcheck", name, binary, ":".join(lstm) or "*"))
    return rows


def report(out):
    """Markdown: per sanitizer log, its error summary and first error lines."""
    folder = os.path.join(out, "sanitizer")
    logs = sorted(f for f in os.listdir(folder) if f.endswith(".txt")) if os.path.isdir(folder) else []
    lines = ["# compute-sanitizer", "", "| run | errors | first error |", "|---|---|---|"]
    for f in logs:
        text = open(os.path.join(folder, f), errors="replace").read()
        summary = re.search(r"ERROR SUMMARY: (\d+) error", text)
        first = next((l.strip("= ").strip() for l in text.splitlines()
                      if re.match(r"=+ +(Invalid|Uninitialized|Program hit|Error|Race|Leaked)", l)), "")
        count = summary.group(1) if summary else "no summary (cut, or the run failed to start)"
        lines.append(f"| {f[:-4]} | {count} | {first.replace('|', '/')[:160]} |")
    if not logs:
        lines.append("| (none) | no sanitizer log was written | |")
    return "\n".join(lines)


def main(argv):
    if len(argv) == 3 and argv[1] == "--report":
        print(report(argv[2]))
        return 0
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: ci/gpu_sanitizer_plan.py BUILD_DIR | --report OUT", file=sys.stderr)
        return 4
    rows = plan(gpu_tests(argv[1]))
    if not rows:
        print(f"error: ctest lists no gpu test in {argv[1]}\n  hint: build the gpu_validation target first",
              file=sys.stderr)
        return 1
    for row in rows:
        print("\t".join(row))
    print(f"note: {len(rows)} sanitizer runs over {len({r[2] for r in rows})} binaries", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
