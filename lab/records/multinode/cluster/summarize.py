"""Prints docs/MULTINODE.md's cross-host tables from this folder's records (measure.sh's runs,
gzipped): per op, call and size the median over 3 rounds of busbw and time on one host (shared
memory) and across 2 hosts (TCP over the cluster's links); then the lockstep perf cases."""
import collections
import gzip
import json
import statistics as st
import sys
from pathlib import Path

here = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)


def load(name):
    return json.load(gzip.open(here / f"{name}.records.json.gz"))["records"]


bus, tm = collections.defaultdict(list), collections.defaultdict(list)
for where in ("local", "hosts"):
    for r in (1, 2, 3):
        for rec in load(f"r{r}-sweep-{where}"):
            p = rec["params"]
            if not p["inplace"]:
                key = (p["op"], p["call"], p["bytes"], where)
                bus[key].append({m["name"]: m["value"] for m in rec["metrics"]}["busbw"])
                tm[key].append(rec["timing"]["median"])
print("| op | call | bytes | one host: busbw GB/s, time | 2 hosts: busbw GB/s (min–max), time |\n|---|---|---:|---:|---:|")
for op, call, b, _ in sorted(k for k in bus if k[3] == "local"):
    lo, hi = (op, call, b, "local"), (op, call, b, "hosts")
    print(f"| {op} | {call} | {b} | {st.median(bus[lo]):.2f}, {st.median(tm[lo]) * 1e6:.1f} µs | "
          f"{st.median(bus[hi]):.2f} ({min(bus[hi]):.2f}–{max(bus[hi]):.2f}), {st.median(tm[hi]) * 1e6:.1f} µs |")
print("\n| case | one host: median, GFLOP/s per rank | 2 hosts: median, GFLOP/s per rank, hosts |\n|---|---:|---:|")
per = collections.defaultdict(list)
for where in ("local", "hosts"):
    for r in (1, 2, 3):
        for rec in load(f"r{r}-perf-{where}"):
            g = {m["name"]: m["value"] for m in rec["metrics"]}["gflops"]
            per[rec["case"]].append((where, rec["timing"]["median"], g, [x["host"] for x in rec["multi_rank"]["per_rank"]]))
for case, rows in sorted(per.items()):
    cell = {w: (st.median(t for x, t, _, _ in rows if x == w) * 1e3, st.median(g for x, _, g, _ in rows if x == w))
            for w in ("local", "hosts")}
    hosts = next(h for x, _, _, h in rows if x == "hosts")
    print(f"| {case.split('/perf/')[1]} | {cell['local'][0]:.1f} ms, {cell['local'][1]:.1f} | "
          f"{cell['hosts'][0]:.1f} ms, {cell['hosts'][1]:.1f}, {' '.join(hosts)} |")
e = json.load(open(here / "iperf3-node2-to-node1.json"))["end"]
print(f"\niperf3 TCP node2 → node1: {e['sum_sent']['bits_per_second'] / 8e9:.2f} GB/s, sender CPU "
      f"{e['cpu_utilization_percent']['host_total']:.0f} % (system {e['cpu_utilization_percent']['host_system']:.0f} %)")
