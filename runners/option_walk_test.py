#!/usr/bin/env python3
"""Issue 31: every option of every subcommand through empty, negative, zero, huge, NaN and junk
values; each call must end 0 or 4 (4 with a `hint:`), never 5, a signal, a timeout or a traceback.
The options come from the CLI itself (TANDEM_OPTION_TABLE, runners/cli/option_table.h; the
Python doors from reports/__main__.py's argparse parser), so a new option is walked by being
added, and a table smaller than the sources' count of add_option/add_argument fails the test.
usage: option_walk_test.py TANDEM_BINARY SOURCE_DIR"""
import argparse, concurrent.futures, json, os, re, shutil, subprocess, sys, tempfile, time

tandem, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
VALUES = {"empty": "", "negative": "-1", "zero": "0", "huge": "99999999999999999999", "nan": "nan", "junk": "x!@#"}
TINY = "B:1/M:4/K:1/N:3/in:f32/alg:DEFAULT"  # one dot case: each run, check and bench call takes < 1 s
SEL = ["--suite", "dot", "--filter", TINY, "--backend", "cpu"]
# The cheapest valid call of each subcommand, so a value that parses reaches the command's own
# checks and runs. {d}: the call's own folder (its cwd); {fx}: the fixtures, read only; <name>: a positional.
BASE = {
    "list": SEL, "run": SEL + ["--quiet", "--repetitions", "1", "--warmup", "0", "--out", "{d}/o"],
    "check": SEL + ["--quiet", "--out", "{d}/o"], "bench": SEL + ["--", "<gbench_flags>"],
    "collectives": ["--minbytes", "1K", "--maxbytes", "1K", "--iters", "1", "--warmup_iters", "0", "--ops", "psum",
                    "--out", "{d}/o"],
    "lstm": ["--in", "{fx}/lstm", "--out", "{d}/o", "--quiet"], "dot": ["--in", "{fx}/dot", "--out", "{d}/o", "--quiet"],
    # --list: running the faults takes an hour; a walk that drops it (--list=0) matches no fault.
    "faults": ["--list", "--fault", "^no-such-fault$"],
    "dump-programs": ["--suite", "remat", "--filter", "mlp/L:4/B:4/D:8/policy:nothing_saveable", "<dir>"],
    "collectives-dump": ["--out", "{d}/o", "--ops", "psum"],
    "report": ["<records>", "--output", "{d}/o"], "merge": ["<parts>", "--output", "{d}/o"],
    "gate": ["--current", "{fx}/run/records.json", "--baseline", "{fx}/run/records.json"],
    "history add": ["<records>", "--db", "{d}/h.db"], "history report": ["--db", "{fx}/h.db", "--output", "{d}/o"],
    "baseline refresh": ["<records>", "--root", "{d}/bl", "--machine-kind", "walk"],
    "baseline show": ["--root", "{fx}/bl", "--machine-kind", "walk"],
}
POSITIONAL = {"gbench_flags": "--benchmark_min_time=0.01", "dir": "{d}/o", "records": "{fx}/run/records.json",
              "parts": "{fx}/run"}
# An option that only parses beside another (CLI11 needs()): walked with it.
COMPANION = {("dot", "--lhs-contracting"): ["--rhs-contracting", "0"], ("dot", "--rhs-contracting"): ["--lhs-contracting", "0"]}


def cli_table():
    """(sub, option, takes_value, positional) of the C++ CLI, and the Python doors' names."""
    rows = json.loads(subprocess.run([tandem], env=dict(os.environ, TANDEM_OPTION_TABLE="1"), capture_output=True,
                                     text=True, check=True).stdout)
    doors = {r["sub"] for r in rows if r.get("python")}
    return [(r["sub"], r["name"], r["takes_value"], r["positional"]) for r in rows if not r.get("python")], doors


def python_table(doors):
    """The same rows for the Python doors, from the argparse parser `tandem report|gate|...` runs."""
    sys.path.insert(0, src)
    from reports.__main__ import build_parser
    rows, todo = [], [("", build_parser())]
    while todo:
        path, p = todo.pop()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                todo += [((path + " " + k).strip(), sp) for k, sp in a.choices.items()]
            elif not isinstance(a, argparse._HelpAction):
                name = max(a.option_strings, key=len) if a.option_strings else a.dest
                rows.append((path, name, a.nargs != 0, not a.option_strings))
    assert {r[0].split()[0] for r in rows} == doors, f"argparse commands {rows} differ from the CLI's doors {doors}"
    return rows


