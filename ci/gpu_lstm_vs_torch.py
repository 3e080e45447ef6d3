#!/usr/bin/env python3
"""tandem's cuDNN LSTM against PyTorch's nn.LSTM on cuDNN, same shapes, same run: joins the
records of `tandem run --profile nightly --backend cuda --filter ^lstm/perf/` with the JSON of
`torch_lstm_bench.py --device cuda` and prints a Markdown table of min times and
torch / tandem (time ratio: >= 0.98 is the goal, within 2 % of PyTorch). Times, not GFLOP/s, are compared
(both now count training as 3 x forward, since tandem's lstm_bwd reads the forward's reserve,
but times need no formula). Rows are paired only at the same math mode (params.math of the
record, "math" of the torch row: fp32 or tf32): TF32 against FP32 times different arithmetic,
so such a pair, or a row that does not say its mode, is refused. Exits 1 when a tandem shape
has no torch row, no timing or a refused pair (a comparison on nothing is a failure).

    gpu_lstm_vs_torch.py records.json torch.json > lstm_vs_torch.md
"""
import json
import sys

MODES = {"fwd": "fwd", "train": "fwd+bwd"}  # tandem's mode -> torch_lstm_bench's


def shape_key(p, mode):
    return (p["batch"], p["seq"], p["input"], p["hidden"], p["layers"], bool(p["bidirectional"]), mode)


def refusal(ours, theirs):
    """Why a tandem row and a torch row of the same shape cannot be compared, or None."""
    if ours is None or theirs is None:
        return f"math mode not recorded (tandem {ours}, torch {theirs})"
    if ours != theirs:
        return f"math modes differ (tandem {ours}, torch {theirs})"
    return None


def main(records_path, torch_path):
    records = json.load(open(records_path))["records"]
    torch_run = json.load(open(torch_path))
    torch_rows = {shape_key(r, r["mode"]): r for r in torch_run["results"]}
    print(f"tandem (cuda) vs {torch_run['tool']} on {torch_run.get('gpu', '?')}, cuDNN {torch_run.get('cudnn')}, "
          f"torch math {torch_run.get('math')} (allow_tf32 {torch_run.get('allow_tf32')})\n")
    print("| case | math | tandem min ms | torch min ms | torch / tandem |\n|---|---|---|---|---|")
    missing = refused = paired = 0
    for r in records:
        if r["backend"] != "cuda" or not r["case"].startswith("lstm/perf/"):
            continue
        p = r["params"]
        row = torch_rows.get(shape_key(p, MODES[p["mode"]]))
        theirs = None if row is None else row["min_s"]
        if theirs is None or "timing" not in r:
            missing += 1
            print(f"| {r['case']} | {p.get('math', '?')} | {'-' if 'timing' not in r else r['timing']['min'] * 1e3:} | "
                  f"{'-' if theirs is None else theirs * 1e3} | MISSING ({r['verdict']}) |")
            continue
        why = refusal(p.get("math"), row.get("math"))
        if why:
            refused += 1
            print(f"| {r['case']} | - | {r['timing']['min'] * 1e3:.3f} | {theirs * 1e3:.3f} | REFUSED: {why} |")
            continue
        ours = r["timing"]["min"]
        paired += 1
        print(f"| {r['case']} | {p['math']} | {ours * 1e3:.3f} | {theirs * 1e3:.3f} | {theirs / ours:.3f} |")
    if missing or refused or not paired:
        print(f"\n{missing} shape(s) without a pair, {refused} pair(s) refused, {paired} compared", file=sys.stderr)
    return 1 if missing or refused or not paired else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
