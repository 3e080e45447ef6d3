#!/usr/bin/env python3
"""The import corpus: JAX programs written by others (examples/corpus/), each imported with
`tandem import` and checked with `tandem check --program`, and the table of what happened.

    tools/import/corpus_check.py build/tandem [--corpus examples/corpus] [--work DIR]
                                 [--update docs/IMPORT_CORPUS.md | --check docs/IMPORT_CORPUS.md]

Per program: imported or not (and why), the primitives tandem refused, the cases passed out of
those run, the failing cases named. The table goes to stdout; --update writes it between the
markers of the page, --check fails (exit 1) when the page's table differs from this run's.

Exit: 0 when every program whose primitives tandem all has passes every case it ran;
1 when one does not (or --check differs); 4 bad usage; 77 JAX is not installed. A corpus
program whose own imports fail (optax, equinox missing) is an error, not a skip: they are
pinned in ci/requirements.txt.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_table  # noqa: E402

# A failing case whose cause is known and stated, shown in the table and not failing the run; the
# run fails once it passes, so an entry cannot outlive its cause.
KNOWN = {
    ("stax_gelu_batchnorm", "vjp/policy:everything_saveable"):
        "jax.nn.softplus is a custom_jvp: JAX saves what its rule needs, tandem differentiates the "
        "inlined primal body (abs, log1p, exp, max: one bool[8,16] and two f32[8,16] more); the final "
        "tanh's rule (one f32[8,4] fewer); one f32[] more, not yet traced",
    ("optax_ctc", "vjp/policy:everything_saveable"):
        "jnp.logaddexp is a custom_jvp (lax.other._logaddexp_jvp): JAX saves what its rule needs (three "
        "f32[6,2,1] stacked over the scan), tandem differentiates the inlined primal body (max, sub, exp, "
        "log1p, compare, select: 3 bool[6,2,3], 11 f32[6,2,3] and 2 f32[6,2,4] more stacked, one bool[2,3] "
        "and 3 f32[2,3] more outside the scan); the gradients match",
}
TABLE = "corpus-table"  # the page's markers (tools/import/doc_table.py)
PACKAGE = re.compile(r"\b(jax|optax|equinox)==[0-9]+(?:\.[0-9]+)*")


def bad_usage(msg, hint):
    print(f"error: {msg}\n  hint: {hint}", file=sys.stderr)
    sys.exit(4)


def describe(path):
    """(summary, packages) from the program's docstring: its first line and the pinned
    packages its Source names (whose code the program runs)."""
    text = open(path, encoding="utf-8").read()
    doc = re.match(r'\s*"""(.*?)"""', text, re.S)
    if not doc:
        bad_usage(f"{path} has no docstring", "each corpus file opens with a docstring naming its Source and Edits")
    body = doc.group(1)
    if "Source:" not in body or "Edits:" not in body:
        bad_usage(f"{path}'s docstring lacks 'Source:' or 'Edits:'", "name where the code comes from and every edit")
    source = body.split("Source:", 1)[1].split("Edits:", 1)[0]
    packages = sorted(set(m.group(0) for m in PACKAGE.finditer(source)))
    return body.strip().split("\n")[0].rstrip("."), packages


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout} s: {' '.join(cmd)}"


def verdicts(records_path):
    """{case: verdict} of a check's records.json (the program's cases on the CPU)."""
    with open(records_path, encoding="utf-8") as f:
        records = json.load(f)["records"]
    return {r["case"]: r["verdict"] for r in records}


def check_one(tandem, path, work):
    name = os.path.splitext(os.path.basename(path))[0]
    out = os.path.join(work, name)
    row = {"program": name, "imported": False, "refused": [], "passed": 0, "ran": 0, "failing": [], "error": ""}
    rc, log = run([tandem, "import", path, "--out", out], 600)
    if rc != 0:
        row["error"] = f"import exit {rc}: " + (log.strip().splitlines() or ["(no output)"])[-1]
        return row
    row["imported"] = True
    with open(os.path.join(out, "export.json"), encoding="utf-8") as f:
        row["refused"] = sorted(json.load(f).get("unsupported") or {})
    if row["refused"]:
        return row
    rc, log = run([tandem, "check", "--program", out, "-o", os.path.join(out, "check"), "-q"], 900)
    records = os.path.join(out, "check", "records.json")
    if not os.path.exists(records):
        row["error"] = f"check exit {rc}, no records: " + (log.strip().splitlines() or ["(no output)"])[-1]
        return row
    v = verdicts(records)
    ran = {c: x for c, x in v.items() if x != "skip"}
    row["ran"] = len(ran)
    row["passed"] = sum(1 for x in ran.values() if x == "pass")
    row["failing"] = sorted(c.split("/", 2)[2].rsplit("/", 1)[0] for c, x in ran.items() if x != "pass")
    if rc not in (0, 1):
        row["error"] = f"check exit {rc}"
    return row


def passes(row):
    return row["imported"] and not row["refused"] and not row["error"] and row["ran"] > 0 and not row["failing"]


def table(rows, meta):
    n, ok = len(rows), sum(1 for r in rows if passes(r))
    lines = [f"{ok} of {n} programs import and pass every case ({100.0 * ok / n:.0f} %).", "",
             "| program | what | code by | imported | cases passed | refused for / failing |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        summary, packages = meta[r["program"]]
        if r["error"]:
            status, why = "error", r["error"]
        elif r["refused"]:
            status, why = "refused", ", ".join(f"`{p}`" for p in r["refused"])
        else:
            status = "yes"
            why = ", ".join(f"`{c}`" + (f" (known: {KNOWN[(r['program'], c)]})" if (r["program"], c) in KNOWN else "")
                            for c in r["failing"])
        cases = f"{r['passed']} / {r['ran']}" if r["ran"] else "-"
        lines.append(f"| `{r['program']}` | {summary} | {', '.join(packages) or 'ours'} | {status} | {cases} | {why} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tandem")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--corpus", default=os.path.join(here, "..", "..", "examples", "corpus"))
    ap.add_argument("--work", help="where the imports go (default: a temporary directory)")
    ap.add_argument("--jobs", type=int, default=2)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--update", metavar="PAGE")
    mode.add_argument("--check", metavar="PAGE")
    a = ap.parse_args()
    if not os.access(a.tandem, os.X_OK):
        bad_usage(f"{a.tandem} is not an executable", "pass the tandem binary, e.g. build/tandem")
    doc_table.require(a.update or a.check, TABLE)
    try:
        import jax  # noqa: F401
    except ImportError as missing:
        print(f"skip: {missing} (for {sys.executable})\n  hint: ci/python_env.sh installs JAX", file=sys.stderr)
        sys.exit(77)
    if not os.path.isdir(a.corpus):
        bad_usage(f"{a.corpus} is not a directory", "pass --corpus DIR holding the programs")
    files = sorted(os.path.join(a.corpus, f) for f in os.listdir(a.corpus) if f.endswith(".py"))
    if not files:
        bad_usage(f"no .py programs in {a.corpus}", "pass --corpus DIR holding the programs")
    meta = {os.path.splitext(os.path.basename(f))[0]: describe(f) for f in files}
    work = a.work or tempfile.mkdtemp(prefix="tandem-corpus-")
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        rows = list(pool.map(lambda f: check_one(a.tandem, f, work), files))
    text = table(rows, meta)
    print(text, end="")
    with open(os.path.join(work, "corpus.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1)
    broken = [r["program"] for r in rows if r["imported"] and not r["refused"] and not passes(r)
              and not (r["failing"] and all((r["program"], c) in KNOWN for c in r["failing"]) and not r["error"])]
    for program, case in sorted(KNOWN):
        row = next((r for r in rows if r["program"] == program), None)
        if row is None or case not in row["failing"]:
            print(f"error: {program} {case} is listed as known to fail but does not: remove it from KNOWN",
                  file=sys.stderr)
            broken.append(program)
    broken += [r["program"] for r in rows if not r["imported"]]
    for name in broken:
        print(f"error: {name} uses only primitives tandem has but does not pass (work: {work}/{name})", file=sys.stderr)
    status = 1 if broken else 0
    if a.update:
        doc_table.update(a.update, TABLE, text)
    regenerate = f"tools/import/corpus_check.py {a.tandem} --update {a.check}"
    if a.check and doc_table.differs(a.check, TABLE, text, regenerate):
        status = 1
    sys.exit(status)


if __name__ == "__main__":
    main()
