# `history report -o DIR`: a trend plot per suite and metric over the runs in the history,
# segments split where a history-breaking context field changed (a boundary, not an alarm),
# change points inside each segment (reports/changepoint.py), index.html and summary.md.
import html
import json
import math
import sqlite3
import sys
from pathlib import Path

from reports import atomic, changepoint, history_db, input_file
from reports.exit_codes import PASS, PERFORMANCE_REGRESSION, BadInput

MAX_COLORED = 10  # more cases than this: all drawn relative to their median, only changed ones coloured


def load(conn, db="the history"):
    """(runs, series); rows or a schema history add never writes (non-UTF-8 text, a renamed column)
    are a corrupt history (4), not a traceback or sqlite3's OperationalError (5): reports/fuzz.py."""
    try:
        runs, series = read_rows(conn, db)
    except (sqlite3.DatabaseError, BadInput, ValueError, MemoryError) as e:  # MemoryError: SQLITE_NOMEM
        if "locked" in str(e):
            raise
        raise history_db.corrupt(db, None, e) from None
    if not runs:
        raise BadInput("the history is empty", "add runs first: `tandem history add RECORDS`")
    return runs, series


def read_rows(conn, db):
    runs = conn.execute("SELECT seq, git_sha, breaking, added_at FROM runs ORDER BY seq").fetchall()
    for seq, sha, breaking, added_at in runs:  # SQLite enforces no column type
        if type(seq) is not int or not isinstance(sha, (str, type(None))) or not isinstance(added_at, str) \
                or not isinstance(input_file.parse_json(breaking, db, "") if isinstance(breaking, str) else 0, dict):
            raise ValueError(f"run #{seq} is not a run tandem wrote")
    series = {}  # (suite, metric) → {"unit", "direction", "cases": {case: [(seq, value)]}}
    for seq, case, suite, name, value, unit, direction in conn.execute(
            "SELECT m.run_seq, m.case_name, r.suite, m.name, m.value, m.unit, m.direction FROM metrics m "
            "JOIN results r ON r.run_seq = m.run_seq AND r.case_name = m.case_name ORDER BY m.run_seq"):
        if type(value) is not float or not math.isfinite(value):  # text or NULL in a REAL column
            raise ValueError(f"metric {name!r} of {case!r} in run #{seq} is {value!r}")
        s = series.setdefault((suite, name), {"unit": unit or "", "direction": direction, "cases": {}})
        s["cases"].setdefault(case, []).append((seq, value))
    return runs, series


def analyze(runs, series, alpha, min_effect, min_size):
    """Change points per (suite, metric, case), searched within each segment only."""
    breaking = {seq: b for seq, _, b, _ in runs}
    sha = {seq: g for seq, g, _, _ in runs}
    found = []
    for (suite, metric), s in series.items():
        for case, pts in s["cases"].items():
            for lo, hi in changepoint.segments([breaking[q] for q, _ in pts]):
                vals = [v for _, v in pts[lo:hi]]
                for c in changepoint.detect(vals, min_size, alpha, min_effect):
                    seq = pts[lo + c.index][0]
                    worse = (c.change > 0) == (s["direction"] == "lower")
                    found.append({"suite": suite, "metric": metric, "case": case, "seq": seq, "git_sha": sha[seq],
                                  "before": c.before, "after": c.after, "change": c.change, "p": c.p_value,
                                  "kind": "regression" if s["direction"] in ("lower", "higher") and worse else
                                  ("improvement" if s["direction"] in ("lower", "higher") else "change")})
    return found


def boundaries(runs):
    """[(seq, 'field: old → new')] where a history-breaking field changes between runs."""
    out = []
    for (_, _, a, _), (seq, _, b, _) in zip(runs, runs[1:]):
        if a != b:
            old, new = json.loads(a), json.loads(b)
            out.append((seq, "; ".join(f"{k}: {old.get(k, '—')} → {new.get(k, '—')}"
                                       for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k))))
    return out


