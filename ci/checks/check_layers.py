#!/usr/bin/env python3
"""Fails when a C++/CUDA source includes a header of a layer above its own.

DESIGN.md's layers, which this table is the one statement of:
  runners -> suites -> harness -> bridge -> {engine, reference} -> common
  bridge is the one place where engine and reference meet (reference rules, the reference
  interpreters, ErrorSpec); harness runs cases (registry, timing, records, lockstep) and
  checks Program cases through the bridge. Each has its CMake target (tandem_bridge,
  tandem_harness), which links only the layers below it.
  inside engine: core <- {cpu, ir} <- prims <- passes; comm beside prims (core only);
  cuda is a backend: its kernels need only core, its impls attach to primitives (ir, prims).
  inside suites: common <- register_suites (top-level files) <- each suite; a suite never
  includes another suite (shared model builders live in suites/common).
  lab (the benchmarks and table scripts behind the measured pages) stands on all of it; no
  layer may include or link lab.
A test file (*_test.cc, *_test_util.h, ...) is a leaf nothing includes, so it is checked by
component only: it may include any layer of its own component and whatever its component's
layers may include (an engine test may build IR; it may not include suites).
The link graph says the same by the same table: a library belongs to the component of the
folder whose CMakeLists.txt adds it, and a target there (target_link_libraries, or the LIBS
of tandem_add_test) may link only libraries of its own component or of those below it.

Usage: check_layers.py [ROOT]   (exit 0: every include runs one way; 1: a list of violations)
"""
from __future__ import annotations

import fnmatch
import os
import re
import sys
from pathlib import Path

ENGINE = ["engine/core", "engine/cpu", "engine/ir", "engine/prims", "engine/passes", "engine/comm", "engine/cuda"]

# Everything a suite stands on: the harness, the bridge, and what they stand on.
BELOW_SUITES = ["harness", "bridge"] + ENGINE + ["reference", "common"]

# layer -> the layers its files may include (besides their own). "suites/*" is every suite
# folder, each a layer of its own. Folders not listed here are in no layer: a failure.
LAYERS: dict[str, list[str]] = {
    "common": [],
    "reference": ["common"],
    "engine/core": ["common"],
    "engine/cpu": ["engine/core", "common"],
    "engine/ir": ["engine/core", "common"],
    "engine/prims": ["engine/ir", "engine/cpu", "engine/core", "common"],
    "engine/passes": ["engine/prims", "engine/ir", "engine/core", "common"],
    "engine/comm": ["engine/core", "common"],
    "engine/cuda": ["engine/prims", "engine/ir", "engine/cpu", "engine/core", "common"],
    "bridge": ENGINE + ["reference", "common"],
    "harness": ["bridge"] + ENGINE + ["reference", "common"],
    "suites/common": BELOW_SUITES,
    "suites": ["suites/common"] + BELOW_SUITES,
    "suites/*": ["suites", "suites/common"] + BELOW_SUITES,
    "runners": ["suites", "suites/*", "suites/common"] + BELOW_SUITES,
    "tools": ["runners", "suites", "suites/*", "suites/common"] + BELOW_SUITES,
    "ci": ["runners", "suites", "suites/*", "suites/common"] + BELOW_SUITES,
    # The lab (benchmarks and table scripts behind lab/pages) may use the whole product; no layer
    # lists it, so nothing in the product may include or link it.
    "lab": ["tools", "runners", "suites", "suites/*", "suites/common"] + BELOW_SUITES,
    # The build's own helpers (gtest batches): their self-test's C++ includes none of the project.
    "cmake": [],
}

# Known upward includes, each with the reason it is allowed (none today). Each entry must still match an include,
# so a stale entry fails too and gets deleted.
EXCEPTIONS: list[tuple[str, str]] = []

SOURCE_SUFFIXES = {".h", ".hpp", ".cc", ".cpp", ".cu", ".cuh"}
TEST_FILE = re.compile(r"_test(_util|_main)?\.(h|hpp|cc|cpp|cu|cuh)$")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel: str) -> str | None:
    """The layer of a root-relative path: the longest table entry that matches its folders."""
    parts = rel.split("/")
    if len(parts) >= 3 and parts[0] in ("engine", "suites"):
        two = f"{parts[0]}/{parts[1]}"
        if two in LAYERS:
            return two
        if parts[0] == "suites":
            return "suites/*"
        return None  # an engine folder missing from the table
    if len(parts) >= 2 and parts[0] in LAYERS:
        return parts[0]
    return None


def suite_folder(rel: str) -> str:
    return "/".join(rel.split("/")[:2])


def component(layer: str) -> str:
    return layer.split("/")[0]


