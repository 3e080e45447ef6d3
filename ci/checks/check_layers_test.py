"""The include-layer check (ci/checks/check_layers.py) passes on this tree and fails on a copy of it
with one bad include planted: an upward include (bridge to harness among them), a sibling
suite, a relative path, the product including the lab, a folder in no layer, a stale
exception, or a library linked up the layers. Run by ctest (ci/CMakeLists.txt)."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "ci" / "checks"))
import check_layers  # noqa: E402


@pytest.fixture
def tree(tmp_path):
    """A copy of the project's C++ sources (no build trees), to plant includes in."""
    copy = tmp_path / "tree"
    for src in check_layers.source_files(ROOT):
        dst = copy / src.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return copy


def plant(tree, rel, line):
    p = tree / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text((p.read_text() if p.exists() else "// planted\n") + line + "\n")
    return p


def run(root):
    return subprocess.run([sys.executable, str(ROOT / "ci" / "checks" / "check_layers.py"), str(root)],
                          capture_output=True, text=True)


def test_this_tree_passes():
    r = run(ROOT)
    assert r.returncode == 0, r.stderr


def test_the_copy_passes_before_planting(tree):
    assert check_layers.check(tree) == []


def test_upward_include_fails_naming_file_line_and_layers(tree):
    p = plant(tree, "engine/core/shape.h", '#include "engine/prims/lstm.h"')
    r = run(tree)
    assert r.returncode == 1
    line = len(p.read_text().splitlines())
    assert f"engine/core/shape.h:{line}: engine/core may not include engine/prims/lstm.h" in r.stderr


def test_the_product_may_not_include_the_lab(tree):
    # lab/ stands on the product (its benches include suites and engine: the copy passed); no
    # layer of the product lists lab, CI's scripts included.
    plant(tree, "runners/cli/main.cc", '#include "lab/bench/count_arg.h"')
    plant(tree, "ci/lsan_selfcheck.cc", '#include "lab/bench/program_profile.h"')
    problems = check_layers.check(tree)
    assert any("runners/cli/main.cc" in p and "runners may not include lab/bench/count_arg.h (lab)" in p
               for p in problems), problems
    assert any("ci/lsan_selfcheck.cc" in p and "ci may not include lab/bench/program_profile.h (lab)" in p
               for p in problems), problems


def test_relative_and_angle_includes_are_resolved(tree):
    plant(tree, "engine/cpu/vector_math.h", '#include "../prims/lstm.h"')
    plant(tree, "engine/comm/collectives.h", "#include <engine/passes/vjp.h>")
    problems = check_layers.check(tree)
    assert any("engine/cpu/vector_math.h" in p and "engine/prims/lstm.h" in p for p in problems)
    assert any("engine/comm/collectives.h" in p and "engine/passes/vjp.h" in p for p in problems)


def test_one_suite_may_not_include_another(tree):
    plant(tree, "suites/remat/remat_models.cc", '#include "suites/lstm/lstm_check.h"')
    assert any("suites/remat/remat_models.cc" in p for p in check_layers.check(tree))


def test_tests_are_checked_by_component(tree):
    plant(tree, "engine/cpu/dot_cpu_test.cc", '#include "engine/passes/vjp.h"')
    assert check_layers.check(tree) == []  # an engine test may use any engine layer
    plant(tree, "engine/cpu/dot_cpu_test.cc", '#include "harness/case.h"')
    assert any("dot_cpu_test.cc" in p and "harness/case.h" in p for p in check_layers.check(tree))


def test_bridge_may_not_include_harness_nor_harness_suites(tree):
    # The wall crossing stays below the case machinery: not even its tests reach up.
    plant(tree, "bridge/reference_bridge.cc", '#include "harness/case.h"')
    plant(tree, "bridge/prims_vs_reference_test.cc", '#include "harness/program_case.h"')
    plant(tree, "harness/records.cc", '#include "suites/register_suites.h"')
    problems = check_layers.check(tree)
    assert any(p.startswith("bridge/reference_bridge.cc:") and "bridge may not include harness/case.h" in p
               for p in problems)
    assert any(p.startswith("bridge/prims_vs_reference_test.cc:") for p in problems)
    assert any(p.startswith("harness/records.cc:") and "harness may not include suites/register_suites.h" in p
               for p in problems)


def test_the_harness_may_use_the_bridge(tree):
    plant(tree, "harness/records.cc", '#include "bridge/reference_bridge.h"')
    assert check_layers.check(tree) == []


def test_a_link_up_the_layers_fails(tree):
    # The same order in the link graph: the CMakeLists define who owns each library.
    for f in check_layers.project_files(ROOT, lambda p: p.name == "CMakeLists.txt"):
        dst = tree / f.relative_to(ROOT)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(f, dst)
    assert check_layers.check(tree) == []
    plant(tree, "bridge/CMakeLists.txt", "target_link_libraries(tandem_bridge PUBLIC tandem_harness)")
    plant(tree, "harness/CMakeLists.txt", "tandem_add_test(planted_test SOURCES records_test.cc LIBS tandem_suites)")
    problems = check_layers.check(tree)
    assert any(p.startswith("bridge/CMakeLists.txt: tandem_bridge (bridge) may not link tandem_harness (harness)")
               for p in problems), problems
    assert any(p.startswith("harness/CMakeLists.txt: planted_test (harness) may not link tandem_suites (suites)")
               for p in problems), problems


def test_reference_stays_independent(tree):
    plant(tree, "reference/reference.h", '#include "engine/core/tensor.h"')
    assert any(p.startswith("reference/reference.h:") for p in check_layers.check(tree))


def test_a_folder_in_no_layer_fails(tree):
    plant(tree, "engine/newdir/thing.cc", "int x;")
    assert any("engine/newdir/thing.cc: in no layer" in p for p in check_layers.check(tree))


def test_a_stale_exception_fails(tree):
    stale = check_layers.EXCEPTIONS + [("engine/cpu/dot_cpu.cc", "engine/prims/dot_general.h")]
    assert any(p.startswith("stale exception engine/cpu/dot_cpu.cc") for p in check_layers.check(tree, stale))


def test_without_its_exception_the_known_upward_include_fails(tree):
    problems = check_layers.check(tree, exceptions=[])
    if not check_layers.EXCEPTIONS:
        pytest.skip("no exceptions left")
    assert any("engine/passes/vjp.h" in p for p in problems)


def test_the_table_has_no_cycle(monkeypatch):
    assert check_layers.table_problems() == []
    monkeypatch.setitem(check_layers.LAYERS, "engine/core", ["engine/passes", "common"])
    assert any("cycle" in p for p in check_layers.table_problems())