def plot(suite, metric, s, runs, cps, bounds, out):
    from reports.plots import style

    pos = {seq: i for i, (seq, _, _, _) in enumerate(runs)}
    breaking = {seq: b for seq, _, b, _ in runs}
    changed = {c["case"] for c in cps}
    many = len(s["cases"]) > MAX_COLORED
    unit = s["unit"] or "dimensionless"
    ylabel = f"{metric} relative to the case's median (×)" if many else f"{metric} ({unit})"
    fig, ax = style.figure(f"{suite}: {metric} per run" + (" (lower is better)" if s["direction"] == "lower" else
                           " (higher is better)" if s["direction"] == "higher" else ""), "run (git sha)", ylabel,
                           size=(11, 5.5))
    all_y, n_legend = [], 0
    for case, pts in sorted(s["cases"].items()):
        ys = [v for _, v in pts]
        if many:
            mid = sorted(ys)[len(ys) // 2] or 1.0
            ys = [y / mid for y in ys]
        xs = [pos[q] for q, _ in pts]
        all_y += ys
        colored = not many or case in changed
        color = None if colored else "0.75"
        for lo, hi in changepoint.segments([breaking[q] for q, _ in pts]):  # no line across a new segment
            line, = ax.plot(xs[lo:hi], ys[lo:hi], marker="o" if colored else None, ms=3, lw=1.2 if colored else 0.6,
                            color=color, label=case if colored and lo == 0 else None, zorder=3 if colored else 1)
            color = line.get_color()
        n_legend += colored
        for c in (c for c in cps if c["case"] == case):
            i = [q for q, _ in pts].index(c["seq"])
            ax.scatter(xs[i], ys[i], s=90, zorder=5, marker="v" if c["kind"] == "regression" else "^",
                       color="tab:red" if c["kind"] == "regression" else "tab:green")
    if many:  # the suite's overall trend: per run, the median of the cases' relative values
        per_run = {}
        for pts in s["cases"].values():
            mid = sorted(v for _, v in pts)[len(pts) // 2] or 1.0
            for q, v in pts:
                per_run.setdefault(pos[q], []).append(v / mid)
        xs = sorted(per_run)
        ax.plot(xs, [sorted(per_run[x])[len(per_run[x]) // 2] for x in xs], color="black", lw=2.5,
                label="median over cases", zorder=4)
        n_legend += 1
    for seq, what in bounds:
        ax.axvline(pos[seq] - 0.5, color="tab:purple", ls=":", lw=1.2)
        ax.annotate("new segment: " + what[:60], (pos[seq] - 0.5, 1.0), xycoords=("data", "axes fraction"),
                    rotation=90, va="top", ha="right", fontsize="x-small", color="tab:purple")
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([f"{(g or '?')[:7]} #{q}" for q, g, _, _ in runs], rotation=60, ha="right", fontsize="x-small")
    if not many:
        style.auto_log(ax, "y", all_y)
    if n_legend <= 15:
        style.legend(ax, n_legend)
    return style.save(fig, out, f"trend_{style.safe_name(suite)}_{style.safe_name(metric)}.png", f"{suite}: {metric}",
                      f"{len(s['cases'])} cases; ▼ regression, ▲ improvement, dotted line: new segment")


def render(db, out_dir, alpha=0.01, min_effect=0.05, min_size=3):
    conn = history_db.connect(db, create=False)
    try:
        runs, series = load(conn, db)
    finally:
        conn.close()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cps, bounds = analyze(runs, series, alpha, min_effect, min_size), boundaries(runs)
    plots = [plot(suite, metric, series[(suite, metric)], runs,
                  [c for c in cps if (c["suite"], c["metric"]) == (suite, metric)], bounds, out)
             for suite, metric in sorted(series)]
    cps.sort(key=lambda c: (c["kind"] != "regression", -abs(c["change"])))
    md = [f"# tandem history: {len(runs)} runs, {len(series)} series", "",
          "Change points: binary segmentation with the run-level gate's pooled t-test on log values, "
          f"Bonferroni-corrected α = {alpha:g}, "
          f"minimum effect {min_effect:.0%}, ≥ {min_size} runs a side, searched within segments.", ""]
    md += [f"- new segment at run #{seq}: {what}" for seq, what in bounds] + [""]
    md += [f"## Change points ({len(cps)})", "", "| kind | suite | metric | case | run | git | before | after | change | p |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    md += [f"| {c['kind']} | {c['suite']} | {c['metric']} | {c['case']} | #{c['seq']} | {c['git_sha'] or ''} | "
           f"{c['before']:.4g} | {c['after']:.4g} | {c['change']:+.1%} | {c['p']:.2g} |" for c in cps]
    md += ["", "## Plots", ""] + [f"- [{p.title}]({p.file})" for p in plots] + [""]
    atomic.write_text(out / "summary.md", "\n".join(md))
    rows = "".join(f"<tr><td>{html.escape(c['kind'])}</td><td>{html.escape(c['case'])}</td><td>{html.escape(c['metric'])}</td>"
                   f"<td>#{c['seq']} {html.escape(c['git_sha'] or '')}</td><td>{c['change']:+.1%}</td><td>{c['p']:.2g}</td></tr>"
                   for c in cps)
    page = ("<!doctype html><html><head><meta charset='utf-8'><title>tandem history</title></head>"
            f"<body style='font-family:sans-serif'><h1>tandem history</h1><p>{html.escape(md[2])}</p>"
            + "".join(f"<p>new segment at run #{s}: {html.escape(w)}</p>" for s, w in bounds)
            + f"<h2>Change points ({len(cps)})</h2><table border=1 cellpadding=3><tr><th>kind</th><th>case</th>"
            f"<th>metric</th><th>run</th><th>change</th><th>p</th></tr>{rows}</table>"
            + "".join(f"<h2>{html.escape(p.title)}</h2><img src='{p.file}' style='max-width:100%'><p>{html.escape(p.caption)}</p>"
                      for p in plots) + "</body></html>\n")
    atomic.write_text(out / "index.html", page)
    return runs, cps, series


def open_regressions(runs, series, cps):
    """Regressions the newest run still carries: per (suite, metric, case) measured in the newest
    run, the last change point of the newest segment is a regression (no improvement since)."""
    newest = runs[-1][0]
    breaking = {seq: b for seq, _, b, _ in runs}
    last = {}
    for c in sorted(cps, key=lambda c: c["seq"]):
        if breaking[c["seq"]] == breaking[newest]:
            last[(c["suite"], c["metric"], c["case"])] = c
    return [c for key, c in last.items() if c["kind"] == "regression"
            and series[key[:2]]["cases"][key[2]][-1][0] == newest]


def main(a):
    if a.min_size < 1:
        raise BadInput(f"--min-size {a.min_size}: needs at least 1 run on each side of a change point",
                       "the default is 3; use an integer ≥ 1")
    if not 0 < a.alpha < 1 or not 0 < a.min_effect < 1:
        raise BadInput("--alpha and --min-effect must be in (0, 1)", "e.g. --alpha 0.01 --min-effect 0.05")
    with atomic.out_dir_lock(a.output, "history report"):  # never over a running run's summary.md
        runs, cps, series = render(a.db, a.output, a.alpha, a.min_effect, a.min_size)
    regressions = sum(c["kind"] == "regression" for c in cps)
    print(f"history report: {a.output}/index.html ({len(runs)} runs, {len(cps)} change points, {regressions} regressions)")
    still = open_regressions(runs, series, cps)
    if still:
        for c in still[:20]:
            print(f"regression at the newest run: {c['case']} {c['metric']} {c['change']:+.1%} since run #{c['seq']}",
                  file=sys.stderr)
        print(f"history: {len(still)} regression(s) open at the newest run (exit {PERFORMANCE_REGRESSION})", file=sys.stderr)
        return PERFORMANCE_REGRESSION
    return PASS
