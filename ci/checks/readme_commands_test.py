#!/usr/bin/env python3
"""Every command in the ```sh blocks of README.md and docs/CLI.md (the README's block goes on
there) runs as written and exits 0 (a gate, and the README's A/B gate script: a verdict).

    ci/checks/readme_commands_test.py BUILD_DIR SOURCE_DIR     (ctest readme_commands)

The commands run in order, in a scratch folder that has `build/` (the build under test) and
the source tree's `runners/`, `ci/`, `reports/`, `tools/` and `examples/` linked in, so what they write
(results/, bench.json, out/) lands there. Lines that only the whole CI job can run are listed
in NOT_RUN with the reason; a line that is neither run nor listed fails the test, so a new
README command is either runnable or explained. The `tandem lstm` line reads the user's
own `.npy` files: the test writes a small `mydata/` first (docs/LSTM_DATA.md's layout);
the `tandem dot` line likewise reads a `mydot/` with lhs.npy and rhs.npy.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Whole CI jobs: they apt-get install, build and (ci/test.sh) run this very ctest.
NOT_RUN = {"ci/quickstart.sh": "installs, builds and runs every suite: the CI job itself",
           "ci/test.sh": "installs, builds and runs every ctest, this one included",
           "ci/install_deps.sh": "apt-get installs packages: run by both CI jobs",
           "ci/build.sh": "builds the tree under test: run by both CI jobs"}
# The pages whose ```sh blocks run, in order, in one scratch folder (docs/CLI.md's commands read
# what the README's wrote: results/nightly).
PAGES = ("README.md", "docs/CLI.md")
RUNNABLE = re.compile(r"^(build/tandem|runners/launch/|reports/|tools/|ci/gate_ab\.sh$)")
LINKED = ("runners", "ci", "reports", "tools", "examples")
# A gate of two runs gives a verdict on a shared host's timings: a measurement (its A/A rate is in docs/CI.md, its logic
# under reports/tests), not the command failing. It must still give a verdict: 0 pass, 2 regression, 3 inconclusive; bad
# input (4), an infrastructure error (5), an incomplete run (6) or a failed case (1) fail the test.
VERDICT_EXITS = {"build/tandem gate": (0, 2, 3), "ci/gate_ab.sh": (0, 2, 3)}
TIMEOUT_S = 600


def sh_commands(readme):
    """The command lines of the ```sh blocks, comments stripped, in order."""
    out, block = [], None
    for line in readme.splitlines():
        if line.startswith("```"):
            block = line[3:].strip() if block is None else None
            continue
        if block == "sh" and line.strip():
            words = shlex.split(line, comments=True)
            if words:
                out.append(shlex.join(words))
    return out


def write_lstm_data(folder, hidden=256):
    """x, w and seq_lengths for one layer, one direction (docs/LSTM_DATA.md)."""
    import numpy as np

    rng = np.random.default_rng(0)
    b, t, i = 3, 5, 8
    folder.mkdir()
    np.save(folder / "x.npy", rng.standard_normal((b, t, i), dtype=np.float32))
    n = 4 * hidden * i + 4 * hidden * hidden + 8 * hidden
    np.save(folder / "w.npy", rng.uniform(-hidden**-0.5, hidden**-0.5, n).astype(np.float32))
    np.save(folder / "seq_lengths.npy", np.array([5, 2, 4], dtype=np.int32))


def write_dot_data(folder):
    """lhs [4, 64] and rhs [64, 3] in float32 (docs/DOT_ALGORITHMS.md, "Your own data")."""
    import numpy as np

    rng = np.random.default_rng(0)
    folder.mkdir()
    np.save(folder / "lhs.npy", rng.uniform(-1, 1, (4, 64)).astype(np.float32))
    np.save(folder / "rhs.npy", rng.uniform(-1, 1, (64, 3)).astype(np.float32))


def main(build, source):
    cmds = []
    for page in PAGES:
        page_cmds = sh_commands((Path(source) / page).read_text())
        assert page_cmds, f"{page} has no ```sh block"
        cmds += page_cmds
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "build").symlink_to(Path(build).resolve())
        for name in LINKED:
            (work / name).symlink_to(Path(source).resolve() / name)
        # TANDEM: mpirun.sh would otherwise find build/tandem beside the *source* tree (the linked runners/ resolves
        # physically), not the build under test (build-asan, ...). GATE_AB_*: the README's A/B gate on the two dot
        # presets its run timed, 3 processes a side (the fewest that decide), not the default set of ci/gate_ab.sh (≈ 30
        # s idle, minutes under load; ctest gate_ab runs that one).
        env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1",
                   TANDEM=str(Path(build).resolve() / "tandem"), GATE_AB_RUNS="3",
                   GATE_AB_FILTER="dot/perf/N:512/alg:(F32_F32_F32|BF16_BF16_F32_X3)$")
        for cmd in cmds:
            first = shlex.split(cmd)[0]
            if first in NOT_RUN:
                print(f"not run: {cmd}  ({NOT_RUN[first]})")
                continue
            if not RUNNABLE.match(first):
                failed.append(f"{cmd}: neither run by this test nor listed in NOT_RUN")
                continue
            if first == "runners/launch/mpirun.sh" and not shutil.which("mpirun"):
                print(f"skipped: {cmd}  (no mpirun on PATH: a build without MPI has no collectives sweep)")
                continue
            if " lstm " in f" {cmd} " and "--in mydata" in cmd and not (work / "mydata").exists():
                write_lstm_data(work / "mydata")
            if " dot " in f" {cmd} " and "--in mydot" in cmd and not (work / "mydot").exists():
                write_dot_data(work / "mydot")
            t0 = time.monotonic()
            p = subprocess.run(cmd, shell=True, cwd=work, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
            print(f"rc {p.returncode}  {time.monotonic() - t0:6.1f} s  {cmd}")
            ok = next((codes for prefix, codes in VERDICT_EXITS.items() if cmd.startswith(prefix)), (0,))
            if p.returncode not in ok:
                failed.append(f"{cmd}: exit {p.returncode}\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
    for f in failed:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
