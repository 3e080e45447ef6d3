# `report RECORDS... -o DIR`: index.html (per suite a correctness table and its plots),
# the PNGs, and summary.md (verdict counts, failures, plot list) from one or more records files.
import collections
import html
import sys
from pathlib import Path

from reports import atomic, context, records, run_completion
from reports.correctness import COLUMNS, markdown_table, row, verdict_counts
from reports.exit_codes import PASS, BadInput

CSS = """body{font-family:sans-serif;margin:2em;max-width:1400px}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}tr.fail td,tr.error td{background:#fdd}
tr.skip td{color:#888}p.missing{color:#a40;font-weight:bold}h2.failures{color:#b00}
summary{cursor:pointer;font-weight:bold;margin:6px 0}img{max-width:100%;border:1px solid #eee;margin:8px 0}code{background:#f4f4f4}"""


def context_lines(recs):
    if not recs:
        return []
    breaking, info = context.split(recs[0].get("context"))
    return [f"{k}: {v}" for k, v in list(breaking.items()) + list(info.items())]


def skip_reasons(recs):
    """[(count, reason)] of the skipped records, most common first: one line per reason."""
    counts = collections.Counter(" ".join(str(r.get("message") or "no reason given").split())[:200]
                                 for r in recs if r["verdict"] == "skip")
    return sorted(((n, why) for why, n in counts.items()), key=lambda t: (-t[0], t[1]))


def html_table(rows, skips=()):
    head = "".join(f"<th>{html.escape(c)}</th>" for c in COLUMNS)
    body = "".join(f'<tr class="{html.escape(r["verdict"])}">' + "".join(
        f"<td>{html.escape(str(r[c]))}</td>" for c in COLUMNS) + "</tr>" for r in rows)
    body += "".join(f'<tr class="skip"><td colspan="{len(COLUMNS)}">{n} skipped: {html.escape(why)}</td></tr>'
                    for n, why in skips)
    return f"<table><tr>{head}</tr>{body}</table>"


def correctness_section(rs):
    """The suite's correctness table: a row per case that ran, one line per skip reason;
    folded when long so the plots stay in view."""
    ran = [row(r) for r in rs if r["verdict"] != "skip"]
    skips = skip_reasons(rs)
    fold = "" if len(ran) + len(skips) > 30 else " open"
    return (f"<details{fold}><summary>Correctness: {len(ran)} cases ran"
            + (f", {sum(n for n, _ in skips)} skipped" if skips else "") + "</summary>"
            + html_table(ran, skips) + "</details>")


def counts_text(c):
    return ", ".join(f"{n} {k}" for k, n in c.items() if n)


def attention(failures, warnings):
    """What needs a look, above every plot: the failed cases, then promised plots not drawn."""
    out = ""
    if failures:
        out += (f'<h2 id="failures" class="failures">❌ Failures ({len(failures)})</h2>' + html_table(failures))
    if warnings:
        out += f'<p class="missing">⚠ Promised plots not drawn</p><ul>{"".join(warnings)}</ul>'
    return out


REPORT_HINT = "write the report into a folder of its own, e.g. -o RUNDIR/report"


