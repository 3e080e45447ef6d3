#!/usr/bin/env python3
"""Two program_bench binaries (an old and a new engine) on the same scaled exports, interleaved:
per round, row and thread setting (program_vs_xla.py's) one process of each, the order swapped
every round; one JSON line each (wall seconds per call, the process's CPU seconds per wall
second, the load), then per setting the old/new ratio of the minima and the median of the
rounds' ratios (robust to a load that moves between rounds).

    lab/bench/program_ab.py OLD NEW ROUNDS ROWS THREADS OUT.jsonl   (ROWS, THREADS: comma lists)
"""
import json, os, resource, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import program_vs_xla as pv  # noqa: E402
old, new, rounds, rows, threads, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), *[a.split(",") for a in sys.argv[4:6]], sys.argv[6]
tmp, recs = tempfile.mkdtemp(), []
exports = {r: pv.export_row(r, tempfile.mkdtemp(dir=tmp), os.path.join(pv.ROOT, ".venv", "bin", "python"))[1] for r in rows}
for rnd in range(rounds):
    for r in rows:
        for t in threads:
            for side, bench in ([("old", old), ("new", new)] if rnd % 2 == 0 else [("new", new), ("old", old)]):
                env, prefix = pv.thread_env(t)
                env.setdefault("OMP_WAIT_POLICY", "PASSIVE") if "GOMP_SPINCOUNT" not in env else None
                r0, w0, load = resource.getrusage(resource.RUSAGE_CHILDREN), time.time(), os.getloadavg()[0]
                run = subprocess.run(prefix + [bench, "--program", exports[r], "--reps", "1", "--min-time", "0.5"], env=env, capture_output=True, text=True, check=True)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
                recs.append(dict(row=r, threads=t, round=rnd, side=side, load=load, cpu_per_wall=cpu / (time.time() - w0), **json.loads(run.stdout.splitlines()[0])))
open(out, "a").write("".join(json.dumps(x) + "\n" for x in recs))
for r in rows:
    for t in threads:
        for c in ("forward", "gradient"):
            o, n = ([x[c] for x in recs if (x["row"], x["threads"], x["side"]) == (r, t, s)] for s in ("old", "new"))
            print(f"{r} {t} {c}: old {min(o) * 1e3:.1f} ms, new {min(n) * 1e3:.1f} ms, old/new {min(o) / min(n):.2f} (minima), {statistics.median(a / b for a, b in zip(o, n)):.2f} (median of rounds)")
