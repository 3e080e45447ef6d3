#!/usr/bin/env python3
"""Fails when a tracked doc or source names an issue tracker the repository does not hold
("issue 30 §1", "(issue 19)", "stop 12", "(#45)"): a reader cannot follow such a number, so a
page is titled by what it measures, a figure's history is a dated note ("corrected on
2026-11-27: ...") and a comment says what and why.

A numbered issue is a third party's, and allowed, when the same file links to it (a URL ending
in /issues/N or /pull/N, e.g. nccl-tests' issues in docs/MULTINODE.md). Files are those of
ci/repo_files.py (what git tracks or would track), text only.

    ci/checks/check_tracker_refs.py [ROOT]   (exit 0: none; 1: each reference listed with its line)
"""
import os
import re
import sys

from repo_files import repo_files

# Files whose numbers are not tracker references: this check's own examples.
EXAMPLES = {
    "ci/checks/check_tracker_refs.py": "the forms it refuses, in its docstring",
    "ci/checks/check_tracker_refs_test.py": "the references it plants",
}
# Files another change is rewriting; each row leaves the check when that change lands.
NOT_YET_CHECKED = {}

TRACKER = re.compile(r"\b[Ii]ssues? #?(\d+)|\b[Ss]tops? \d+\b|§ ?\d|\(#(\d+)\)")
THIRD_PARTY = re.compile(r"https?://\S+/(?:issues|pull)/(\d+)")
SUFFIXES = (".md", ".cc", ".h", ".cu", ".cuh", ".py", ".sh", ".txt", ".cmake", ".tsv", ".json",
            ".jsonl", ".yml", ".yaml", ".def", ".in", ".supp", ".clang-format")


def problems_in(path, text):
    linked = set(THIRD_PARTY.findall(text))
    out = []
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in TRACKER.finditer(line):
            number = m.group(1) or m.group(2)
            if number and number in linked:
                continue
            out.append(f"{path}:{lineno}: {m.group(0)!r} names a tracker this repository does not hold: "
                       f"{line.strip()[:120]}")
    return out


def check(root):
    problems = []
    for rel in repo_files(root, SUFFIXES + ("CMakeLists.txt",)):
        if rel in EXAMPLES or rel in NOT_YET_CHECKED:
            continue
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        problems += problems_in(rel, text)
    return problems


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = check(root)
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} tracker reference(s); hint: say what the issue asked for, or date the "
              "change (\"corrected on 2026-11-27: ...\"), instead of its number", file=sys.stderr)
        return 1
    print("no tracker numbers in tracked docs and code (ci/checks/check_tracker_refs.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
