"""Tests of check_gpu_labels.py on made-up test lists: it fails on a GPU test outside the gpu
label (a discovered ctest test, and a case inside a launcher-run binary that no gpu-labelled
filter selects — VmapCollectives.RankAxisOnNccl's case), passes once it is in, and fails on a
stale HOST_ONLY entry."""
import importlib.util
import os

spec = importlib.util.spec_from_file_location(
    "check_gpu_labels", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check_gpu_labels.py"))
cgl = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cgl)

VMAP = "/b/suites/vmap/vmap_mpi_test"
# One test per HOST_ONLY entry, so no entry is stale in these lists.
HOST = [{"name": n, "labels": ["unit"], "binary": None, "filter": None}
        for n in ("CheckCuda.SuccessDoesNotThrow", "CudaCoverage.RegistryIsNotEmpty", "CublasModes.X", "CublasEnv.Y",
                  "Tensor.NoCudaCopyWithoutBackend", "SweepFormat.RowHasNcclTestsColumns",
                  "All/LstmBadInput.ExitsFourWithHint/cuda_without_gpu", "Quick/QuickCase.MatchesReference/dot_1_cuda",
                  "collectives_nccl_tests_json")]
VMAP_CASES = ["VmapCollectives.RankAxisBatchAxisAndBoth", "VmapCollectives.RankAxisOnNccl"]


def mpi_run(np, labels, flt=None):
    return {"name": f"vmap_{'nccl' if flt else 'mpi'}_np{np}", "labels": labels, "binary": VMAP, "filter": flt}


def test_a_nccl_case_run_only_under_the_mpi_label_fails():
    tests = HOST + [mpi_run(n, ["mpi"]) for n in (1, 2, 3, 4)]
    bad = cgl.violations(tests, {VMAP: VMAP_CASES})
    assert len(bad) == 1 and bad[0].startswith("VmapCollectives.RankAxisOnNccl in vmap_mpi_test")


def test_a_gpu_labelled_filter_run_fixes_it():
    tests = HOST + [mpi_run(n, ["mpi"]) for n in (1, 2)] + [mpi_run(1, ["gpu", "mpi"], "*Nccl*")]
    assert cgl.violations(tests, {VMAP: VMAP_CASES}) == []


def test_a_filter_that_excludes_the_case_does_not_count():
    tests = HOST + [mpi_run(1, ["gpu", "mpi"], "*Nccl*-*RankAxis*")]
    assert len(cgl.violations(tests, {VMAP: VMAP_CASES})) == 1


def test_a_discovered_cuda_test_without_the_label_fails():
    tests = HOST + [{"name": "DotCuda.CastsInputsAndOutputs", "labels": ["unit"], "binary": None, "filter": None},
                    {"name": "LstmCudnn.PaddedStepsAreZeroOverNanMemory", "labels": ["gpu"], "binary": None,
                     "filter": None}]
    bad = cgl.violations(tests, {})
    assert bad == ["ctest test DotCuda.CastsInputsAndOutputs (labels ['unit']) is not in the gpu label"]


def test_a_stale_host_only_entry_fails():
    bad = cgl.violations(HOST[1:], {})
    assert len(bad) == 1 and "CheckCuda.*" in bad[0] and "matches no test" in bad[0]


def test_a_build_without_cuda_does_not_ask_for_the_cuda_backends_host_tests():
    without = [t for t in HOST if not any(cgl.fnmatch.fnmatchcase(t["name"], p) for p in cgl.CUDA_BUILD_ONLY)]
    assert len(without) == len(HOST) - 4
    assert cgl.violations(without, {}, cuda_built=False) == []
    assert len(cgl.violations(without, {})) == 4  # with the backend built, those four are stale
    bad = cgl.violations([t for t in without if t["name"] != "SweepFormat.RowHasNcclTestsColumns"], {}, cuda_built=False)
    assert len(bad) == 1 and "SweepFormat.*" in bad[0]  # every other entry is still asked for


def test_gtest_filter_and_list_parsing():
    assert cgl.gtest_filter_selects("*Nccl*", "A.OnNccl")
    assert not cgl.gtest_filter_selects("*Nccl*-A.*", "A.OnNccl")
    assert cgl.gtest_filter_selects("-B.*", "A.OnNccl")
    assert cgl.gtest_filter_selects(None, "A.OnNccl")
    listing = "Running main() from x\nVmapCollectives.\n  RankAxisOnNccl\nP/CollectiveCase.\n  NcclX/0  # GetParam() = 1\n"
    assert cgl.parse_gtest_list(listing) == ["VmapCollectives.RankAxisOnNccl", "P/CollectiveCase.NcclX/0"]


def test_a_cuda_case_inside_a_unit_batch_fails_by_its_own_name():
    batch = {"name": "engine_core_test:Foo.*", "properties": [{"name": "LABELS", "value": ["unit"]}],
             "command": ["/venv/python3", "-S", "/src/cmake/gtest_batch_run.py", "/b/engine_core_test",
                         "--gtest_filter=Foo.OnHost:Foo.CopiesThroughCuda"]}
    tests = HOST + cgl.entries(batch)
    assert [t["name"] for t in tests[len(HOST):]] == ["Foo.OnHost", "Foo.CopiesThroughCuda"]
    assert cgl.violations(tests, {}) == ["ctest test Foo.CopiesThroughCuda (labels ['unit']) is not in the gpu label"]
