#!/usr/bin/env python3
"""Writes the ctest tests of one GoogleTest binary as batches (tandem_add_test, after each build of
the binary): its cases are listed (--gtest_list_tests), grouped, and each group split into batches
of at most --max-cases cases, which cmake/gtest_batch_run.py runs in one process and answers for
case by case. A group is a gtest test suite ("DotCpu", named `DotCpu.*`), or, with --group-by
REGEX, the cases whose captures agree (named by the captures joined with `*`, a glob of its cases:
`Quick/QuickCase.MatchesReference/dot_*_cpu`), so `ctest -R DotCpu` or `-R 'dot_.*_cpu'` still
selects them. A group of n cases is split round robin into ceil(n / max) batches named
`GROUP[i/k]`. DISABLED_ cases stay one ctest test each, marked disabled, as gtest_discover_tests
wrote them.

    gtest_batches.py --out FILE --runner RUNNER --python PY --workdir DIR [--executor E]...
        [--prefix P] [--filter GTEST_FILTER] [--group-by REGEX] [--max-cases N]
        [--labels L1,L2] BINARY
"""
import argparse
import math
import re
import subprocess
import sys


def list_cases(executor, binary, flt, timeout):
    """The binary's case names, DISABLED_ ones included, comments cut."""
    argv = executor + [binary, "--gtest_list_tests"] + ([f"--gtest_filter={flt}"] if flt else [])
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        sys.exit(f"gtest_batches: {' '.join(argv)} failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return parse_gtest_list(p.stdout)


def parse_gtest_list(text):
    """Names from --gtest_list_tests: 'Suite.' lines, then indented test lines (comments cut).
    ci/checks/check_gpu_labels.py reads the lists with this too."""
    names, suite = [], None
    for line in text.splitlines():
        if not line.strip() or line.startswith(("[", "#")):
            continue
        word = line.split("#")[0].strip()
        if not line.startswith(" "):
            suite = word
        elif suite:
            names.append(suite + word)
    return names


def group_name(case, group_by):
    """The glob naming the case's group: its captures joined by `*`, or its gtest suite."""
    m = re.search(group_by, case) if group_by else None
    if not m or not m.groups():
        return case.split(".", 1)[0] + ".*"
    parts = [g or "" for g in m.groups()]
    glob = "*".join(parts)
    return ("" if case.startswith(parts[0]) else "*") + glob + ("" if case.endswith(parts[-1]) else "*")


def batches(cases, group_by, max_cases):
    """[(name, [case...])]: each group split round robin into batches of at most max_cases."""
    groups = {}
    for case in cases:
        groups.setdefault(group_name(case, group_by), []).append(case)
    out = []
    for name, members in groups.items():
        k = math.ceil(len(members) / max_cases)
        out += [(name if k == 1 else f"{name}[{i + 1}/{k}]", members[i::k]) for i in range(k)]
    return out


def bracket(text):
    """A CMake bracket argument that cannot close early."""
    eq = "=" * 3
    while f"]{eq}]" in text:
        eq += "="
    return f"[{eq}[{text}]{eq}]"


def test_lines(name, argv, workdir, properties):
    props = " ".join(f"{k} {bracket(v)}" for k, v in properties) + f" WORKING_DIRECTORY {bracket(workdir)}"
    return [f"add_test({bracket(name)} {' '.join(bracket(a) for a in argv)})",
            f"set_tests_properties({bracket(name)} PROPERTIES {props})"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runner", required=True)
    ap.add_argument("--python", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--executor", action="append", default=[])
    ap.add_argument("--prefix", default="")
    ap.add_argument("--filter", default="")
    ap.add_argument("--group-by", default="")
    ap.add_argument("--max-cases", type=int, default=100)
    ap.add_argument("--timeout", type=int, default=60, help="for listing the cases")
    ap.add_argument("--labels", default="", help="ctest labels of every batch, comma separated")
    a = ap.parse_args()
    properties = [("LABELS", a.labels.replace(",", ";"))] if a.labels else []
    cases = list_cases(a.executor, a.binary, a.filter, a.timeout)
    disabled = [c for c in cases if "DISABLED_" in c]
    lines = []
    for name, members in batches([c for c in cases if c not in disabled], a.group_by, a.max_cases):
        argv = [a.python, "-S", a.runner] + a.executor + [a.binary, "--gtest_filter=" + ":".join(members)]
        lines += test_lines(a.prefix + name, argv, a.workdir, properties + [("SKIP_RETURN_CODE", "77")])
    for case in disabled:
        argv = a.executor + [a.binary, f"--gtest_filter={case}", "--gtest_also_run_disabled_tests"]
        lines += test_lines(a.prefix + case, argv, a.workdir, properties + [("DISABLED", "TRUE")])
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
