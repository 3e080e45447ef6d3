# A mutational fuzz driver for every Python entry point (merge, gate, gate config, history add, report, baseline), run
# in-process through reports/__main__.py's main() exactly as `tandem <command>` runs it: each input is a committed
# fixture mutated (a JSON node replaced by an odd value, dropped or duplicated; raw tokens the parser must refuse; bytes
# flipped) and handed to the command as its file. The contract: exit 0-4 or 6 with no traceback; a traceback ("internal
# error") or exit 5 is a finding, printed with its input and saved. No atheris needed.
#   python3 -m reports.fuzz_cli ENTRY...|all [--inputs N] [--seconds S] [--seed S] [--save DIR]   (docs/FUZZING.md)
import argparse
import contextlib
import io
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from reports import __main__ as cli

PARSER = cli.build_parser()
cli.build_parser = lambda: PARSER  # argparse builds the same parser per input: a third of the time
tandem = cli.main

FIXTURES = Path(__file__).resolve().parent / "tests" / "fixtures"
ODD = ["NaN", "-Infinity", "1e999", "-1e999", "1" + "0" * 30, "-0", "5e-324", '"\\ud800"', '""', '"nan"', "null",
       "true", "0", "-1", "0.0", "[]", "{}", '"x"', '[1, "a", null]', '{"a": 1, "a": 2}', "1.5", '"pass"', '"s"',
       "[" * 99 + "]" * 99, "[" * 101 + "]" * 101, "[" * 990 + "]" * 990, '{"benchmarks": 7}', '{"family_index": "0"}']
MARK = "\x01mark\x01"


def seeds():
    """The fixtures that are records files, cut to their first 2 records (the tools' cost per input)."""
    out = []
    for f in sorted(FIXTURES.glob("*.json")):
        try:
            doc = json.loads(f.read_text())
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("records"), list):
            out.append(dict(doc, complete=True, records=doc["records"][:2]))
    return out


def places(doc):
    found, todo = [], [doc]
    while todo:
        node = todo.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        found += [(node, k) for k in keys]
        todo += [node[k] for k in keys]
    return found


def mutate(doc, r):
    """The text of `doc` with 1-3 mutations: structural, then a byte edit one time in five."""
    doc = json.loads(json.dumps(doc))
    odd = []
    for _ in range(r.randint(1, 3)):
        spots = places(doc)
        if not spots:
            break
        (node, key), how = r.choice(spots), r.random()
        if how < 0.25:
            node.pop(key)
        elif how < 0.35 and isinstance(node, list):
            node.append(json.loads(json.dumps(node[key])))
        elif how < 0.45 and isinstance(node[key], (int, float)) and not isinstance(node[key], bool):
            node[key] = r.choice([0, -node[key], node[key] * 1e6, 2 ** 63, 0.5])
        else:
            node[r.choice(["extra", "value", "samples", "family_index", "complete"]) if how > 0.85 and
                 isinstance(node, dict) else key] = MARK
            odd.append(r.choice(ODD))
    text = json.dumps(doc, ensure_ascii=False)
    for o in odd:
        text = text.replace(json.dumps(MARK), o, 1)
    if r.random() < 0.2:
        b = bytearray(text.encode("utf-8", "surrogatepass"))
        for _ in range(r.randint(1, 4)):
            i = r.randrange(len(b) + 1)
            b[i:i + r.randint(0, 3)] = bytes(r.randrange(256) for _ in range(r.randint(0, 3)))
        return bytes(b)
    return text.encode("utf-8", "surrogatepass")


def gate_config(r):
    cfg = {"min_effect": r.choice([0.05, "5%", 0, -1, 2, None]), "alpha": r.choice([0.05, 0, 1, "x", None]),
           "suites": {"dot": {"min_effect": r.choice([0.1, "10%", [], None])}}}
    return mutate(cfg, r)


class Scratch:
    """The files each entry point is handed, rewritten per input (on tmpfs when there is one)."""

    def __init__(self):
        root = "/dev/shm" if os.path.isdir("/dev/shm") else None
        self.dir = Path(tempfile.mkdtemp(prefix="tandem-fuzzcli-", dir=root))
        self.base = self.dir / "base.json"
        self.base.write_text(json.dumps(seeds()[0]))

    def put(self, name, data):
        p = self.dir / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        return p


