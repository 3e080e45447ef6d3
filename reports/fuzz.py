# Coverage-guided fuzz targets (atheris, libFuzzer in-process) for the Python tools' entry
# points: a records file, a gate config, a history database (issue 31). Each input goes through
# what the CLI does with that file; BadInput (exit 4) is the contract, any other exception is
# a finding: atheris prints its traceback, saves the input (-artifact_prefix) and exits non-zero.
#   python3 -m reports.fuzz records|gate_config|history [libFuzzer flags] CORPUS_DIR...
# ci/sanitize.sh runs each for FUZZ_RUNS inputs from runners/fuzz/corpus/py_<target>.
import os
import sys
import tempfile

NO_ATHERIS = 78  # not 77, libFuzzer's crash code; ctest skips on it, ci/sanitize.sh counts 0 inputs (exit 3)

try:
    import atheris
except ImportError:
    atheris = None

if atheris:
    with atheris.instrument_imports():  # coverage of reports/ guides the mutations
        from reports import gate, gate_config, gate_summary, history_db, history_report, merge, records, report
from reports import fuzz_json
from reports.exit_codes import BadInput

# JSON tokens (NaN, 1e999, lone surrogates, deep nesting, the schema's keys): byte mutations
# alone rarely make valid JSON with an odd value in it.
DICT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runners", "fuzz", "json.dict")
SCRATCH = tempfile.mkdtemp(prefix="tandem-pyfuzz-")  # one file rewritten per input: no process per input


def as_file(data, name):
    """The input as the file the CLI would be handed (the readers take paths, and check them)."""
    path = os.path.join(SCRATCH, name)
    for stale in (path, path + "-journal", path + "-wal", path + "-shm"):
        if os.path.exists(stale):
            os.unlink(stale)
    with open(path, "wb") as f:
        f.write(data)
    return path


def records_target(data):
    """What gate, history add, report and merge do with records, short of plots and files."""
    path = as_file(data, "records.json")
    recs = records.load(path)
    cfg = gate_config.Config()
    o = gate.run(recs, recs, cfg, incomplete=None)
    gate_summary.summary(o, cfg, path, path, len(recs), len(recs)).encode("utf-8")
    for _, _, rs in history_db.runs_in(recs):
        [history_db.metric_rows(r) for r in rs]
    report.context_lines(recs), report.correctness_section(recs), merge.rank_lines(recs)
    [merge.summary_row(r) for r in recs]


def gate_config_target(data):
    gate_config.load_config(as_file(data, "gate.json"))


def history_target(data):
    """`tandem history report` up to the plots (matplotlib would be 100x slower than the rest)."""
    path = as_file(data, "history.sqlite")
    conn = history_db.connect(path, create=False)
    try:
        runs, series = history_report.load(conn, path)
    finally:
        conn.close()
    cps = history_report.analyze(runs, series, 0.01, 0.05, 3)
    history_report.boundaries(runs)
    history_report.open_regressions(runs, series, cps)


TARGETS = {"records": records_target, "gate_config": gate_config_target, "history": history_target}


def one_input(target, data):
    try:
        target(data)
    except BadInput:
        pass


def main(argv):
    if len(argv) < 2 or argv[1] not in TARGETS:
        print(f"usage: python3 -m reports.fuzz {'|'.join(TARGETS)} [libFuzzer flags] CORPUS...", file=sys.stderr)
        return 4
    if atheris is None:
        print(f"fuzz: 0 inputs: atheris is not installed in {sys.executable} (ci/requirements.txt)", file=sys.stderr)
        return NO_ATHERIS
    target, flags = TARGETS[argv[1]], argv[2:]
    if target is not history_target and not any(f.startswith("-dict=") for f in flags):
        flags.insert(0, f"-dict={os.path.normpath(DICT)}")
    mutator = None if target is history_target else \
        (lambda data, max_size, seed: fuzz_json.mutate(data, max_size, seed, atheris.Mutate))
    atheris.Setup([argv[0]] + flags, lambda data: one_input(target, data), custom_mutator=mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
