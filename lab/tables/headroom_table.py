#!/usr/bin/env python3
# Headroom (tolerance ÷ observed error) of every correctness check in records files: per suite
# the largest non-exact headroom, and every non-exact check above a limit (default 10^4), the
# checks that cannot catch a real bug unless a reason is stated (the record's
# "headroom_reason", shown under the check). Reads the
# headroom the records state, or 1 / error_over_tolerance for records written before it.
# Usage: python3 -P lab/tables/headroom_table.py RECORDS.json... [--limit 1e4]
import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from reports.exit_codes import TandemError  # noqa: E402
from reports.records import checks, load, num  # noqa: E402


def headroom(rep):
    h = rep.get("headroom")
    if isinstance(h, str):
        return h
    h = num(h)
    if h is not None:
        return h
    r = num(rep.get("error_over_tolerance"))
    if r is None:
        return None
    return "no error observed" if r == 0 else 1.0 / r


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("records", nargs="+")
    ap.add_argument("--limit", type=float, default=1e4)
    a = ap.parse_args()
    worst = {}  # suite -> (headroom, case/check)
    counts = {}  # suite -> {"exact": n, "numeric": n, "no error observed": n}
    above = []
    for path in a.records:
        for rec in load(path):
            if rec.get("verdict") not in ("pass", "fail"):
                continue
            for name, rep in checks(rec):
                h = headroom(rep)
                c = counts.setdefault(rec["suite"], {"exact": 0, "numeric": 0, "no error observed": 0})
                c[h if isinstance(h, str) and h in c else "numeric"] += 1
                if not isinstance(h, float) or math.isinf(h):
                    continue
                where = f"{rec['case']} [{name}]"
                if h > worst.get(rec["suite"], (-1, ""))[0]:
                    worst[rec["suite"]] = (h, where)
                if h > a.limit:
                    why = (rep.get("tolerance") or {}).get("why", "") if isinstance(rep.get("tolerance"), dict) else ""
                    above.append((h, where, why, rep.get("headroom_reason") or ""))
    print("| suite | checks (numeric / exact / no error observed) | max headroom | at |")
    print("|---|---|---|---|")
    for s in sorted(counts):
        h, where = worst.get(s, (None, ""))
        c = counts[s]
        print(f"| {s} | {c['numeric']} / {c['exact']} / {c['no error observed']} | "
              f"{'' if h is None else f'{h:.3g}'} | {where} |")
    unexplained = sum(1 for x in above if not x[3])
    print(f"\nnon-exact checks with headroom above {a.limit:g}: {len(above)} ({unexplained} without a stated reason)")
    for h, where, why, reason in sorted(above, reverse=True):
        print(f"  {h:.3g}  {where}  {why[:160]}")
        if reason:
            print(f"      reason: {reason[:300]}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except TandemError as e:  # a missing or malformed records file: exit 4 with a hint
        print(e.render(), file=sys.stderr)
        sys.exit(e.code)
