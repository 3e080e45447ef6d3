#!/usr/bin/env python3
"""A build's own measure, read from its .ninja_log: how many commands the last build ran, their
summed time (CPU-seconds of compiling and linking on an idle machine; under load each includes
its wait for a core), the longest
one, and what that predicts on another machine: summed / cores + longest (the longest command
cannot be split, and the links wait for the rest). The GPU session records it after its build
(ci/gpu_validate.sh's build_time step) so the next plan's build estimate (ci/gpu_plan.tsv) is
measured on that machine, not carried over from one old run elsewhere.

    ci/gpu_build_estimate.py BUILD_DIR [--cores N]     (N: the machine to predict; default 16)

A ccache hit takes a fraction of a second, so a build mostly from cache under-measures: the
count of commands under 0.5 s is printed beside the sum. Exit 4 when there is no .ninja_log.
"""
import argparse
import os
import sys


def last_build(log_path):
    """[(seconds, output)] of the last build in a .ninja_log: a new build starts its clock at
    zero, so the log's completion times drop where one build ends and the next begins."""
    runs, prev_end = [[]], -1
    with open(log_path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 4:
                continue
            start, end, output = int(parts[0]), int(parts[1]), parts[3]
            if end < prev_end:
                runs.append([])
            runs[-1].append(((end - start) / 1000.0, output))
            prev_end = end
    return runs[-1]


def estimate(commands, cores):
    """(summed, longest, predicted) seconds for `commands` on `cores` cores."""
    summed = sum(s for s, _ in commands)
    longest = max((s for s, _ in commands), default=0.0)
    return summed, longest, summed / cores + longest


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--cores", type=int, default=16)
    args = ap.parse_args(argv[1:])
    log = os.path.join(args.build, ".ninja_log")
    if not os.path.isfile(log):
        print(f"error: no {log}\n  hint: build with Ninja first", file=sys.stderr)
        return 4
    commands = last_build(log)
    summed, longest, predicted = estimate(commands, args.cores)
    cached = sum(1 for s, _ in commands if s < 0.5)
    top = sorted(commands, reverse=True)[:5]
    print(f"last build: {len(commands)} commands ({cached} under 0.5 s: cache hits or trivial), "
          f"summed {summed:.0f} s, longest {longest:.1f} s")
    for s, output in top:
        print(f"  {s:7.1f} s  {output}")
    print(f"note: build {len(commands)} commands, summed {summed:.0f} s; at {args.cores} cores "
          f"≈ {predicted:.0f} s (summed / cores + longest)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
