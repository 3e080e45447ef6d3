#!/usr/bin/env python3
"""docs/DESIGN.md's table of ctest labels names the labels the tests really carry: every label
`ctest --print-labels` prints has its row (what a new label is for is written down), and every
row's label is set by some CMake file of the tree (a label that no test uses is not listed).

    ci/checks/check_test_labels.py ROOT BUILD_DIR [CTEST]   exit 0 they match, 1 they do not, 4 bad input
"""
import re
import subprocess
import sys
from pathlib import Path

ROW = re.compile(r"^\|\s*`([a-z_]+)`\s*\|")
SET_LABEL = r"\bLABELS?\b[^)]*?[\s\";]{0}(?=[\s\";)])"


def documented(design):
    """The labels of DESIGN.md's table (the rows under its `| label |` header)."""
    rows, inside = [], False
    for line in design.splitlines():
        if re.match(r"^\|\s*label\s*\|", line):
            inside = True
        elif inside and not line.startswith("|"):
            break
        elif inside and ROW.match(line):
            rows.append(ROW.match(line).group(1))
    return rows


def printed(build, ctest):
    out = subprocess.run([ctest, "--print-labels"], cwd=build, capture_output=True, text=True, check=True).stdout
    tail = out.split("All Labels:", 1)[1] if "All Labels:" in out else ""
    return {w.strip() for w in tail.splitlines() if w.strip()}


def set_in_cmake(root, label):
    pattern = re.compile(SET_LABEL.format(re.escape(label)))
    return any(pattern.search(p.read_text(errors="replace"))
               for p in list(root.rglob("CMakeLists.txt")) + list(root.rglob("*.cmake"))
               if not any(part.startswith(("build", ".")) for part in p.relative_to(root).parts[:-1]))


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 4
    root, build = Path(argv[0]), Path(argv[1])
    table = documented((root / "docs" / "DESIGN.md").read_text())
    if not table:
        print("error: docs/DESIGN.md has no `| label |` table\n  hint: one row per ctest label", file=sys.stderr)
        return 4
    bad = [f"label {l} is carried by tests but has no row in docs/DESIGN.md's label table"
           for l in sorted(printed(build, argv[2] if len(argv) == 3 else "ctest") - set(table))]
    bad += [f"label {l} of docs/DESIGN.md's table is set by no CMake file" for l in table if not set_in_cmake(root, l)]
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print("hint: give a new label its row (what its tests need), drop the row of a label no test uses")
        return 1
    print(f"test labels: docs/DESIGN.md's {len(table)} rows match the labels the tests carry")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
