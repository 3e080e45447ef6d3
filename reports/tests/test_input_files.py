# Unbounded input on the Python side: a records file, --current/--baseline or a gate config that is
# a FIFO, /dev/zero, a directory or a dangling symlink is bad input (exit 4 with a hint), never a
# hang or a process that grows until the kernel kills it. Run as processes, bounded by a timeout
# and an address-space limit, so the old behaviour fails the test instead of stalling it.
import os
import resource
import subprocess
import sys

import pytest
from conftest import FIXTURES, ROOT

from reports import exit_codes, input_file
from reports.exit_codes import BadInput


def run(*args):
    def limit_memory():  # /dev/zero read whole would need all of it: MemoryError (exit 5) instead
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "reports", *map(str, args)], env=env, capture_output=True,
                          text=True, timeout=60, preexec_fn=limit_memory)


def spoiled(tmp_path, kind):
    p = tmp_path / f"{kind}.json"
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "dangling":
        p.symlink_to(tmp_path / "gone.json")
    elif kind == "directory":
        p.mkdir()
    elif kind == "dev_zero":
        p.symlink_to("/dev/zero")
    return p, {"fifo": "a FIFO, not a regular file", "dangling": "a dangling symlink",
               "directory": "a directory, not a regular file", "dev_zero": "a device or socket, not a regular file"}[kind]


@pytest.mark.parametrize("kind", ["fifo", "dangling", "directory", "dev_zero"])
@pytest.mark.parametrize("command", ["report", "gate_current", "gate_baseline", "gate_config", "history", "baseline"])
def test_not_a_regular_file_is_bad_input(tmp_path, kind, command):
    bad, phrase = spoiled(tmp_path, kind)
    good = FIXTURES / "dot_small.json"
    args = {"report": ["report", bad, "-o", tmp_path / "r"],
            "gate_current": ["gate", "--baseline", good, "--current", bad],
            "gate_baseline": ["gate", "--baseline", bad, "--current", good],
            "gate_config": ["gate", "--baseline", good, "--current", good, "--config", bad],
            "history": ["history", "add", bad, "--db", tmp_path / "h.sqlite"],
            "baseline": ["baseline", "show", bad]}[command]
    p = run(*args)
    assert p.returncode == exit_codes.BAD_INPUT, p.stderr
    assert phrase in p.stderr and "hint:" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_read_is_bounded(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(" " * 1001)
    with pytest.raises(BadInput, match="larger than 1000 bytes"):
        input_file.read_text(big, "records file", "", limit=1000)
    assert input_file.read_text(big, "records file", "", limit=1001) == " " * 1001
    link = tmp_path / "link.json"
    link.symlink_to(big)  # a symlink to a regular file is an ordinary input
    assert len(input_file.read_text(link, "records file", "")) == 1001