def may_include(src_rel: str, src_layer: str, dst_rel: str, dst_layer: str) -> bool:
    if src_layer == dst_layer == "suites/*":
        # Suites are siblings: one suite's folder may not include another's (tests neither).
        return suite_folder(src_rel) == suite_folder(dst_rel)
    if src_layer == dst_layer:
        return True
    if TEST_FILE.search(src_rel):
        comp = component(src_layer)
        if component(dst_layer) == comp:
            return True
        return any(dst_layer in allowed for name, allowed in LAYERS.items() if component(name) == comp)
    return dst_layer in LAYERS[src_layer]


def table_problems() -> list[str]:
    """The table itself: every named layer exists, and the arrows form no cycle."""
    problems = [f"table: {src} names unknown layer {dst}"
                for src, allowed in LAYERS.items() for dst in allowed if dst not in LAYERS]
    state: dict[str, int] = {}

    def visit(n: str, path: list[str]) -> None:
        if state.get(n) == 2:
            return
        if state.get(n) == 1:
            problems.append("table: cycle " + " -> ".join(path + [n]))
            return
        state[n] = 1
        for m in LAYERS.get(n, []):
            visit(m, path + [n])
        state[n] = 2

    for n in LAYERS:
        visit(n, [])
    return problems


def project_files(root: Path, wanted):
    for dirpath, dirnames, filenames in os.walk(root):
        # Skip build trees, hidden folders (.git) and anything CMake configured.
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))
                       and not (Path(dirpath) / d / "CMakeCache.txt").exists()]
        for f in filenames:
            p = Path(dirpath) / f
            if wanted(p):
                yield p


def source_files(root: Path):
    return project_files(root, lambda p: p.suffix in SOURCE_SUFFIXES)


ADD_LIBRARY = re.compile(r"\badd_library\(\s*(\w+)")
LINKS = re.compile(r"\b(?:target_link_libraries|tandem_add_test)\(\s*(\w+)([^)]*)\)")


def below(comp: str) -> set[str]:
    """The components a component's files may use: its own and those its layers may include."""
    return {comp} | {component(dst) for name, allowed in LAYERS.items() if component(name) == comp for dst in allowed}


def link_problems(root: Path) -> list[str]:
    """Every link of a project library runs down the table, as the includes do."""
    lists = {}
    for f in sorted(project_files(root, lambda p: p.name == "CMakeLists.txt")):
        comp = f.parent.relative_to(root).as_posix().split("/")[0]
        if comp in {component(n) for n in LAYERS}:
            lists[f] = comp
    owner = {m.group(1): comp for f, comp in lists.items() for m in ADD_LIBRARY.finditer(f.read_text())}
    problems = []
    for f, comp in lists.items():
        for m in LINKS.finditer(f.read_text()):
            for lib in m.group(2).split():
                if lib in owner and owner[lib] not in below(comp):
                    problems.append(f"{f.relative_to(root).as_posix()}: {m.group(1)} ({comp}) may not link "
                                    f"{lib} ({owner[lib]}); {comp} may use: {', '.join(sorted(below(comp)))}")
    return problems


def resolve(root: Path, src: Path, target: str, quoted: bool) -> str | None:
    """The root-relative path an include names, or None for a header outside the project."""
    if quoted:
        local = (src.parent / target).resolve()
        if local.is_file() and root in local.parents:
            return local.relative_to(root).as_posix()
    rel = os.path.normpath(target).replace(os.sep, "/")
    return rel if layer_of(rel) is not None else None


def check(root: Path, exceptions: list[tuple[str, str]] = EXCEPTIONS) -> list[str]:
    root = root.resolve()
    problems = table_problems()
    used = set()
    for path in sorted(source_files(root)):
        rel = path.relative_to(root).as_posix()
        src_layer = layer_of(rel)
        if src_layer is None:
            problems.append(f"{rel}: in no layer of ci/checks/check_layers.py's table (add its folder)")
            continue
        for lineno, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            dst = resolve(root, path, m.group(2), m.group(1) == '"')
            if dst is None:
                continue
            dst_layer = layer_of(dst)
            if may_include(rel, src_layer, dst, dst_layer):
                continue
            hit = [e for e in exceptions if fnmatch.fnmatch(rel, e[0]) and dst == e[1]]
            if hit:
                used.update(hit)
                continue
            src_name = suite_folder(rel) if src_layer == "suites/*" else src_layer
            dst_name = suite_folder(dst) if dst_layer == "suites/*" else dst_layer
            problems.append(f"{rel}:{lineno}: {src_name} may not include {dst} ({dst_name}); "
                            f"{src_layer} may include: {', '.join(LAYERS[src_layer]) or 'nothing'}")
    for e in exceptions:
        if e not in used:
            problems.append(f"stale exception {e[0]} -> {e[1]}: no such include any more; remove it from EXCEPTIONS")
    return problems + link_problems(root)


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parents[2])
    problems = check(root)
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    if problems:
        print(f"{len(problems)} include(s) or link(s) against the layers (table: ci/checks/check_layers.py); "
              "hint: move the shared type to a lower layer, or the call to a higher one",
              file=sys.stderr)
        return 1
    print("every include and every link runs one way (ci/checks/check_layers.py)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
