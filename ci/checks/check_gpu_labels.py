#!/usr/bin/env python3
"""Fails when a test of a CUDA, cuDNN, cuBLAS or NCCL path is outside ctest's `gpu` label, the
label ci/gpu_validate.sh runs on a GPU machine (a test outside it never runs there, however
many GPU windows pass: VmapCollectives.RankAxisOnNccl was such a test).

Two places a test can hide: a ctest test, or a gtest case of a batch (cmake/GTestBatches.cmake:
one ctest test runs an exact list of a binary's cases), whose name says Cuda / Cudnn / Cublas /
Nccl must carry the label; and a gtest case inside a
binary that ctest runs whole under an MPI launcher (no per-case ctest test) must be selected
by the --gtest_filter of a gpu-labelled test of that binary (tandem_add_test's GPU_FILTER
splits one binary's cases between the labels). Tests that need no device, or that
ci/gpu_validate.sh runs on the GPU another way, are listed in HOST_ONLY with the reason; an
entry that matches no test fails too, so the list cannot go stale (in a build without the
CUDA backend, --without-cuda, the entries only such a build lacks are not asked for).

Usage: check_gpu_labels.py BUILD_DIR [CTEST] [--without-cuda]   (exit 0: none outside; 1: the list)
"""
from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys

# The --gtest_list_tests reader of the gtest batches (cmake/gtest_batches.py), one for both.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cmake"))
from gtest_batches import parse_gtest_list  # noqa: E402

GPU_NAME = re.compile(r"cuda|cudnn|cublas|nccl", re.IGNORECASE)

# Entries whose tests exist only in a build with the CUDA backend (engine/cuda's host tests):
# a build without it holds no such test, so they are not stale there.
CUDA_BUILD_ONLY = {"CheckCuda.*", "CudaCoverage.*", "CublasModes.*", "CublasEnv.*"}

# (fnmatch pattern of a gtest or ctest name, why it needs no GPU)
HOST_ONLY: list[tuple[str, str]] = [
    ("CheckCuda.*", "the CHECK macros' messages for CUDA / cuBLAS / cuDNN error codes: the libraries, no device"),
    ("CudaCoverage.*", "inspects the primitive registry only"),
    ("CublasModes.*", "the preset -> cuBLAS compute type table: host data"),
    ("CublasEnv.*", "CUBLAS_WORKSPACE_CONFIG in the process environment: host only"),
    ("Tensor.NoCudaCopyWithoutBackend", "a build without CUDA"),
    ("SweepFormat.*", "the nccl-tests text layout of the sweep's rows"),
    ("collectives_nccl_tests_json", "nccl-tests' JSON file (-J) from an MPI sweep of host buffers: the format, no device"),
    ("All/LstmBadInput.ExitsFourWithHint/cuda_without_gpu*", "the CLI's answer on a machine without a GPU"),
    # ~1250 tests: ci/gpu_validate.sh's quick step runs these very cases on the GPU with records
    # (tandem run --profile quick --backend all); the gpu label would run them a second time.
    ("Quick/QuickCase.MatchesReference/*_cuda*", "run on the GPU by gpu_validate.sh's quick step"),
]

LAUNCHERS = ("mpiexec", "mpirun", "srun")
BATCH_RUNNER = "gtest_batch_run.py"  # cmake/GTestBatches.cmake: a ctest test running an exact list of cases


def gtest_filter_selects(flt: str | None, name: str) -> bool:
    """GoogleTest's --gtest_filter: 'POS:POS-NEG:NEG', * and ? wildcards; none selects all."""
    if flt is None:
        return True
    pos, _, neg = flt.partition("-")
    match = lambda pats: any(fnmatch.fnmatchcase(name, p) for p in pats.split(":") if p)
    return (not pos or match(pos)) and not (neg and match(neg))


def host_only(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p, _ in HOST_ONLY)


