# No output option writes over an input: `gate --summary` pointed at --current,
# --baseline (also through a symlink) or a --current-runs file, and `report -o` at a run's own
# folder, are bad input (4) with a hint, and every input is left byte for byte as it was.
import os

import pytest
from conftest import rec, write

from reports import exit_codes

S = [1.00, 1.01, 0.99, 1.02, 0.98]


def refused(code, err, *files_and_bytes):
    assert code == exit_codes.BAD_INPUT and "hint:" in err, err
    for path, data in files_and_bytes:
        assert open(path, "rb").read() == data, f"{path} was overwritten"


@pytest.mark.parametrize("target", ["current", "baseline", "link"])
def test_gate_summary_over_an_input_is_refused(cli, tmp_path, target):
    b, c = write(tmp_path / "b.json", [rec("a", S)]), write(tmp_path / "c.json", [rec("a", S)])
    os.symlink(c, tmp_path / "link.json")
    before = [(p, open(p, "rb").read()) for p in (b, c)]
    summary = {"current": c, "baseline": b, "link": tmp_path / "link.json"}[target]
    code, _, err = cli("gate", "--baseline", b, "--current", c, "--summary", summary)
    refused(code, err, *before)
    assert "--summary" in err and "never writes over" in err


def test_run_level_gate_summary_over_an_input_is_refused(cli, tmp_path):
    runs = [write(tmp_path / f"{n}.json", [rec("a", S)]) for n in ("b1", "b2", "c1")]
    before = [(p, open(p, "rb").read()) for p in runs]
    code, _, err = cli("gate", "--baseline-runs", *runs[:2], "--current-runs", runs[2], "--summary", runs[0])
    refused(code, err, *before)


def test_gate_summary_elsewhere_is_written(cli, tmp_path):
    b, c = write(tmp_path / "b.json", [rec("a", S)]), write(tmp_path / "c.json", [rec("a", S)])
    assert cli("gate", "--baseline", b, "--current", c, "--summary", tmp_path / "s.md")[0] == exit_codes.PASS
    assert (tmp_path / "s.md").read_text().startswith("#")


def test_report_into_the_runs_own_folder_is_refused(cli, tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    records = write(run / "records.json", [rec("a", S)])
    (run / "summary.md").write_text("the run's own summary\n")
    before = [(records, open(records, "rb").read()), (run / "summary.md", b"the run's own summary\n")]
    for out in (run, tmp_path / "." / "run"):
        code, _, err = cli("report", records, "-o", out)
        refused(code, err, *before)
        assert "-o RUNDIR/report" in err
    assert not (run / "index.html").exists()
    assert cli("report", records, "-o", run / "report")[0] == exit_codes.PASS
