# The gate's markdown summary, fit for a pull-request comment: headline and exit code, the
# method, verdict counts, correctness failures, performance changes, what was not compared.
from reports import context, gate_anchor, gate_ratio, records, stats
from reports.correctness import markdown_table, row


def fmt_value(v, unit):
    if v is None or v != v:
        return "—"
    if unit == "s":
        for scale, u in ((1, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns")):
            if abs(v) >= scale or scale == 1e-9:
                return f"{v / scale:.3g} {u}"
    if unit in ("B", "bytes"):
        for scale, u in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB"), (1, "B")):
            if abs(v) >= scale or scale == 1:
                return f"{v / scale:.4g} {u}"
    return f"{v:.4g} {unit}".strip()


def perf_rows(cases, only_changed, limit=300):
    """Rows of the comparisons not SAME or beyond the minimum effect, or (only_changed=False)
    each case's deciding one."""
    rows = []
    for rec, verdict, comps in cases:
        units = {n: m.get("unit", "") for n, m in records.metrics(rec).items()}
        if only_changed:
            shown = [x for x in comps if x.verdict not in (stats.SAME, gate_ratio.RAW) or abs(x.change) >= x.min_effect]
        else:
            shown = [next((x for x in comps if x.verdict == verdict), comps[0])] if comps else []
        for x in shown:
            unit = "s" if x.metric in ("time", "cpu_time") else units.get(x.metric, "")
            rows.append({"case": rec["case"], "verdict": x.verdict, "metric": x.metric,
                         "baseline": fmt_value(x.base, unit), "current": fmt_value(x.current, unit),
                         "change": f"{x.change:+.1%}" if x.change == x.change else "—",
                         "p": "" if x.p_value is None else f"{x.p_value:.2g}",
                         "q": "" if x.q_value is None else f"{x.q_value:.2g}",
                         "n": f"{x.n_base}/{x.n_current}", "note": x.note})
    if only_changed:  # regressions first, then doubts, gains, and noise beyond the minimum effect
        rank = {stats.SLOWER: 0, stats.WORSE: 0, stats.INCONCLUSIVE: 1, stats.FASTER: 2, stats.BETTER: 2}
        rows.sort(key=lambda r: rank.get(r["verdict"], 3))
    if len(rows) > limit:
        rows = rows[:limit] + [{"case": f"… {len(rows) - limit} more rows"}]
    return rows


HEADLINE = {0: "✅ pass", 1: "❌ correctness failure", 2: "🐢 performance regression", 3: "❓ inconclusive",
            6: "🕳️ incomplete run"}
MISSING, NEWLY_SKIPPED = "MISSING", "NEWLY SKIPPED"  # the verdicts of exit 6, beside the failures
VERDICT_ORDER = [stats.SAME, stats.FASTER, stats.SLOWER, stats.BETTER, stats.WORSE, stats.INCONCLUSIVE, gate_ratio.RAW]
PERF_COLUMNS = ["case", "verdict", "metric", "baseline", "current", "change", "p", "q", "n", "note"]


def listed(items, limit=30):
    shown = "".join(f"\n- `{n}`: {why}" for n, why in items[:limit])
    return shown + (f"\n- … and {len(items) - limit} more" if len(items) > limit else "")


def incomplete_lines(o):
    """What makes the gate exit 6 (or 3 for an empty baseline), before any performance table."""
    lines = []
    if o.empty_baseline:
        lines += ["### ❓ Empty baseline", "", "The baseline holds no records: nothing can be compared. "
                  "Refresh it from a complete run: `tandem baseline refresh RECORDS --machine-kind K`.", ""]
    if o.incomplete:
        lines += ["### 🕳️ Incomplete run", "", o.incomplete + ".", ""]
    if o.missing:
        lines += [f"### 🕳️ {MISSING}: {len(o.missing)} baseline case(s) absent from the current run",
                  listed([(n, f"baseline verdict {v}") for n, v in o.missing]), ""]
    if o.newly_skipped:
        lines += [f"### 🕳️ {NEWLY_SKIPPED}: {len(o.newly_skipped)} case(s) ran in the baseline, skipped now",
                  listed(o.newly_skipped), ""]
    return lines


def ratio_lines(cases):
    """Which sweep cases gated on time/raw, so a reader knows why their raw calls show RAW."""
    if not cases:
        return []
    return [f"<details><summary>Gated on time relative to the raw call of the same run (time/raw): {len(cases)} "
            f"case(s); their raw calls are {gate_ratio.RAW}, {gate_ratio.RAW_NOTE}</summary>\n"
            f"{listed([(t, f'over `{r}`') for t, r in cases])}\n\n</details>", ""]


def undecided_lines(o, cfg):
    """Why exit 3 on one run per side, and which runs would decide it."""
    if not o.undecided:
        return []
    kind = context.machine_kind(o.cases[0][0].get("context")) if o.cases else "<machine-kind>"
    return [f"### ❓ Undecided on one run per side: {len(o.undecided)} case(s)", "",
            f"Their time over their anchor moved by less than ±{cfg.single_run_noise:.0%}, the band it moves between "
            f"runs of one build (`--single-run-noise`): one run per side cannot tell that from noise. "
            + gate_anchor.hint(kind) + ".", listed([(n, "its ratio to the anchor moved inside the band") for n in o.undecided]), ""]


def summary(o, cfg, base_path, cur_path, n_base, n_cur, method=None):
    """`method`: the sentence saying how performance was judged (default: the Mann–Whitney U
    test on repetitions; reports/gate_runs.py gives its run-level one)."""
    counts = {}
    for _, v, _ in o.cases:
        counts[v] = counts.get(v, 0) + 1
    tested = [x for _, v, comps in o.cases if v != gate_ratio.RAW for x in comps if x.p_value is not None]
    n_tests = len(tested)
    per_suite = "".join(f", {s} {e:.0%}" for s, e in sorted(cfg.suites.items()))
    lines = [f"## tandem gate — {HEADLINE.get(o.code, o.code)} (exit {o.code})", "",
             f"Baseline `{base_path}` ({n_base} records) vs current `{cur_path}` ({n_cur} records).",
             method or (f"Correctness first; then per case a two-sided Mann–Whitney U test on the repetitions of "
                        "its time over the anchor timed beside each (its raw library call or the harness's canary; "
                        "`cpu_time/anchor`: process CPU times on the CPU, `time/anchor`: wall on CUDA; records "
                        "without an anchor: absolute time), Benjamini–Hochberg q < "
                        f"{cfg.alpha:g} across all {n_tests} tests, minimum effect {cfg.min_effect:.0%}{per_suite}; "
                        f"a change of that ratio inside ±{cfg.single_run_noise:.0%} (its between-run spread, A/A), "
                        "widened by half the anchor's own move, is INCONCLUSIVE: one run per side does not see the "
                        "noise between runs; a library call other cases name as their baseline is RAW (docs/CI.md)."), "",
             f"| failed | {MISSING} | {NEWLY_SKIPPED} | " + " | ".join(VERDICT_ORDER) + " | not compared |",
             "|---|---|---|" + "---|" * len(VERDICT_ORDER) + "---|",
             f"| {len(o.failures)} | {len(o.missing or [])} | {len(o.newly_skipped or [])} | "
             + " | ".join(str(counts.get(v, 0)) for v in VERDICT_ORDER) + f" | {len(o.not_compared)} |", ""]
    if o.failures:
        lines += [f"### ❌ Correctness failures ({len(o.failures)})", "", markdown_table([row(r) for r in o.failures]), ""]
    lines += incomplete_lines(o) + ratio_lines(o.ratio_gated) + undecided_lines(o, cfg)
    need = stats.lone_case_repetitions(n_tests, cfg.alpha)
    if method is None and tested and min(min(x.n_base, x.n_current) for x in tested) < need:
        lines += [f"ℹ️ With these repetitions a change confined to one case cannot be significant among {n_tests} "
                  f"tests; run ≥ {need} repetitions per case (`-n {need}`) to gate single cases.", ""]
    changed = perf_rows(o.cases, only_changed=True)
    if changed:
        lines += ["### Performance: changes beyond the minimum effect", "", markdown_table(changed, PERF_COLUMNS), ""]
    if o.cases:
        lines += [f"<details><summary>All compared cases ({len(o.cases)})</summary>", "",
                  markdown_table(perf_rows(o.cases, only_changed=False), PERF_COLUMNS), "", "</details>", ""]
    if o.context_changes:
        lines += ["⚠️ History-breaking context differs from the baseline: " + "; ".join(o.context_changes), ""]
    if o.not_compared:
        shown = "".join(f"\n- `{n}`: {why}" for n, why in o.not_compared[:20])
        more = f"\n- … and {len(o.not_compared) - 20} more" if len(o.not_compared) > 20 else ""
        lines += [f"<details><summary>Not compared ({len(o.not_compared)})</summary>\n{shown}{more}\n\n</details>", ""]
    return "\n".join(lines)
