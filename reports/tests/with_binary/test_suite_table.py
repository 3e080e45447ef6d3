# The suite names have one source, the suite table (suites/suites.def), which `tandem list
# --suites` prints; every other place that names the suites must agree with what it prints:
# the gate's per-suite settings, the plots, --suite's help, the registered cases, the faults'
# owners, CMake's suite folders.
import os
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def listed(tandem):
    r = tandem("list", "--suites")
    assert r.returncode == 0, r.stderr
    names = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    assert names and len(names) == len(set(names)), r.stdout
    return names


def test_the_gate_and_the_plots_read_the_table(tandem):
    from reports.plots import MODULES
    from reports.suite_table import suite_names
    names = listed(tandem)
    assert list(suite_names()) == names
    assert set(MODULES) <= set(names), set(MODULES) - set(names)
    assert "program" in names  # the cases of --program: gated and plotted like the others


def test_the_help_names_every_suite(tandem):
    help_text = tandem("run", "--help").stdout
    assert all(re.search(rf"only this suite: .*\b{name}\b", help_text) for name in listed(tandem)), help_text


def test_every_faults_owner_is_a_suite_of_the_table(tandem):
    owners = {line.split("\t")[1] for line in tandem("faults", "--list").stdout.splitlines() if line.strip()}
    assert owners and owners - {"perf", "crash"} <= set(listed(tandem)), owners - set(listed(tandem))


def test_every_registered_case_belongs_to_a_suite_of_the_table(tandem):
    names = set(listed(tandem))
    # TANDEM_SELFTEST=1 registers the selftest suite too.
    r = subprocess.run([os.environ["TANDEM_BIN"], "list", "--profile", "nightly"], capture_output=True, text=True,
                       env={**os.environ, "TANDEM_SELFTEST": "1"}, timeout=300)
    assert r.returncode == 0, r.stderr
    suites = {line.split("/")[0] for line in r.stdout.splitlines() if line.strip()}
    assert suites and suites <= names, suites - names


def test_cmake_adds_the_suite_folders_of_the_table():
    text = (ROOT / "suites/suites.def").read_text()
    folders = set(re.findall(r"^TANDEM_SUITE\(\w+, *(\w+),", text, re.M))
    with_cmake = {p.parent.name for p in (ROOT / "suites").glob("*/CMakeLists.txt")} - {"common"}
    assert with_cmake <= folders, f"suite folders CMake would not add: {with_cmake - folders}"
    cmake = (ROOT / "suites/CMakeLists.txt").read_text()
    assert "suites.def" in cmake and not re.search(r"foreach\(suite_dir [a-z_ ]+\)", cmake), "a hand list in CMake"


def test_a_known_suite_with_no_case_here_says_why(tandem):
    r = tandem("check", "--suite", "program", "--out", "/nonexistent/x")
    assert r.returncode == 4 and "suite 'program' has no case here" in r.stderr and "--program PATH" in r.stderr, r.stderr
    r = tandem("check", "--suite", "nosuch", "--out", "/nonexistent/x")
    assert r.returncode == 4 and "unknown suite 'nosuch'" in r.stderr and "tandem list --suites" in r.stderr, r.stderr
