#!/usr/bin/env python3
"""Before / after a change, from rounds of `vmap_bench --profile-batch N` output saved as
DIR/r<R>_before.md and DIR/r<R>_after.md (lab/records/vmap-vecmath-run/): per batch the minimum
over every round of the vmapped program's and the loop's minimum time, before and after, the
speed-up, loop / vmapped after and the vmapped time per example after; then per primitive the
minimum over the rounds of its mean time at the profiled batch, largest first. Minima only:
the rounds ran on a loaded machine, where medians measure preemption.

    lab/tables/vmap_rounds_table.py DIR ROUND [ROUND ...]

A missing round file or one without vmap_bench's two tables: exit 4 with a hint.
"""
import os
import re
import sys

from saved_table import fail, tables

PROFILE = re.compile(r"at batch (\d+), mean time per primitive over (\d+) runs")


def load(folder, side, rounds):
    """({batch: (vmapped min, loop min)}, {primitive: us}, profile text), minima over the rounds."""
    times, prims, profile = {}, {}, None
    for r in rounds:
        path = os.path.join(folder, f"r{r}_{side}.md")
        found = tables(path)
        m = PROFILE.search(open(path).read())
        if len(found) != 2 or not m:
            fail(f"{path}: want vmap_bench's batch table and its --profile-batch table",
                 "save each round's `vmap_bench ... --profile-batch N` output as r<R>_before.md / r<R>_after.md")
        profile = m.groups()
        head = [x.strip() for x in found[0][0].strip("|").split("|")]  # by name: later runs add hand-batched
        iv, il = head.index("vmapped min / median (ms)"), head.index("loop min / median (ms)")
        for row in found[0][2:]:
            c = [x.strip() for x in row.strip("|").split("|")]
            t = (float(c[iv].split("/")[0]), float(c[il].split("/")[0]))
            old = times.get(int(c[0]), t)
            times[int(c[0])] = (min(old[0], t[0]), min(old[1], t[1]))
        for row in found[1][2:]:
            name, us = [x.strip() for x in row.strip("|").split("|")]
            prims[name] = min(prims.get(name, float(us)), float(us))
    return times, prims, profile


def main(folder, rounds):
    before, prims_b, _ = load(folder, "before", rounds)
    after, prims_a, (batch, runs) = load(folder, "after", rounds)
    print("| batch | vmapped min before (ms) | vmapped min after (ms) | after / before speed | loop min before (ms) "
          "| loop min after (ms) | loop / vmapped after (min) | vmapped per example after (us) |")
    print("|---:|" + "---:|" * 7)
    for n in sorted(set(before) & set(after)):
        (vb, lb), (va, la) = before[n], after[n]
        print(f"| {n} | {vb:.3f} | {va:.3f} | {vb / va:.2f}× | {lb:.3f} | {la:.3f} | {la / va:.1f} | {va * 1000 / n:.2f} |")
    print()
    print(f"| primitive at batch {batch} (min over rounds of the mean of {runs}) | before (us) | after (us) |")
    print("|---|---:|---:|")
    for name in sorted(set(prims_b) & set(prims_a), key=lambda p: -prims_a[p]):
        print(f"| {name} | {prims_b[name]:.1f} | {prims_a[name]:.1f} |")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        fail("want a folder and at least one round (usage: vmap_rounds_table.py DIR ROUND [ROUND ...])")
    main(sys.argv[1], sys.argv[2:])
