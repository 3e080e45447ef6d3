#!/usr/bin/env python3
"""Every option of every subcommand through empty, negative, zero, huge, NaN and junk values:
each call ends 0 or 4 with a `hint:`, never 5, a signal, a timeout or a traceback. The options are the
CLI's own (TANDEM_OPTION_TABLE; the Python doors' from their argparse parser), so an option is walked
by being added; a table smaller than the sources' add_option/flag/argument count fails. A Python door's call is
walked in two halves: the binary with a stand-in Python that records the argv it was handed (it must be the call's
own), and the tool on that argv in a process forked from one that imported it (its startup, JAX and matplotlib
once, not per call). ARGS: TANDEM SRC"""
import argparse, concurrent.futures, json, multiprocessing, os, re, signal, subprocess, sys, tempfile, time, traceback

tandem, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
VALUES = {"empty": "", "negative": "-1", "zero": "0", "huge": "99999999999999999999", "nan": "nan", "junk": "x!@#"}
SEL = ["--suite", "dot", "--filter", "B:1/M:4/K:1/N:3/in:f32/alg:DEFAULT", "--backend", "cpu"]  # one case, < 1 s
RECORDS = "<records={fx}/run/records.json>"
# The cheapest valid call of each subcommand, so a value that parses reaches the command and runs.
# {d}: the call's own folder (its cwd); {fx}: the fixtures, read only; <name=default>: a positional.
BASE = {
    "list": SEL, "run": SEL + ["--quiet", "--repetitions", "1", "--warmup", "0", "--out", "{d}/o"],
    "check": SEL + ["--quiet", "--out", "{d}/o"], "bench": SEL + ["--", "<gbench_flags=--benchmark_min_time=0.01>"],
    "collectives": ["--minbytes", "1K", "--maxbytes", "1K", "--iters", "1", "--warmup_iters", "0", "--ops", "psum",
                    "--out", "{d}/o"],
    "lstm": ["--in", "{fx}/lstm", "--out", "{d}/o", "--quiet"],
    "dot": ["--in", "{fx}/dot", "--out", "{d}/o", "--quiet"],
    "faults": ["--list", "--fault", "^none$"],  # running the faults takes an hour: --list, else no fault matches
    "dump-programs": ["--suite", "remat", "--filter", "mlp/L:4/B:4/D:8/policy:nothing_saveable", "<dir={d}/o>"],
    "collectives-dump": ["--out", "{d}/o", "--ops", "psum"],
    "fuzz": ["--programs", "20", "--seconds", "30", "--out", "{d}/o"],
    "report": [RECORDS, "--output", "{d}/o"], "merge": ["<parts={fx}/run>", "--output", "{d}/o"],
    "gate": ["--current", "{fx}/run/records.json", "--baseline", "{fx}/run/records.json"],
    "history add": [RECORDS, "--db", "{d}/h.db"], "history report": ["--db", "{fx}/h.db", "--output", "{d}/o"],
    "baseline refresh": [RECORDS, "--root", "{d}/bl", "--machine-kind", "walk"],
    "baseline show": ["--root", "{fx}/bl", "--machine-kind", "walk"],
    "import": ["<spec={fx}/double.py>", "--out", "{d}/o"],
}
# An option CLI11 parses only beside another (needs()) is walked with it.
COMPANION = {"--lhs-contracting": ["--rhs-contracting", "0"], "--rhs-contracting": ["--lhs-contracting", "0"]}


def option_table():
    """(sub, option, takes a value, positional) of the C++ CLI, then of the Python doors it lists."""
    global DOORS, reports_main, export_jax_program
    env = dict(os.environ, TANDEM_OPTION_TABLE="1")
    rows = json.loads(subprocess.run([tandem], env=env, capture_output=True, text=True, check=True).stdout)
    DOORS = {r["sub"] for r in rows if r.get("python")}
    out = [(r["sub"], r["name"], r["takes_value"], r["positional"]) for r in rows if not r.get("python")]
    sys.path.insert(0, src)
    sys.path.insert(0, f"{src}/tools/import")
    from reports.__main__ import build_parser, main as reports_main
    import export_jax_program  # `tandem import`'s door (runners/cli/python_commands.cc)
    todo, py = [("", build_parser()), ("import", export_jax_program.build_parser())], []
    while todo:
        path, p = todo.pop()
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                todo += [((path + " " + k).strip(), sp) for k, sp in a.choices.items()]
            elif not isinstance(a, argparse._HelpAction):
                py.append((path, max(a.option_strings, key=len) if a.option_strings else a.dest, a.nargs != 0,
                           not a.option_strings))
    assert {r[0].split()[0] for r in py} == {r["sub"] for r in rows if r.get("python")}, "argparse vs the doors"
    return out + py


