# What reports/fuzz_cli.py found, each once a traceback (exit 5, "internal error"): the inputs
# as it saved them, through every entry point; and the driver itself reports a planted traceback.
from pathlib import Path

import pytest
from conftest import FIXTURES

from reports import exit_codes, fuzz_cli

FOUND = sorted((FIXTURES / "fuzz_cli").glob("*.json"))


@pytest.mark.parametrize("found", FOUND, ids=[p.stem for p in FOUND])
@pytest.mark.parametrize("entry", ["report", "merge", "gate", "history_add", "baseline"])
def test_a_finding_is_no_traceback_in_any_entry_point(tmp_path, found, entry):
    s = fuzz_cli.Scratch()
    try:
        code, err = fuzz_cli.one(fuzz_cli.entries(s)[entry](found.read_bytes(), _Always(0.0)))
    finally:
        import shutil

        shutil.rmtree(s.dir, ignore_errors=True)
    assert code in (exit_codes.PASS, exit_codes.CORRECTNESS_FAILURE, exit_codes.BAD_INPUT, exit_codes.INCOMPLETE) and \
        "Traceback" not in err, err


class _Always:
    """A random.Random stand-in whose random() is fixed: the entry point's first form of argv."""

    def __init__(self, value):
        self.value = value

    def random(self):
        return self.value


def test_the_driver_counts_a_traceback_as_a_finding(monkeypatch, tmp_path):
    def broken(a):
        raise KeyError("planted")

    from reports import baseline

    monkeypatch.setattr(baseline, "refresh", broken)
    monkeypatch.setattr(fuzz_cli.PARSER._subparsers._group_actions[0].choices["baseline"]._subparsers
                        ._group_actions[0].choices["refresh"], "_defaults", {"func": broken})
    assert fuzz_cli.run("baseline", 5, 1, str(tmp_path)) == 5
    assert len(list(Path(tmp_path).iterdir())) == 5
