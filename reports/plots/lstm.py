# lstm suite plot: GFLOP/s per shape, one bar per backend (and path: cuDNN primitive vs scan).
from reports.plots import style
from reports.records import label, metrics

SUITE = "lstm"
PROMISES = ("lstm_gflops.png",)  # the PNGs users are told to expect (reports/README.md)


def rate_metric(rec):
    ms = metrics(rec)
    for name, m in ms.items():
        if "gflop" in name.lower() or str(m.get("unit", "")).upper().startswith("GFLOP"):
            return m
    return None


def plot(recs, out):
    table = {}  # shape → {backend: GFLOP/s}
    for r in recs:
        m = rate_metric(r)
        if m and r["verdict"] == "pass":
            table.setdefault(label(r), {})[r.get("backend", "?")] = m["value"]
    if not table:
        return []
    shapes = sorted(table)
    backends = sorted({b for row in table.values() for b in row})
    height = max(4.0, 0.32 * len(shapes) * max(1, len(backends)) + 1.5)
    fig, ax = style.figure("LSTM throughput per shape and backend", "throughput (GFLOP/s)",
                           "shape (B batch, T steps, I input, H hidden, L layers)", size=(10, min(height, 30)))
    bar = 0.8 / len(backends)
    for j, b in enumerate(backends):
        ys = [i + j * bar for i, s in enumerate(shapes) if b in table[s]]
        xs = [table[s][b] for s in shapes if b in table[s]]
        ax.barh(ys, xs, bar, label=b)
    ax.set_yticks([i + 0.4 - bar / 2 for i in range(len(shapes))])
    ax.set_yticklabels(shapes, fontsize="small")
    ax.invert_yaxis()
    style.auto_log(ax, "x", [v for row in table.values() for v in row.values()])
    style.legend(ax, len(backends), "backend")
    return [style.save(fig, out, "lstm_gflops.png", "LSTM GFLOP/s per shape and backend", "higher is better")]