def source_floor():
    """Call sites that add an option: the table holds at least this many (never empty)."""
    files = [f"runners/cli/{f}" for f in os.listdir(f"{src}/runners/cli") if re.fullmatch(r".*(?<!_test)\.cc", f)]
    return sum(len(re.findall(r"add_(option|flag|argument)\(", open(f"{src}/{f}").read())) for f in files +
               ["reports/__main__.py", "tools/import/export_jax_program.py"])


def make_fixtures(fx):
    """Tiny valid inputs: a run's records, .npy for dot and lstm, a history, a baseline."""
    import numpy as np
    os.makedirs(f"{fx}/dot"), os.makedirs(f"{fx}/lstm")
    np.save(f"{fx}/dot/lhs.npy", np.ones((3, 3), np.float32)), np.save(f"{fx}/dot/rhs.npy", np.ones((3, 3), np.float32))
    np.save(f"{fx}/lstm/x.npy", np.ones((1, 2, 2), np.float32)), np.save(f"{fx}/lstm/w.npy", np.zeros(48, np.float32))
    json.dump({"hidden_size": 2}, open(f"{fx}/lstm/config.json", "w"))  # 48 = 4H(I+H) + 8H at I = H = 2
    with open(f"{fx}/double.py", "w") as f:  # the smallest function `tandem import` takes
        f.write("import numpy as np\ndef function(x):\n    return x * 2\ndef example_args():\n    return (np.ones(3, np.float32),)\n")
    for args in (["check", "-q", *SEL, "--out", "run"], ["history", "add", "run/records.json", "--db", "h.db"],
                 ["baseline", "refresh", "run/records.json", "--root", "bl", "--machine-kind", "walk"]):
        subprocess.run([tandem, *args], cwd=fx, check=True, capture_output=True)


def call(sub, name, takes_value, positional, value):
    """Walking `name` of `sub` with `value`, in place of the base's; a flag: --flag=value, bare for None."""
    args, skip = [], False
    for a in BASE[sub]:
        if skip or a == name:
            skip = not skip and takes_value and a == name
            continue
        m = re.fullmatch(r"<(.+?)=(.*)>", a)
        args.append((value if m[1] == name else m[2]) if m else a)
    if positional:  # in the base, or an optional one it omits
        return sub.split() + args + ([] if any(a.startswith(f"<{name}=") for a in BASE[sub]) else [value])
    given = [name, value] if takes_value else [name] if value is None else [f"{name}={value}"]
    return sub.split() + args + COMPANION.get(name, []) + given


def forked(args, cwd):
    """(exit, stderr) of a door's tool on `args` in a child of this pool worker, which imported the tools."""
    import reports.gate, reports.gate_runs, reports.plots.style  # noqa: F401  (what they import late: matplotlib)
    err = tempfile.TemporaryFile(mode="w+")
    sys.stdout.flush(), sys.stderr.flush()
    if (pid := os.fork()) == 0:
        signal.alarm(60)  # a hung call ends by SIGALRM: a signal, never an exit 0 or 4
        os.chdir(cwd), os.dup2(os.open(os.devnull, os.O_RDWR), 1), os.dup2(err.fileno(), 2)
        try:  # as `python3 -m reports SUB...` and export_jax_program.py's own __main__ run them
            _ = args[0] == "import" and export_jax_program.refuse_bad_usage(args[1:])  # exits 4 before JAX's work
            code = export_jax_program.main(args[1:]) if args[0] == "import" else reports_main(args)
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else print(e.code, file=sys.stderr) or e.code is not None
        except BaseException:
            code = traceback.print_exc() or 1
        sys.stdout.flush(), sys.stderr.flush()
        os._exit(code or 0)
    status = os.waitpid(pid, 0)[1]
    err.seek(0)
    return os.waitstatus_to_exitcode(status), err.read()


