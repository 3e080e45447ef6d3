# Case workers run OpenMP with OMP_WAIT_POLICY=PASSIVE unless the user set it (runners/cli/case_workers.cc): a spinning
# barrier thread bills the process CPU time while its partner waits for a core, and the single-run gate judges CPU-time
# ratios (docs/CI.md). The record's context says which policy the case ran under. Before the change a worker inherited
# the environment as it was and the context had no such field: this test failed.
import json
import os
import subprocess

SELECT = ("run", "-q", "--suite", "dot", "--profile", "quick", "--backend", "cpu", "--filter", "^dot/B:1/M:17/K:33/N:9/in:f64/alg:DEFAULT$",
          "-n", "1", "-w", "0")


def policy(tmp_path, name, env_policy=None, *extra):
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if env_policy:
        env["OMP_WAIT_POLICY"] = env_policy
    out = tmp_path / name
    p = subprocess.run([os.environ["TANDEM_BIN"], *SELECT, *extra, "--out", str(out)], env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    recs = json.loads((out / "records.json").read_text())["records"]
    assert recs, "the selection ran no case"
    return {r["context"]["omp_wait_policy"] for r in recs}


def test_workers_wait_passively_unless_the_user_chose(tandem, tmp_path):
    assert policy(tmp_path, "workers") == {"PASSIVE"}
    assert policy(tmp_path, "user", "ACTIVE") == {"ACTIVE"}  # the user's choice stands
    assert policy(tmp_path, "in-process", None, "--in-process") == {"default"}  # no worker: the environment as it is
