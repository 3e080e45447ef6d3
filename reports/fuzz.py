# Coverage-guided fuzz targets (atheris: libFuzzer in-process) for the Python tools' entry points, a records file, a
# gate config, a history database: each input goes where the CLI sends that file. BadInput (exit 4) is the contract; any
# other exception is a finding, which atheris prints with its traceback, saves (-artifact_prefix) and exits 77 for.
#   python3 -m reports.fuzz records|gate_config|history [libFuzzer flags] CORPUS_DIR...
# ci/sanitize.sh runs each for FUZZ_RUNS inputs from runners/fuzz/corpus/py_<target>.
import glob
import json
import os
import random
import shutil
import sys
import tempfile

try:
    import atheris
except ImportError:
    atheris = None
if atheris:
    with atheris.instrument_imports():  # coverage of reports/ guides the mutations
        from reports import gate, gate_config, gate_summary, history_db, history_report, merge, records, report
from reports.exit_codes import BadInput

NO_ATHERIS = 78  # not 77, libFuzzer's crash code: ctest skips on it, ci/sanitize.sh counts 0 inputs (exit 3)
NEW_RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tests", "fixtures", "vmap.json")
MARK = "\x01fuzz\x01"  # where raw JSON text goes that json.dumps cannot write (1e999, 3,000-deep nests)


def scratch_dir():
    """tandem-pyfuzz-PID on tmpfs (history add's fsync is free there), where one file is rewritten
    per input. libFuzzer exits without Python's atexit, so each run removes those of dead processes."""
    root = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    for old in glob.glob(os.path.join(root, "tandem-pyfuzz-*")):
        if not os.path.exists(f"/proc/{old.rsplit('-', 1)[1]}"):
            shutil.rmtree(old, ignore_errors=True)
    os.makedirs(f"{root}/tandem-pyfuzz-{os.getpid()}", exist_ok=True)
    return f"{root}/tandem-pyfuzz-{os.getpid()}"


SCRATCH = scratch_dir()


def as_file(data, name):
    """The input as the file the CLI is handed: the readers take paths, and check them."""
    path = os.path.join(SCRATCH, name)
    for stale in (path + "-journal", path + "-wal", path):
        if os.path.exists(stale):
            os.unlink(stale)
    with open(path, "wb") as f:
        f.write(data)
    return path


def records_target(data):
    """What gate, history add, report and merge do with records, short of plots and files."""
    path, cfg = as_file(data, "records.json"), gate_config.Config()
    recs = records.load(path)
    o = gate.run(recs, recs, cfg)
    gate_summary.summary(o, cfg, path, path, len(recs), len(recs)).encode("utf-8")
    [history_db.metric_rows(r) for _, _, rs in history_db.runs_in(recs) for r in rs]
    report.context_lines(recs), report.correctness_section(recs), merge.rank_lines(recs)
    [merge.summary_row(r) for r in recs]


def history_target(data):
    """`tandem history report` short of the plots (matplotlib is 100x slower than the rest), then
    the nightly's `history add` into it."""
    path = as_file(data, "history.sqlite")
    conn = history_db.connect(path, create=False)
    try:
        runs, series = history_report.load(conn, path)
    finally:
        conn.close()
    history_report.boundaries(runs)
    history_report.open_regressions(runs, series, history_report.analyze(runs, series, 0.01, 0.05, 3))
    history_db.add(path, [NEW_RUN])


def odd_json(r, room):  # what broke, or could break, the tools; and each JSON type, wrong for most fields
    depth = r.choice([40, 400, 999, 3000])
    return r.choice(["[" * depth + "]" * depth if 2 * depth < room else "[]", "1" + "0" * r.randint(18, 400),
                     "-" + "9" * r.randint(19, 40), "1e999", "-1e999", "NaN", "Infinity", "-0", "5e-324",
                     '"\\ud800"', '"a\\udfff"', '""', '"nan"', "null", "true", "0", "-1", "[]", "{}", '"x"'])


def mutate_json(data, max_size, seed):
    """Half the time, when the input parses: one node replaced by odd_json, added, dropped or
    duplicated. libFuzzer's byte mutations mostly break the syntax, and never nest 1,000 deep."""
    r = random.Random(seed)
    try:
        doc = json.loads(data) if r.random() < 0.5 else None
    except (ValueError, RecursionError):
        doc = None
    places, todo = [], [doc]  # every (container, key) in doc
    while todo:
        node = todo.pop()
        keys = list(node) if isinstance(node, dict) else range(len(node)) if isinstance(node, list) else []
        places += [(node, k) for k in keys]
        todo += [node[k] for k in keys]
    if not places:
        return atheris.Mutate(data, max_size)
    (node, key), how = r.choice(places), r.random()
    if how < 0.2:
        node.pop(key)  # a key or element missing
    elif how < 0.3 and isinstance(node, list):
        node.append(node[key])  # a case twice
    else:  # an odd value, sometimes under a new or a known key
        node[r.choice(["extra", "value", "samples", "case", "suites"]) if how > 0.8 and isinstance(node, dict) else key] = MARK
    text = json.dumps(doc, ensure_ascii=False)
    out = text.replace(json.dumps(MARK), odd_json(r, max_size - len(text)), 1).encode("utf-8", "surrogatepass")
    return out if len(out) <= max_size else atheris.Mutate(data, max_size)


def main(argv):
    if atheris is None:
        print(f"fuzz: 0 inputs: atheris is not installed in {sys.executable} (ci/requirements.txt)", file=sys.stderr)
        return NO_ATHERIS
    target = {"records": records_target, "history": history_target,
              "gate_config": lambda data: gate_config.load_config(as_file(data, "gate.json"))}[argv[1]]

    def one_input(data):
        try:
            target(data)
        except BadInput:
            pass
    atheris.Setup(argv[:1] + argv[2:], one_input, custom_mutator=None if target is history_target else mutate_json)
    atheris.Fuzz()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