def door(d, args):
    """The binary on a door's call with the stand-in Python: "" when it handed its tool the call's argv."""
    p = subprocess.run([tandem, *args], cwd=d, env=dict(os.environ, TANDEM_PYTHON=f"{d}/../argv_py"),
                       capture_output=True, text=True, timeout=60)
    got = open(f"{d}/argv").read().split("\0")[:-1] if os.path.exists(f"{d}/argv") else None
    want = [f"{src}/tools/import/export_jax_program.py"] if args[0] == "import" else ["-P", "-m", "reports", args[0]]
    ok = p.returncode == 0 and got == want + args[1:]
    return "" if ok else f"{args}: the door handed its tool {got} (exit {p.returncode}: {p.stderr[-300:]})"


def real(args, d):
    """(exit, stderr) of the binary itself on `args`, "timeout" past 60 s."""
    p = subprocess.Popen([tandem, *args], cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)  # a hung call's children (mpirun, Python) go with it
    try:
        err = p.communicate(timeout=60)[1]
        return p.returncode, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9), p.communicate()
        return "timeout", "timed out after 60 s"


def walk(fx, case, pool):
    """A door's call: the door's argv, the tool forked, and with an empty value the whole real call too,
    which must end as the forked one did (the door's environment, the project's Python)."""
    d = tempfile.mkdtemp(dir=os.path.dirname(fx))
    args = [a.replace("{d}", d).replace("{fx}", fx) for a in call(*case[:4], VALUES.get(case[4]))]
    if args[0] in DOORS and (wrong := door(d, args)):
        return case, "door", wrong
    code, err = pool.apply(forked, (args, d)) if args[0] in DOORS else real(args, d)
    code = "timeout" if code == -signal.SIGALRM else code
    if args[0] in DOORS and case[4] == "empty" and (whole := real(args, d))[0] != code:
        return case, code, f"{args}: exit {code} forked, {whole} through the binary"
    unbuilt = code == 5 and "this tandem was built without" in err  # the sweeps of a build without MPI
    bad = code not in (0, 4) and not unbuilt or "Traceback" in err or (code == 4 and "hint:" not in err)
    return case, code, f"{args}: exit {code}: {err[-600:]}" if bad else ""


def main():
    start, rows, floor = time.time(), option_table(), source_floor()
    fail = [f"the option table has {len(rows)} options, the sources add {floor}"] if len(rows) < floor else []
    with tempfile.TemporaryDirectory() as tmp:
        make_fixtures(f"{tmp}/fx")
        open(f"{tmp}/argv_py", "w").write("#!/bin/sh\nprintf '%s\\0' \"$@\" > argv\n")  # a stand-in Python
        os.chmod(f"{tmp}/argv_py", 0o755)
        cases = [(*r, v) for r in rows for v in (VALUES if r[2] or r[3] else [*VALUES, None])]  # None: a bare flag
        with multiprocessing.get_context("fork").Pool(4) as tools, concurrent.futures.ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda c: walk(f"{tmp}/fx", c, tools), cases))
    per = {}  # (sub, option) -> exit -> value classes: what each option accepts (0) and refuses (4)
    for (sub, name, *_, v), code, why in results:
        per.setdefault((sub, name), {}).setdefault(str(code), []).append(v or "bare")
        fail += [why] if why else []
    for (sub, name), codes in per.items():
        print(f"tandem {sub} {name}: " + "  ".join(f"{c}: {','.join(vs)}" for c, vs in sorted(codes.items())))
    fail += [f"not walked: {r[:2]}" for r in rows if r[:2] not in per]
    print(f"{len(rows)} options (floor {floor}), {len(results)} calls, {time.time() - start:.0f} s")
    print("\n".join("FAIL: " + f for f in fail) or "PASS")
    return 1 if fail else 0


sys.exit(main())
