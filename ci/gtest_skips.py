#!/usr/bin/env python3
"""Strict, honest skip check of a gtest log (ci/gpu_validate.sh's no_gtest_skips): on the GPU
machine a skipped test is a failure, unless its GTEST_SKIP message carries a reason of the
table BY_DESIGN, the skips that no machine with one GPU can avoid. Those are the wordings of
engine/comm/by_design_skip.h; a capability skip ("no CUDA device visible", an NCCL that would
not start) never matches. A log in which no test passed fails too.

    ci/gtest_skips.py LOG     (ctest -V output, or a gtest binary's own, colours and all)

Prints one summary line, each skip as "FAILS: TEST: message" or "by design: TEST: reason"
(the first ten), and on failure one "error:" line; exit 0 when every skip is by design and a test passed, 1 otherwise, 2 on bad usage.
"""
import re
import sys

# The skips by design: (regex searched in the skip message, why it cannot be avoided).
BY_DESIGN = [
    (r"needs .+ ranks, this run has \d+", "a layout or test for more ranks than one GPU gives"
                                          " (NCCL puts no two ranks on one GPU)"),
    (r"does not apply: ", "a combination the semantics (JAX's) leave undefined at any world size"),
]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
PREFIX = re.compile(r"^(\d+): ")  # ctest -V: the test's number before each of its lines
RUN = re.compile(r"\[ RUN      \] (\S+)")
OK = re.compile(r"\[       OK \] (\S+) \(")
SKIPPED = re.compile(r"\[  SKIPPED \] (\S+) \(")  # per test; the closing list has no "(N ms)"


def parse(lines):
    """(passed, {test: skip message}) of a log; blocks are kept per ctest test number, so
    the output of tests that ctest ran side by side does not mix."""
    passed, skipped, block = set(), {}, {}
    for raw in lines:
        line = ANSI.sub("", raw.rstrip("\n"))
        m = PREFIX.match(line)
        key, line = (m.group(1), line[m.end():]) if m else ("", line)
        if RUN.search(line):
            block[key] = []
        elif m_ok := OK.search(line):
            passed.add(m_ok.group(1))
        elif m_skip := SKIPPED.search(line):
            skipped[m_skip.group(1)] = skip_message(block.pop(key, []))
        elif key in block:
            block[key].append(line)
    return passed, skipped


def skip_message(block):
    """The GTEST_SKIP message: the lines after gtest's "file:line: Skipped", joined."""
    for i, line in enumerate(block):
        if line.rstrip().endswith(": Skipped"):
            return " ".join(s.strip() for s in block[i + 1:] if s.strip())
    return ""


def by_design(message):
    """The entry of BY_DESIGN the message matches, or None."""
    return next((why for pattern, why in BY_DESIGN if re.search(pattern, message)), None)


def main(argv):
    if len(argv) != 2:
        print("usage: ci/gtest_skips.py LOG", file=sys.stderr)
        return 2
    try:
        with open(argv[1], errors="replace") as f:
            passed, skipped = parse(f)
    except OSError as e:
        print(f"error: cannot read the log: {e}", file=sys.stderr)
        return 2
    designed = {t: m for t, m in skipped.items() if by_design(m)}
    others = {t: m for t, m in skipped.items() if t not in designed}
    # The summary first and the failures next: gpu_validate's summary.md keeps a log's head.
    print(f"{len(passed)} tests passed, {len(designed)} skipped by design, {len(others)} skipped"
          f" otherwise (failures) in {argv[1].rsplit('/', 1)[-1]}")
    for t in sorted(others):
        print(f"  FAILS: {t}: {others[t] or '(no message)'}")
    for t in sorted(designed)[:10]:
        print(f"  by design: {t}: {designed[t]}")
    if len(designed) > 10:
        print(f"  ... and {len(designed) - 10} more by design")
    # One "error:" line, the one gpu_validate's summary row quotes.
    if others:
        first = min(others)
        print(f"error: {len(others)} skip(s) not by design, e.g. {first}: {others[first] or '(no message)'}")
    elif not passed:
        print("error: no test passed")
    return 0 if passed and not others else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
