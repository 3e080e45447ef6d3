#!/usr/bin/env python3
"""docs/README.md, the index of the guides, lists every page of docs/ and nothing that is not
there: a new page fails until it has its line, a removed page until its line goes.

A page is any .md file under docs/ (subfolders included) other than the index itself and those
under an entry of NOT_GUIDES; listed means docs/README.md links to it (a relative link, a
#fragment ignored).

    ci/checks/check_docs_index.py [ROOT]   exit 0 the index matches, 1 it does not (listed), 4 no index
"""
import os
import sys

from check_markdown_links import links
from repo_files import repo_files

# What under docs/ is no guide (raw records, pages of figures), a file or a folder: one row each.
# All of it moves to lab/ (lab/README.md indexes it); empty this once it has.
NOT_GUIDES = ("docs/PERFORMANCE.md", "docs/perf", "docs/performance", "docs/gate_calibration")
INDEX = "docs/README.md"


def pages(root):
    """Every guide page under docs/, as a path relative to ROOT."""
    return {p for p in repo_files(root, (".md",))
            if p.startswith("docs/") and p != INDEX
            and not any(p == entry or p.startswith(entry + "/") for entry in NOT_GUIDES)}


def listed(root):
    """(line, page) of every relative link of the index, as a path relative to ROOT."""
    with open(os.path.join(root, INDEX), encoding="utf-8") as f:
        text = f.read()
    for no, target in links(text):
        path = target.split("#", 1)[0]
        if not path or ":" in path:
            continue
        yield no, os.path.normpath(os.path.join("docs", path)).replace(os.sep, "/")


def problems(root):
    have, seen = pages(root), set()
    for no, page in listed(root):
        seen.add(page)
        if page.startswith("docs/") and page.endswith(".md") and page not in have:
            yield f"{INDEX}:{no}: {page} is listed but is not a page of docs/"
    for page in sorted(have - seen):
        yield f"{page} is not listed in {INDEX}"


def main(argv):
    root = os.path.realpath(argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if not os.path.isfile(os.path.join(root, INDEX)):
        print(f"error: no {INDEX} under {root}\n  hint: give the repository root", file=sys.stderr)
        return 4
    bad = list(problems(root))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print(f"hint: one line per page in {INDEX}: [PAGE.md](PAGE.md) — what it is for")
        return 1
    print(f"docs index: {INDEX} lists the {len(pages(root))} pages of docs/, and only those")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
