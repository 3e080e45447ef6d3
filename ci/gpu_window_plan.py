#!/usr/bin/env python3
"""The plan of one GPU window, from ci/gpu_plan.tsv and the device tool's limits
(/work/.library/device/README.md): the first call's limit so that the machine's start, the
call, its return and the give-back leave at least RESERVE_S of the window; which phases its
deadline is expected to reach (each estimate marked measured or guess); and the device-tool
calls, the second written down now, to be sent only while the machine is still warm.
ci/gpu_preflight.sh prints it once its checks pass; docs/GPU_VALIDATION.md shows it.

    ci/gpu_window_plan.py [--commit SHA] [--window 900] [--start 120]
Exit 1 when the first call's deadline would not reach the end of the ctest phase.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_CALL_S = 600      # one command's limit
WARM_S = 30           # a machine idle this long goes back
RESERVE_S = 180       # left of the window after the first call: a slow start, a rerun, the give-back
RETURN_S = 20         # the files' return and the give-back (guess: a few MiB each way)
PACK_S = 40           # gpu_session.sh's default: the call's limit less its deadline
MIN_SECOND_S = 120    # a second call shorter than this reaches nothing worth the time
MUST_REACH = "ctest"  # a first call that cannot reach the GPU tests is not worth starting


def phases(path=os.path.join(HERE, "gpu_plan.tsv")):
    """[(phase, seconds, basis)] in the order the session runs them."""
    rows = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        name, seconds, basis = line.rstrip("\n").split("\t")
        if not basis.startswith(("measured", "guess")):
            raise ValueError(f"{path}: phase {name}: the basis must say measured or guess: {basis}")
        rows.append((name, int(seconds), basis))
    return rows


def first_call_limit(window, start):
    """The first call's timeout_s: what the window leaves after the start, the return and the reserve."""
    return min(MAX_CALL_S, window - start - RETURN_S - RESERVE_S)


def table(rows, budget):
    """Markdown rows: each phase, its estimate, the running total, and whether call 1 reaches it."""
    out = ["| # | phase | estimate (s) | basis | total (s) | in call 1 |", "|---|---|---|---|---|---|"]
    total = 0
    for i, (name, seconds, basis) in enumerate(rows, 1):
        total += seconds
        where = "yes" if total <= budget else "if time is left, else `rest`"
        out.append(f"| {i} | {name} | {seconds} | {basis} | {total} | {where} |")
    return out, total


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commit", default="<sha>")
    ap.add_argument("--window", type=int, default=900)
    ap.add_argument("--start", type=int, default=120)
    args = ap.parse_args(argv[1:])
    limit = first_call_limit(args.window, args.start)
    budget = limit - PACK_S
    rows = phases()
    lines, total = table(rows, budget)
    left = args.window - args.start - limit - RETURN_S
    print(f"## The window: {args.window} s; start {args.start} s (guess: \"a minute or more\"); call 1 "
          f"{limit} s (deadline {budget} s); return and give-back {RETURN_S} s (guess); left {left} s\n")
    print("\n".join(lines))
    print(f"\nAll phases: {total} s estimated; call 1's deadline reaches {budget} s.\n")
    sha = args.commit
    print("## The calls (send each at once: a machine idle for 30 s goes back)\n")
    print("0. `status`: `can_start_another` false: no GPU in this task, stop. Note `budget_left_s`.")
    print(f"1. `run` command `TANDEM_COMMIT={sha} GPU_CALL_LIMIT={limit} bash ci/gpu_session.sh first`, "
          f"`carry: [\".deps/debs\"]`, `timeout_s: {limit}`. Copy the returned files out at once.")
    print(f"2. only if call 1's summary has `not run: out of time` (or `watchdog`) rows and its reply's "
          f"`lease.budget_left_s` (L) is at least {MIN_SECOND_S + RETURN_S}: at once, "
          f"`run` command `TANDEM_COMMIT={sha} GPU_CALL_LIMIT=<L - {RETURN_S}> bash ci/gpu_session.sh rest`, "
          f"same carry, `timeout_s: <L - {RETURN_S}>` (at most {MAX_CALL_S}).")
    print("3. `give_back` right after the last call.")
    names = [r[0] for r in rows]
    _, needed = table(rows[:names.index(MUST_REACH) + 1], budget)
    if budget < needed:
        print(f"error: call 1's deadline ({budget} s) does not reach the end of the {MUST_REACH} phase "
              f"({needed} s estimated)\n  hint: a window this short runs no GPU test; wait for a longer one",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