def entries(s):
    """ENTRY -> (what it mutates, argv builder from the mutated file's path)."""
    part = s.dir / "part"
    bench = json.dumps({"context": {}, "benchmarks": [{"name": "x", "family_index": 0}]}).encode()
    return {
        "merge": lambda data, r: (s.put("part/records.json", data), s.put("part/benchmark.json", bench)) and
        ["merge", str(part), "-o", str(s.dir / "merged")] if r.random() < 0.7 else
        (s.put("part/records.json", s.base.read_bytes()), s.put("part/benchmark.json", data)) and
        ["merge", str(part), "-o", str(s.dir / "merged")],
        "gate": lambda data, r: ["gate", "--baseline", str(s.base), "--current", str(s.put("cur.json", data))][::1]
        if r.random() < 0.5 else ["gate", "--baseline", str(s.put("cur.json", data)), "--current", str(s.base)],
        "gate_config": lambda data, r: ["gate", "--baseline", str(s.base), "--current", str(s.base), "--config",
                                        str(s.put("gate.json", data))],
        "history_add": lambda data, r: ["history", "add", str(s.put("h.json", data)), "--db", str(s.dir / "h.sqlite")],
        "report": lambda data, r: ["report", str(s.put("rep/records.json", data)), "-o", str(s.dir / "report")],
        "baseline": lambda data, r: ["baseline", "refresh", str(s.put("bl.json", data)), "--machine-kind", "k",
                                     "--root", str(s.dir / "baselines")],
    }


ENTRIES = ("merge", "gate", "gate_config", "history_add", "report", "baseline")


def no_png(fig, path):
    """The report's figures are built (our code) but not rasterised (matplotlib's): 10x the inputs."""
    import matplotlib.pyplot as plt

    plt.close(fig)


def one(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = tandem(argv)
        except SystemExit as e:  # argparse's --help; never a bad input
            code = e.code
    return code, err.getvalue()


def run(entry, n, seed, save, seconds=0):
    s, r = Scratch(), random.Random(f"{entry}/{seed}")
    if entry == "report":
        from reports import atomic

        atomic.save_figure = no_png
    docs, build = seeds(), entries(s)[entry]
    findings, codes = 0, {}
    t0, c0 = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF)
    try:
        for i in range(n):
            if seconds and time.monotonic() - t0 > seconds:
                n = i
                break
            data = gate_config(r) if entry == "gate_config" else mutate(r.choice(docs), r)
            code, err = one(build(data, r))
            codes[code] = codes.get(code, 0) + 1
            if "Traceback" in err or "internal error" in err or code not in (0, 1, 2, 3, 4, 6):
                findings += 1
                print(f"FINDING {entry} input {i} exit {code}:\n{err[-3000:]}", file=sys.stderr)
                if save:
                    Path(save).mkdir(parents=True, exist_ok=True)
                    (Path(save) / f"{entry}-{seed}-{i}.json").write_bytes(data)
    finally:
        shutil.rmtree(s.dir, ignore_errors=True)
    wall, c1 = time.monotonic() - t0, resource.getrusage(resource.RUSAGE_SELF)
    cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
    print(f"{entry}: {n} inputs, {findings} findings, exit codes {dict(sorted(codes.items()))}, {wall:.1f} s wall "
          f"({n / wall:.0f}/s), {cpu:.1f} s CPU, load {os.getloadavg()[0]:.1f}")
    return findings


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m reports.fuzz_cli")
    p.add_argument("entry", nargs="+", choices=["all", *ENTRIES])
    p.add_argument("--inputs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--save", help="write each finding's input here")
    p.add_argument("--seconds", type=float, default=0, help="stop an entry point after this long (0: after --inputs)")
    a = p.parse_args(argv)
    names = list(ENTRIES) if "all" in a.entry else a.entry
    found = sum(run(e, a.inputs, a.seed, a.save, a.seconds) for e in names)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