def violations(tests: list[dict], listed: dict[str, list[str]], cuda_built: bool = True) -> list[str]:
    """tests: {name, labels, binary (a launcher-run gtest binary or None), filter};
    listed: binary -> the gtest names it holds."""
    out = []
    for t in tests:
        if GPU_NAME.search(t["name"]) and not host_only(t["name"]) and "gpu" not in t["labels"]:
            out.append(f"ctest test {t['name']} (labels {t['labels']}) is not in the gpu label")
    for binary, names in listed.items():
        gpu_runs = [t for t in tests if t["binary"] == binary and "gpu" in t["labels"]]
        for n in names:
            if GPU_NAME.search(n) and not host_only(n) and not any(gtest_filter_selects(t["filter"], n) for t in gpu_runs):
                out.append(f"{n} in {os.path.basename(binary)} is run by no gpu-labelled test "
                           f"(add a ctest test running it with --gtest_filter under LABELS gpu)")
    every = [t["name"] for t in tests] + [n for names in listed.values() for n in names]
    for pattern, why in HOST_ONLY:
        if not cuda_built and pattern in CUDA_BUILD_ONLY:
            continue
        if not any(fnmatch.fnmatchcase(n, pattern) for n in every):
            out.append(f"HOST_ONLY entry {pattern} ({why}) matches no test: delete it")
    return out


def launched_binary(command: list[str]) -> tuple[int, str | None]:
    """(index, path) of the gtest binary a launcher runs, or (-1, None)."""
    if not command or not os.path.basename(command[0]).startswith(LAUNCHERS):
        return -1, None
    for i, arg in enumerate(command[1:], 1):
        if os.path.isabs(arg) and os.path.isfile(arg) and os.access(arg, os.X_OK):
            return i, arg
    return -1, None


def entries(t: dict) -> list[dict]:
    """One ctest test of `ctest --show-only=json-v1` as {name, labels, binary, filter}; a batch
    as one entry per case it runs, so a case's name is checked as a discovered test's was."""
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    cmd = t.get("command", [])
    flt = next((a.split("=", 1)[1] for a in cmd if a.startswith("--gtest_filter=")), None)
    labels = props.get("LABELS", [])
    if flt and any(os.path.basename(a) == BATCH_RUNNER for a in cmd):
        return [{"name": case, "labels": labels, "binary": None, "filter": None} for case in flt.split(":")]
    return [{"name": t["name"], "labels": labels, "binary": launched_binary(cmd)[1], "filter": flt}]


def collect(build: str, ctest: str) -> tuple[list[dict], dict[str, list[str]]]:
    shown = subprocess.run([ctest, "--show-only=json-v1"], cwd=build, capture_output=True, text=True, check=True)
    tests, listed = [], {}
    for t in json.loads(shown.stdout)["tests"]:
        cmd = t.get("command", [])
        i, binary = launched_binary(cmd)
        tests += entries(t)
        if binary and binary not in listed:
            one = list(cmd[:i + 1])
            for j, a in enumerate(one[:-1]):  # one rank is enough to list the cases
                if a in ("-n", "-np") and j + 1 < i:
                    one[j + 1] = "1"
            p = subprocess.run(one + ["--gtest_list_tests"], cwd=build, capture_output=True, text=True, timeout=120)
            if p.returncode != 0:
                raise RuntimeError(f"{' '.join(one)} --gtest_list_tests failed ({p.returncode}): {p.stderr[-2000:]}")
            listed[binary] = parse_gtest_list(p.stdout)
    return tests, listed


def main(argv: list[str]) -> int:
    cuda_built = "--without-cuda" not in argv
    # CMake's generator expression leaves an empty argument in a build with CUDA.
    argv = [a for a in argv if a and a != "--without-cuda"]
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    tests, listed = collect(argv[1], argv[2] if len(argv) == 3 else "ctest")
    bad = violations(tests, listed, cuda_built)
    for b in bad:
        print(b)
    n_gpu = sum("gpu" in t["labels"] for t in tests)
    print(f"{len(bad)} violation(s); {len(tests)} ctest tests ({n_gpu} in gpu), "
          f"{sum(map(len, listed.values()))} cases in {len(listed)} launcher-run binaries")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
