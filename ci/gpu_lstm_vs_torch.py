#!/usr/bin/env python3
"""tandem's cuDNN LSTM against PyTorch's nn.LSTM on cuDNN, same shapes, same run: joins the
records of `tandem run --profile nightly --backend cuda --filter ^lstm/perf/` with the JSON of
`torch_lstm_bench.py --device cuda` and prints a Markdown table of min times and
torch / tandem (time ratio: >= 0.98 is issue 13's goal). Times, not GFLOP/s, are compared
(both now count training as 3 x forward, since tandem's lstm_bwd reads the forward's reserve,
but times need no formula). Exits 1 when
a tandem shape has no torch row or no timing (a comparison on nothing is a failure).

    gpu_lstm_vs_torch.py records.json torch.json > lstm_vs_torch.md
"""
import json
import sys

MODES = {"fwd": "fwd", "train": "fwd+bwd"}  # tandem's mode -> torch_lstm_bench's


def shape_key(p, mode):
    return (p["batch"], p["seq"], p["input"], p["hidden"], p["layers"], bool(p["bidirectional"]), mode)


def main(records_path, torch_path):
    records = json.load(open(records_path))["records"]
    torch_run = json.load(open(torch_path))
    torch_min = {shape_key(r, r["mode"]): r["min_s"] for r in torch_run["results"]}
    print(f"tandem (cuda) vs {torch_run['tool']} on {torch_run.get('gpu', '?')}, cuDNN {torch_run.get('cudnn')}\n")
    print("| case | tandem min ms | torch min ms | torch / tandem |\n|---|---|---|---|")
    missing = paired = 0
    for r in records:
        if r["backend"] != "cuda" or not r["case"].startswith("lstm/perf/"):
            continue
        p = r["params"]
        theirs = torch_min.get(shape_key(p, MODES[p["mode"]]))
        if theirs is None or "timing" not in r:
            missing += 1
            print(f"| {r['case']} | {'-' if 'timing' not in r else r['timing']['min'] * 1e3:} | "
                  f"{'-' if theirs is None else theirs * 1e3} | MISSING ({r['verdict']}) |")
            continue
        ours = r["timing"]["min"]
        paired += 1
        print(f"| {r['case']} | {ours * 1e3:.3f} | {theirs * 1e3:.3f} | {theirs / ours:.3f} |")
    if missing or not paired:
        print(f"\n{missing} shape(s) without a pair, {paired} compared", file=sys.stderr)
    return 1 if missing or not paired else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
