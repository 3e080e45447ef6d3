#!/usr/bin/env python3
"""The line budget, checked by ctest (as tinygrad keeps its tree readable): fails when a source
file (.cc .h .cu .py .sh) is longer than the per-file budget, or the product's or the lab's
sources together are longer than that part's budget, and prints the biggest files so the fix
starts where it pays.

Lines are physical lines (what `wc -l` counts), tests included: a test file is read as often as
the code it tests. Files: ci/checks/repo_files.py (what git tracks or would track; no build outputs).
Two parts, counted apart (part_of): the lab (lab/: the benchmarks and table scripts behind the
measured pages) and the product (everything else: engine, reference, bridge, harness, suites,
runners, reports, common, cmake, the JAX tools, ci, examples).

The rule, set on 2026-11-29 when the lab left the product's count (main 2ea54ef: 81,206 lines
in one count, under a budget of 81,210 raised 25 times since 2026-11-23):
  per file 400  (a file that outgrows it is split into files with one job each)
  product 79,600  (77,322 lines once the move was done, + 2,278 (2.9 %): the work then open,
                 one table of suite names, the front door, the exit codes of wrong values, a
                 user's --program checked in seconds, the full ctest's time)
  lab 4,200  (3,974 lines + 226 (5.7 %): about one more measurement's script and its table)
From then on a budget is not raised: a change that needs lines deletes as many elsewhere in the
same part, in the same commit, and says so in its message.

    ci/checks/check_line_budget.py [ROOT] [--per-file N] [--total N] [--lab-total N] [--top N]
"""
import argparse
import os
import sys

from repo_files import repo_files

PER_FILE_BUDGET = 400
PRODUCT_BUDGET = 79600
LAB_BUDGET = 4200
SOURCE_SUFFIXES = (".cc", ".h", ".cu", ".py", ".sh")
LAB = "lab/"  # the lab's folder; every other file is the product's


def source_files(root):
    return repo_files(root, SOURCE_SUFFIXES)


def count_lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def part_of(path):
    return "lab" if path.startswith(LAB) else "product"


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--per-file", type=int, default=PER_FILE_BUDGET)
    ap.add_argument("--total", type=int, default=PRODUCT_BUDGET, help="the product's budget")
    ap.add_argument("--lab-total", type=int, default=LAB_BUDGET, help="the lab's budget (lab/)")
    ap.add_argument("--top", type=int, default=10, help="biggest files to list on failure")
    return ap.parse_args(argv)


def main(argv):
    a = parse(argv)
    files = source_files(a.root)
    if not files:
        print(f"error: no source file under {a.root}\n  hint: give the repository root", file=sys.stderr)
        return 4
    sizes = sorted(((count_lines(os.path.join(a.root, p)), p) for p in files), reverse=True)
    budget = {"product": a.total, "lab": a.lab_total}
    total = {part: sum(n for n, p in sizes if part_of(p) == part) for part in budget}
    over = [(n, p) for n, p in sizes if n > a.per_file]
    print(f"line budget: {len(files)} files; product {total['product']} lines (budget {budget['product']}), "
          f"lab {total['lab']} lines (budget {budget['lab']}); longest {sizes[0][1]} at {sizes[0][0]} "
          f"(budget {a.per_file} per file)")
    spent = [part for part in budget if total[part] > budget[part]]
    if not over and not spent:
        return 0
    for n, p in over:
        print(f"FAIL: {p}: {n} lines > {a.per_file}: split it into files with one job each")
    for part in spent:
        print(f"FAIL: the {part} has {total[part]} lines > {budget[part]}: delete as many lines in the "
              f"{part} as you add (the budget is not raised)")
    print("biggest files:")
    for n, p in [s for s in sizes if part_of(s[1]) in spent or not spent][:a.top]:
        print(f"  {n:6d}  {p}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
