#!/usr/bin/env python3
"""Before / after a change, from rounds of remat_measure_test output saved as DIR/r<R>_before.md
and DIR/r<R>_after.md (lab/records/remat/2026-11-29-sgemm-split/): one table per model (named in
its header, so each table's Regenerate line finds its own); per policy the fwd+bwd time (each
round's figure is the tool's median over its repetitions) as the minimum and the median over
the rounds, before and after, and before / after of those medians. The rounds alternate the two
builds, so a load that drifts hits both alike.

    lab/tables/remat_rounds_table.py DIR ROUND [ROUND ...]

A missing round file or one without the tool's tables: exit 4 with a hint.
"""
import os
import statistics
import sys

from saved_table import cells, fail, tables


def load(folder, side, rounds):
    """{model: {policy: [fwd+bwd ms per round]}}, models and policies in the tool's order."""
    out = {}
    for r in rounds:
        path = os.path.join(folder, f"r{r}_{side}.md")
        tables(path)  # checks every table whole
        lines = open(path).read().splitlines()
        for i, line in enumerate(lines):
            if i == 0 or not line.startswith("| policy |") or lines[i - 1].startswith("|"):
                continue
            model, j = out.setdefault(lines[i - 1], {}), i + 2
            while j < len(lines) and lines[j].startswith("|"):
                c = [x.strip() for x in cells(lines[j])]
                model.setdefault(c[0], []).append(float(c[-1]))
                j += 1
    if not out:
        fail(f"{folder}: no remat_measure_test table in the {side} rounds",
             "save each round's remat_measure_test output as r<R>_before.md / r<R>_after.md")
    return out


def main(folder, rounds):
    before, after = load(folder, "before", rounds), load(folder, "after", rounds)
    for model in [m for m in before if m in after]:
        print(f"| {model}: policy | fwd+bwd ms before, min / median of {len(rounds)} rounds | after, min / median "
              "| before / after (medians) |")
        print("|---|---:|---:|---:|")
        for policy in [p for p in before[model] if p in after[model]]:
            b, a = before[model][policy], after[model][policy]
            mb, ma = statistics.median(b), statistics.median(a)
            print(f"| {policy} | {min(b):.2f} / {mb:.2f} | {min(a):.2f} / {ma:.2f} | {mb / ma:.2f}× |")
        print()


if __name__ == "__main__":
    if len(sys.argv) < 3:
        fail("want a folder and at least one round (usage: remat_rounds_table.py DIR ROUND [ROUND ...])")
    main(sys.argv[1], sys.argv[2:])
