# One writer per folder, never over an input: while a run holds its --out (the flock of harness/out_dir_lock.h, taken
# here as the run takes it), every writer of reports/ into that folder is refused (exit 4, the lock message, a hint) and
# the run's summary.md is left as it was; merge -o never reaches an input through a symlink; a merge or a history add
# that runs out of disk says so and leaves nothing marked complete or called corrupt.
import errno
import fcntl
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, rec, write

from reports import atomic, exit_codes

SUMMARY = b"# tandem summary\n\n1 passed, 0 failed, 0 skipped, 0 errors\n"


@pytest.fixture
def running(tmp_path):
    """A run folder whose flock is held, as `tandem run --out` holds it while it runs."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.md").write_bytes(SUMMARY)
    fd = os.open(run, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    yield run
    os.close(fd)


def writers(tmp_path, run):
    b, c = write(tmp_path / "b.json", [rec("a")]), write(tmp_path / "c.json", [rec("a")])
    return {
        "report": ("report", c, "-o", run),
        "gate --summary": ("gate", "--baseline", b, "--current", c, "--summary", run / "summary.md"),
        "history add": ("history", "add", c, "--db", run / "history.sqlite"),
        "history report": ("history", "report", "--db", tmp_path / "none.sqlite", "-o", run),
        "baseline refresh": ("baseline", "refresh", c, "--machine-kind", "run", "--root", tmp_path),
        "merge": ("merge", tmp_path / "part", "-o", run),
    }


@pytest.mark.parametrize("writer", ["report", "gate --summary", "history add", "history report", "baseline refresh",
                                    "merge"])
def test_every_writer_is_refused_while_a_run_holds_the_folder(cli, tmp_path, running, writer):
    (tmp_path / "part").mkdir()
    write(tmp_path / "part" / "records.json", [rec("a")])
    (tmp_path / "part" / "benchmark.json").write_text('{"benchmarks": []}')
    code, _, err = cli(*writers(tmp_path, running)[writer])
    assert code == exit_codes.BAD_INPUT, err
    assert f"another tandem run is writing to --out {running}" in err and "hint:" in err, err
    assert (running / "summary.md").read_bytes() == SUMMARY
    assert sorted(p.name for p in running.iterdir()) == ["summary.md"]


def test_writers_write_once_the_run_is_over(cli, tmp_path):
    run = tmp_path / "run"
    code, _, err = cli(*writers(tmp_path, run)["gate --summary"])
    assert code == exit_codes.PASS, err
    assert cli(*writers(tmp_path, run)["history add"])[0] == exit_codes.PASS


def part(folder, case, benchmarks=()):
    folder.mkdir()
    write(folder / "records.json", [rec(case)])
    (folder / "benchmark.json").write_text(json.dumps({"context": {}, "benchmarks": list(benchmarks)}))
    return folder


def test_merge_never_writes_over_an_input_through_a_symlink(cli, tmp_path):
    a = part(tmp_path / "a", "a")
    b = part(tmp_path / "b", "b")
    os.symlink(a / "records.json", b / "link.json")  # the input is a's records, named from b
    before = (a / "records.json").read_bytes()
    code, _, err = cli("merge", b / "link.json", "-o", a)
    assert code == exit_codes.BAD_INPUT and "never writes over" in err, err
    assert (a / "records.json").read_bytes() == before


def test_a_merge_that_runs_out_of_disk_is_not_marked_complete(cli, tmp_path, monkeypatch):
    parts = [part(tmp_path / n, n, [{"name": n, "family_index": 0}]) for n in ("a", "b")]
    write_bytes = atomic.write_bytes

    def full_disk(path, data):
        if Path(path).name == "summary.md":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        write_bytes(path, data)

    monkeypatch.setattr(atomic, "write_bytes", full_disk)
    code, _, err = cli("merge", *parts, "-o", tmp_path / "m")
    assert code == exit_codes.INFRASTRUCTURE_ERROR and "No space left" in err, err
    doc = json.loads((tmp_path / "m" / "records.json").read_text())
    assert doc["complete"] is False
    monkeypatch.setattr(atomic, "write_bytes", write_bytes)
    assert cli("merge", *parts, "-o", tmp_path / "m")[0] == exit_codes.PASS
    assert json.loads((tmp_path / "m" / "records.json").read_text())["complete"] is True


def no_room():
    """The child may write no byte: the writes fail (EFBIG) as on a full disk."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def test_history_add_to_a_new_database_without_room_cannot_write(tmp_path):
    records = write(tmp_path / "r.json", [rec("a")])
    r = subprocess.run([sys.executable, "-m", "reports", "history", "add", records, "--db", str(tmp_path / "h.sqlite")],
                       env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True, text=True, preexec_fn=no_room)
    assert r.returncode == exit_codes.INFRASTRUCTURE_ERROR, r.stderr
    assert "cannot write the history database" in r.stderr and "corrupt" not in r.stderr, r.stderr