def render(paths, out_dir, title="tandem report"):
    loaded = [(p, *records.load_document(p)) for p in paths]
    recs = [r for _, _, rs in loaded for r in rs]
    # A killed run's records look like a run with fewer cases: say so above everything.
    unfinished = [why for p, doc, rs in loaded if (why := run_completion.problem(p, doc, rs))]
    if not recs:
        raise BadInput(f"no records in {', '.join(map(str, paths))}", "run some cases first: `tandem run --out FILE`")
    # A run's folder holds its own summary.md: the report's would replace it.
    atomic.refuse_input(out_dir, atomic.input_folders(paths), "-o", REPORT_HINT, "the folder of an input records file")
    # matplotlib only once the inputs are read and checked: a refused input costs no plotting
    # library's seconds of import (runners/option_walk_test.py walks every value of every option)
    from reports.plots import PERF_ONLY, missing_promises, plots_for, quick_only

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    suites = records.by_suite(recs)
    md = [f"# {title}", "", *(f"> ⚠️ **INCOMPLETE RUN**: {why}.\n" for why in unfinished),
          f"Records: {', '.join(f'`{p}`' for p in paths)} ({len(recs)} records).", "",
          "| suite | pass | fail | skip | error | plots |", "|---|---|---|---|---|---|"]
    body, failures, all_plots, undrawn, top = [], [], [], [], []
    for suite in sorted(suites):
        rs = suites[suite]
        c = verdict_counts(rs)
        plots = plots_for(suite, rs, out, recs)
        md.append(f"| {suite} | {c['pass']} | {c['fail']} | {c['skip']} | {c['error']} | {len(plots)} |")
        failures += [row(r) for r in rs if r["verdict"] in records.FAILED]
        body.append(f'<h2 id="{html.escape(suite)}">{html.escape(suite)}</h2><p>{html.escape(counts_text(c))}</p>')
        absent = missing_promises(suite, plots, rs)
        perf_later = [p for p in PERF_ONLY.get(suite, ()) if quick_only(rs)]
        if perf_later:
            body.append(f"<p>From a quick run: {html.escape(', '.join(perf_later))} is drawn from the perf cases "
                        f"(<code>tandem run --profile nightly --suite {html.escape(suite)} --filter perf</code>).</p>")
        if absent:  # a plot with no data is shown as missing, never silently left out
            body.append(f'<p class="missing">⚠ not drawn (no record carries what it plots): '
                        f'{html.escape(", ".join(absent))}</p>')
            undrawn.append(f"- ⚠ {suite}: {', '.join(absent)}")
            top.append(f'<li><a href="#{html.escape(suite)}">{html.escape(suite)}</a>: not drawn '
                       f'{html.escape(", ".join(absent))}</li>')
        body += [f'<figure><img src="{html.escape(p.file)}" alt="{html.escape(p.title)}">'
                 f"<figcaption>{html.escape(p.title)} — {html.escape(p.caption)}</figcaption></figure>" for p in plots]
        body.append(correctness_section(rs))
        all_plots += plots
    ctx = context_lines(recs)
    md += ["", "## Context", ""] + [f"- {line}" for line in ctx]
    if failures:
        md += ["", f"## Failures ({len(failures)})", "", markdown_table(failures)]
    if undrawn:
        md += ["", "## Promised plots not drawn (no record carries what they plot)", ""] + undrawn
    md += ["", "## Plots", ""] + [f"- [{p.title}]({p.file}): {p.caption}" for p in all_plots] + [""]
    nav = " · ".join(f'<a href="#{html.escape(s)}">{html.escape(s)}</a>' for s in sorted(suites))
    page = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{html.escape(title)}</h1><p>{nav}</p>"
            f"<p>{len(recs)} records: {html.escape(counts_text(verdict_counts(recs)))}</p>"
            f"<details><summary>Context</summary><pre>{html.escape(chr(10).join(ctx))}</pre></details>"
            + "".join(f'<h2 class="failures">⚠ Incomplete run: {html.escape(why)}</h2>' for why in unfinished)
            + attention(failures, top) + "".join(body) + "</body></html>\n")
    atomic.write_text(out / "index.html", page)
    atomic.write_text(out / "summary.md", "\n".join(md))
    return recs, unfinished


def main(a):
    atomic.refuse_input(a.output, atomic.input_folders(a.records), "-o", REPORT_HINT, "the folder of an input records file")
    with atomic.out_dir_lock(a.output, "report"):  # never over a running run's summary.md
        recs, unfinished = render(a.records, a.output, a.title)
    for why in unfinished:
        print(f"warning: INCOMPLETE RUN: {why}; the report shows only the cases it finished", file=sys.stderr)
    print(f"report: {a.output}/index.html ({len(recs)} records)")
    return PASS
