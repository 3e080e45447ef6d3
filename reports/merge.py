# `merge PART... -o DIR`: one run directory from runs made apart (ci/quick_run.sh: the suites in one process, the
# collectives suite at 4 ranks, a short busbw sweep): records.json (complete only when every part is), benchmark.json
# (the parts' Google Benchmark runs) and summary.md (verdict counts, the cases per rank count, a row per case), each
# written atomically. A case in two parts, at the same or at another rank count, is bad input: one record per case.
import json
import re
from pathlib import Path

from reports import atomic, input_file, records, run_completion
from reports.correctness import row
from reports.exit_codes import PASS, BadInput
from reports.records import num

RANKS = re.compile(r"/ranks:\d+$")  # `tandem run` under N ranks names its cases .../ranks:N


def load_part(part):
    """(records.json path, its document, records, benchmark.json document) of a run directory."""
    path = Path(part) / "records.json" if Path(part).is_dir() else Path(part)
    doc, recs = records.load_document(path)
    bench = path.parent / "benchmark.json"
    gb = input_file.read_json(bench, "benchmark.json", BENCH_HINT, BENCH_HINT)
    return path, doc, recs, checked_benchmarks(bench, gb)


BENCH_HINT = "merge the directories `tandem run --out` or `tandem collectives --out` wrote"


def checked_benchmarks(bench, gb):
    """Google Benchmark's JSON as merge uses it: an object, its context an object, its
    benchmarks a list of objects whose family_index (when given) is an integer >= 0."""
    if not isinstance(gb, dict):
        raise BadInput(f"{bench}: a JSON {type(gb).__name__}, not a Google Benchmark object", BENCH_HINT)
    if not isinstance(gb.get("context", {}), dict) or not isinstance(gb.get("benchmarks") or [], list):
        raise BadInput(f"{bench}: \"context\" must be an object and \"benchmarks\" a list", BENCH_HINT)
    for i, b in enumerate(gb.get("benchmarks") or []):
        fi = b.get("family_index", 0) if isinstance(b, dict) else None
        if not isinstance(b, dict) or isinstance(fi, bool) or not isinstance(fi, int) or fi < 0:
            raise BadInput(f"{bench}: benchmarks[{i}] is not an object with an integer family_index >= 0", BENCH_HINT)
    return gb


def ranks(rec):
    return int((rec.get("context") or {}).get("ranks") or 1)


def rank_lines(recs):
    """'380 cases ran at 4 ranks: 285 passed, ...' per rank count above 1; sweep rows (no lockstep) apart."""
    n = {}
    for r in recs:
        if ranks(r) > 1:
            n.setdefault((ranks(r), "cases" if "multi_rank" in r else "sweep rows"), []).append(r)
    return [f"{len(rs)} {what} ran at {k} ranks: " + "{} passed, {} failed, {} skipped, {} errors".format(
        *run_completion.counts(rs)) for (k, what), rs in sorted(n.items())]


def summary_row(r):
    t = (r.get("timing") or {}).get("median")
    median = f"{num(t) * 1e3:.3g} ms" if num(t) is not None else "-"
    gflops = next((f"{num(m['value']):.4g}" for m in r.get("metrics") or [] if m.get("name") == "gflops"
                   and num(m.get("value")) is not None), "-")
    note = str(r.get("message") or "").split("\n")[0].replace("|", "/")
    note = note if len(note) <= 90 else note[:87] + "..."
    return f"| {r['case']} | {r['verdict']} | {row(r)['error/tol'] or '-'} | {median} | {gflops} | {note} |"


def merge(parts, out):
    recs, seen, benches, incomplete, lines, gb_ctx = [], {}, [], [], [], None
    for part in parts:
        path, doc, rs, gb = load_part(part)
        for r in rs:
            key = RANKS.sub("", r["case"])
            if key in seen:
                raise BadInput(f"{path}: case {r['case']!r} is also in {seen[key]}",
                               "merge runs of different cases (e.g. `tandem run --exclude-suite collectives` "
                               "beside the 4-rank `--suite collectives`): one record per case")
            seen[key] = path
        if (why := run_completion.problem(path, doc, rs)) is not None:
            incomplete.append(why)
        recs += rs
        gb_ctx = gb.get("context", {}) if gb_ctx is None else gb_ctx
        base = len({b.get("family_index") for b in benches})
        benches += [dict(b, family_index=base + b.get("family_index", 0)) for b in gb.get("benchmarks") or []]
        c = run_completion.counts(rs)
        lines.append(f"- `{path}`: {len(rs)} records at {'/'.join(sorted({str(ranks(r)) for r in rs})) or '-'} "
                     f"rank(s): {c[0]} passed, {c[1]} failed, {c[2]} skipped, {c[3]} errors")
    out = Path(out)
    # The completion marker goes last: records.json says "complete": false until benchmark.json
    # and summary.md are on disk, so a full disk mid-merge never leaves a merge marked complete.
    doc = {"schema": records.SCHEMA, "complete": False, "records": recs}
    (out / "records.json").unlink(missing_ok=True)  # a failed first write must not leave an old merge's
    atomic.write_text(out / "records.json", json.dumps(doc, indent=1) + "\n")
    atomic.write_text(out / "benchmark.json", json.dumps({"context": gb_ctx, "benchmarks": benches}, indent=1) + "\n")
    c = run_completion.counts(recs)
    md = ["# tandem summary", "", f"{c[0]} passed, {c[1]} failed, {c[2]} skipped, {c[3]} errors", ""]
    md += [line + "." for line in rank_lines(recs)] + ["", "Merged from:", ""] + lines
    md += [f"- not complete: {why}" for why in incomplete]
    md += ["", "| case | verdict | err/tol | median | GFLOP/s | note |", "|---|---|---|---|---|---|"]
    atomic.write_text(out / "summary.md", "\n".join(md + [summary_row(r) for r in recs]) + "\n")
    if not incomplete:
        atomic.write_text(out / "records.json", json.dumps(dict(doc, complete=True), indent=1) + "\n")
    return recs, md, incomplete


def main(a):
    folders = atomic.input_folders(a.parts)  # -o over a part (or a link to one) replaces its records
    atomic.refuse_input(a.output, folders, "-o", "merge into a folder of its own, e.g. -o results/merged",
                        "the folder of an input part")
    with atomic.out_dir_lock(a.output, "merge"):  # a run folder has one writer at a time
        recs, md, incomplete = merge(a.parts, a.output)
    print("\n".join(md[2:-2]))
    print(f"merged: {a.output}/records.json ({len(recs)} records)" + (" NOT COMPLETE" if incomplete else ""))
    return PASS
