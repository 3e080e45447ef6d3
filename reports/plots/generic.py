# The fallback for suites without their own plots: one horizontal bar chart per metric, a bar
# per case, log axis across decades. The time of a quick-profile case is the time of a
# correctness run, not a measurement anyone should read: no "time per case" chart for it
# (records of unknown origin keep theirs), so a suite with nothing else shows its table only.
from reports.plots import style
from reports.records import label, metrics, run_profile, time_median

MAX_CASES = 40


def plot(suite, recs, out):
    per_metric = {}  # name → (unit, direction, [(case, value)])
    for r in recs:
        if r["verdict"] != "pass":
            continue
        case = label(r) + f" [{r.get('backend', '?')}]"
        ms = metrics(r)
        if run_profile(r) == "quick":
            ms.pop("time_median", None)
        elif "time_median" not in ms and time_median(r) is not None:
            ms["time_median"] = {"value": time_median(r), "unit": "s", "direction": "lower"}
        for name, m in ms.items():
            per_metric.setdefault(name, (m.get("unit", ""), m.get("direction", ""), []))[2].append((case, m["value"]))
    plots = []
    for name in sorted(per_metric):
        unit, direction, rows = per_metric[name]
        rows = sorted(rows)[:MAX_CASES]
        if unit == "s":  # seconds of microsecond cases read badly as 2.5e-6: pick ms or µs
            scale, unit = style.time_unit([v for _, v in rows])
            rows = [(c, v / scale) for c, v in rows]
        fig, ax = style.figure(f"{suite}: {name} per case", f"{name} ({unit or 'dimensionless'})", "case",
                               size=(10, max(3.5, 0.3 * len(rows) + 1.5)))
        ax.barh(range(len(rows)), [v for _, v in rows], color="tab:blue")
        ax.set_yticks(range(len(rows)))
        ax.set_yticklabels([c for c, _ in rows], fontsize="small")
        ax.invert_yaxis()
        if str(unit).lower() in ("b", "bytes") and style.spans_decades([v for _, v in rows]):
            style.bytes_axis(ax, "x", 2)
        else:
            style.auto_log(ax, "x", [v for _, v in rows])
        better = {"lower": "lower is better", "higher": "higher is better"}.get(direction, "")
        plots.append(style.save(fig, out, f"{style.safe_name(suite)}_{style.safe_name(name)}.png",
                                f"{suite}: {name}", better + (f" (first {MAX_CASES} cases)" if len(per_metric[name][2]) > MAX_CASES else "")))
    return plots
