#!/usr/bin/env python3
"""Each folder index lists every file of its folder and nothing that is not there: docs/README.md
every guide page of docs/, ci/README.md every script and file of ci/. A new file fails until it
has its line, a removed one until its line goes.

Files are what git tracks or would track (repo_files.py) under the folder, subfolders included,
the index itself and the patterns of NOT_LISTED left out; listed means the index links to it (a
relative link, a #fragment ignored).

    ci/checks/check_indexes.py [ROOT]   exit 0 every index matches, 1 one does not (listed), 4 no index
"""
import fnmatch
import os
import sys

from check_markdown_links import links
from repo_files import repo_files

# The indexes: index file -> (folder, suffixes of the files it lists; () for every file).
INDEXES = {"docs/README.md": ("docs", (".md",)), "ci/README.md": ("ci", ())}
# What an index need not list, one pattern a row. ci/checks/: each check's self-test sits beside it, named after it.
NOT_LISTED = ("ci/checks/*_test.py",)


def files(root, index):
    """Every file the index must list, as a path relative to ROOT."""
    folder, suffixes = INDEXES[index]
    return {p for p in repo_files(root, suffixes or ("",))
            if p.startswith(folder + "/") and p != index
            and not any(fnmatch.fnmatch(p, pattern) for pattern in NOT_LISTED)}


def listed(root, index):
    """(line, path relative to ROOT) of every relative link of the index."""
    with open(os.path.join(root, index), encoding="utf-8") as f:
        text = f.read()
    for no, target in links(text):
        path = target.split("#", 1)[0]
        if path and ":" not in path:
            yield no, os.path.normpath(os.path.join(os.path.dirname(index), path)).replace(os.sep, "/")


def problems(root, index):
    folder = INDEXES[index][0]
    have, seen = files(root, index), set()
    for no, path in listed(root, index):
        seen.add(path)
        if path.startswith(folder + "/") and not os.path.exists(os.path.join(root, path)):
            yield f"{index}:{no}: {path} is listed but does not exist"
    for path in sorted(have - seen):
        yield f"{path} is not listed in {index}"


def main(argv):
    root = os.path.realpath(argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    missing = [index for index in INDEXES if not os.path.isfile(os.path.join(root, index))]
    if missing:
        print(f"error: no {', '.join(missing)} under {root}\n  hint: give the repository root", file=sys.stderr)
        return 4
    bad = [b for index in INDEXES for b in problems(root, index)]
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print("hint: one line per file in its folder's index: [NAME](NAME) — what it is for")
        return 1
    counts = ", ".join(f"{index} {len(files(root, index))}" for index in INDEXES)
    print(f"indexes: each lists every file of its folder, and only those ({counts})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
