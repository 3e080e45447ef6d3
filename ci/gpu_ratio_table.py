#!/usr/bin/env python3
"""Each case's error / tolerance ratio per backend, side by side, from a `--backend all`
records.json: how close the CUDA results come to the bound beside the CPU ones. The LSTM bound
budgets 4u per sigmoid/tanh, calibrated on the CPU kernel, and cuDNN does not document its
activation accuracy: the first GPU session records this table (lstm_ratios.md) so the bound is
judged from data. A ratio above 1 is a failure the verdict already names; this shows the margin.

    ci/gpu_ratio_table.py RECORDS_JSON [--top N]    (Markdown on stdout; exit 4 on bad input)
"""
import argparse
import collections
import json
import sys


def ratios(records):
    """{(case without its backend, output): {backend: error_over_tolerance}}."""
    table = collections.defaultdict(dict)
    for r in records:
        case = r["case"].rsplit("/", 1)[0]
        for output, c in (r.get("correctness") or {}).items():
            if isinstance(c, dict) and "error_over_tolerance" in c:
                table[(case, output)][r["backend"]] = c["error_over_tolerance"]
    return table


def markdown(table, top):
    backends = sorted({b for row in table.values() for b in row})
    lines = [f"# error / tolerance per backend ({len(table)} outputs of {len({c for c, _ in table})} cases)", ""]
    for b in backends:
        got = [row[b] for row in table.values() if b in row]
        lines.append(f"- {b}: {len(got)} outputs, max {max(got):.3g}, median {sorted(got)[len(got) // 2]:.3g}")
    lines += ["", f"The {top} highest (by the largest ratio of any backend):", "",
              "| case | output | " + " | ".join(backends) + " |", "|---|---|" + "---|" * len(backends)]
    worst = sorted(table.items(), key=lambda kv: -max(kv[1].values()))[:top]
    for (case, output), row in worst:
        cells = " | ".join(f"{row[b]:.3g}" if b in row else "–" for b in backends)
        lines.append(f"| {case} | {output} | {cells} |")
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("records")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args(argv[1:])
    try:
        table = ratios(json.load(open(args.records))["records"])
    except (OSError, ValueError, KeyError) as e:
        print(f"error: cannot read {args.records}: {e}\n  hint: a tandem records.json", file=sys.stderr)
        return 4
    if not table:
        print(f"error: no record of {args.records} has an error / tolerance ratio", file=sys.stderr)
        return 4
    print(markdown(table, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
