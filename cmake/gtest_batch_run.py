#!/usr/bin/env python3
"""Runs one batch of GoogleTest cases (a ctest test that cmake/gtest_batches.py wrote) in as few
processes as it can, and answers for every case by name. ctest once started one process per
case (gtest_discover_tests): ~3,600 processes whose start cost ten times the tests' own work.

    gtest_batch_run.py [EXECUTOR...] BINARY [ARGS...] --gtest_filter=CASE:CASE:...

The filter is an exact list of the batch's cases (no wildcard), so each one must answer: passed,
failed, skipped (with gtest's reason), or crashed. A case that kills the process (a signal, an
exit, an abort) is named with how the process ended, and the cases after it run in a fresh
process, so one crash hides no other case's outcome. The output is gtest's own, then one line per
failed or crashed case and a summary line `gtest batch: P passed, F failed, S skipped of N`.
Exit 0 when no case failed and one passed; 77 (ctest's SKIP_RETURN_CODE) when every case
skipped, so a batch that only skips (CUDA cases on a machine without a GPU) shows as skipped, not
passed; 1 otherwise (a failure, a crash, a case that never answered, or a process that ended
non-zero though its cases passed).
"""
import re
import subprocess
import sys

RUN = re.compile(r"^\[ RUN      \] (\S+)$")
END = re.compile(r"^\[ +(OK|FAILED|SKIPPED) +\] (\S+) \(")  # per case; the closing lists have no "(N ms)"
SKIP_MESSAGE_LINES = 3


def run_once(command, cases, results):
    """One process over `cases`; fills results {case: (outcome, detail)}. Returns (exit code, the
    case that was running when it ended or None)."""
    argv = command + ["--gtest_filter=" + ":".join(cases)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    running, tail = None, []
    for line in proc.stdout:
        sys.stdout.write(line)
        text = line.rstrip("\n")
        if m := RUN.match(text):
            running, tail = m.group(1), []
        elif m := END.match(text):
            outcome = {"OK": "passed", "FAILED": "failed", "SKIPPED": "skipped"}[m.group(1)]
            results[m.group(2)] = (outcome, skip_reason(tail) if outcome == "skipped" else "")
            running = None
        elif running:
            tail = (tail + [text])[-20:]
    sys.stdout.flush()
    return proc.wait(), running


def skip_reason(lines):
    """GTEST_SKIP's message: the lines after gtest's "file:line: Skipped"."""
    for i, line in enumerate(lines):
        if line.rstrip().endswith(": Skipped"):
            return " ".join(s.strip() for s in lines[i + 1:i + 1 + SKIP_MESSAGE_LINES] if s.strip())
    return ""


def how_it_ended(code):
    return f"signal {-code}" if code < 0 else f"exit {code}"


def run_batch(command, expected):
    """Runs until every expected case answered; returns (results, trouble lines)."""
    results, trouble = {}, []
    remaining = list(expected)
    while remaining:
        code, running = run_once(command, remaining, results)
        if running:  # the process ended inside a case
            results[running] = ("crashed", how_it_ended(code))
        elif code not in (0, 1):
            trouble.append(f"the process ended with {how_it_ended(code)} outside any case")
        left = [c for c in expected if c not in results]
        if len(left) == len(remaining):  # no case answered: starting again would loop
            for case in left:
                results[case] = ("not run", f"the process ended with {how_it_ended(code)} before it")
            left = []
        elif not running and left:  # a clean end that skipped listed cases: gtest does not know them
            for case in left:
                results[case] = ("not run", "the binary has no such case")
            left = []
        if code == 1 and not any(results.get(c, ("",))[0] in ("failed", "crashed") for c in remaining):
            trouble.append("the process exited 1 though none of its cases failed")
        remaining = left
    return results, trouble


def summarize(results, trouble, expected):
    """Prints the outcome per failing case and the counts; returns the exit code."""
    count = {k: sum(1 for c in expected if results[c][0] == k) for k in ("passed", "failed", "skipped")}
    bad = [c for c in expected if results[c][0] not in ("passed", "skipped")]
    for case in bad:
        outcome, detail = results[case]
        print(f"gtest batch: {outcome.upper()}: {case}" + (f" ({detail})" if detail else ""))
    reasons = {}
    for case in (c for c in expected if results[c][0] == "skipped"):
        why = results[case][1] or "no reason given"
        reasons[why] = reasons.get(why, 0) + 1
    for why, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"gtest batch: skipped {n}: {why}")
    for line in trouble:
        print(f"gtest batch: ERROR: {line}")
    print(f"gtest batch: {count['passed']} passed, {count['failed']} failed, {count['skipped']} skipped, "
          f"{len(bad) - count['failed']} crashed or not run, of {len(expected)}")
    if bad or trouble:
        return 1
    return 77 if count["passed"] == 0 else 0


def main(argv):
    flt = [a for a in argv if a.startswith("--gtest_filter=")]
    command = [a for a in argv if not a.startswith("--gtest_filter=")]
    if len(flt) != 1 or not command or any(ch in flt[0].split("=", 1)[1] for ch in "*?-"):
        print(__doc__, file=sys.stderr)
        print("error: want a command and one --gtest_filter=, an exact list of cases", file=sys.stderr)
        return 2
    expected = [c for c in flt[0].split("=", 1)[1].split(":") if c]
    results, trouble = run_batch(command, expected)
    return summarize(results, trouble, expected)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