def source_floor():
    """Call sites that add an option: the table must hold at least this many (never empty)."""
    n = 0
    for f in os.listdir(f"{src}/runners/cli"):
        if f.endswith(".cc") and not f.endswith("_test.cc"):
            n += len(re.findall(r"add_(?:option|flag)\(", open(f"{src}/runners/cli/{f}").read()))
    return n + len(re.findall(r"add_argument\(", open(f"{src}/reports/__main__.py").read()))


def make_fixtures(fx):
    """Tiny valid inputs the calls read: a run's records, .npy for dot and lstm, a history, a baseline."""
    import numpy as np
    for d in ("dot", "lstm"):
        os.makedirs(f"{fx}/{d}")
    np.save(f"{fx}/dot/lhs.npy", np.ones((3, 3), np.float32)), np.save(f"{fx}/dot/rhs.npy", np.ones((3, 3), np.float32))
    np.save(f"{fx}/lstm/x.npy", np.ones((1, 2, 2), np.float32)), np.save(f"{fx}/lstm/w.npy", np.zeros(48, np.float32))
    json.dump({"hidden_size": 2}, open(f"{fx}/lstm/config.json", "w"))  # 48 = 4H(I+H) + 8H at I = H = 2
    for args in (["check", "-q", *SEL, "--out", "run"], ["history", "add", "run/records.json", "--db", "h.db"],
                 ["baseline", "refresh", "run/records.json", "--root", "bl", "--machine-kind", "walk"]):
        subprocess.run([tandem, *args], cwd=fx, check=True, capture_output=True)


def call(sub, name, takes_value, positional, value):
    """The argument list walking `name` of `sub` with `value` (a flag: --flag=value, or bare for None)."""
    args, skip = [], False
    for a in BASE[sub]:
        if skip or a == name:  # the walked option replaces its base value
            skip = not skip and takes_value and a == name
            continue
        m = re.fullmatch(r"<(.+)>", a)
        args.append((value if m[1] == name else POSITIONAL[m[1]]) if m else a)
    if positional and f"<{name}>" not in BASE[sub]:  # an optional positional the base leaves out
        args.append(value)
    elif not positional:
        flag = [name] if value is None else [f"{name}={value}"]
        args += COMPANION.get((sub, name), []) + ([name, value] if takes_value else flag)
    return sub.split() + args


def walk(fx, case):
    sub, name, takes_value, positional, vclass = case
    d = tempfile.mkdtemp(dir=os.path.dirname(fx))
    args = [a.replace("{d}", d).replace("{fx}", fx) for a in call(sub, name, takes_value, positional, VALUES.get(vclass))]
    try:
        p = subprocess.run([tandem, *args], cwd=d, capture_output=True, text=True, timeout=60)
        bad = p.returncode not in (0, 4) or "Traceback" in p.stderr or (p.returncode == 4 and "hint:" not in p.stderr)
        return case, p.returncode, (f"{args}: exit {p.returncode}: {p.stderr[-600:]}" if bad else "")
    except subprocess.TimeoutExpired:
        return case, "timeout", f"{args}: timed out after 60 s"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    start, (rows, doors) = time.time(), cli_table()
    rows += python_table(doors)
    floor, fail = source_floor(), []
    if len(rows) < floor:
        fail.append(f"the option table has {len(rows)} options, the sources add {floor}")
    with tempfile.TemporaryDirectory() as tmp:
        fx = f"{tmp}/fx"
        make_fixtures(fx)
        cases = [(*r, v) for r in rows for v in (VALUES if r[2] or r[3] else [*VALUES, None])]  # None: a bare flag
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda c: walk(fx, c), cases))
    fail += [why for _, _, why in results if why]
    per = {}
    for (sub, name, *_, v), code, _ in results:
        per.setdefault((sub, name), {}).setdefault(str(code), []).append(v or "bare")
    for (sub, name), codes in per.items():
        print(f"tandem {sub} {name}: " + "  ".join(f"{c}: {','.join(vs)}" for c, vs in sorted(codes.items())))
    if set(per) != {(r[0], r[1]) for r in rows}:
        fail.append("options in the table not walked")
    print(f"{len(rows)} options (floor {floor}), {len(results)} calls, {time.time() - start:.0f} s")
    print("\n".join("FAIL: " + f for f in fail) or "PASS")
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
