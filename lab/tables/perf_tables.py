#!/usr/bin/env python3
"""The one command behind the generated tables of lab/pages/*.md. A table that a
committed command regenerates from committed records is followed, after one blank line, by

    Regenerate: `COMMAND`

(run from the repository root by bash, so globs and braces expand). This runs each command
once and sets every table so marked to the command's table with the same header row and the
most rows in common (a command may print several tables). Tables without the line are pasted
figures (a run's log, a by-hand measurement), their section says so.

    lab/tables/perf_tables.py [--check] [PAGE.md ...]     (default: every lab/pages page
                                                            and the index lab/README.md)
    lab/tables/perf_tables.py --index                     (the index's table: per page its
                                                            sections and tables generated / all)
--check changes nothing: exit 1 when a marked table differs from what its command prints now
(ctest perf_tables), naming it. Exit 4 when a command fails.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

from bad_input import refuse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MARK = re.compile(r"^Regenerate: `(.+)`$")


def blocks(lines):
    """[(start, end)] of the Markdown table blocks (runs of lines starting with '|')."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


def marked(lines):
    """[(table start, end, command)]: each table followed by a blank line and the mark."""
    found = []
    for a, b in blocks(lines):
        if b + 1 < len(lines) and lines[b] == "" and MARK.match(lines[b + 1]):
            found.append((a, b, MARK.match(lines[b + 1]).group(1)))
    return found


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def index(pages):
    """lab/README.md's table, counted from the pages, so the counts cannot go stale."""
    print("| page | sections | tables generated / all |\n|---|---|---:|")
    for page in pages:
        lines, link = open(page).read().split("\n"), "pages/" + os.path.basename(page)
        title = next(line[2:] for line in lines if line.startswith("# "))
        subs = "; ".join(f"[{h[3:]}]({link}#{anchor(h[3:])})" for h in lines if h.startswith("## "))
        sections = f"[{title}]({link})" + (f": {subs}" if subs else "")
        print(f"| [{os.path.basename(page)[:-3]}]({link}) | {sections} | {len(marked(lines))} / {len(blocks(lines))} |")


def run(command, cache):
    if command not in cache:
        p = subprocess.run(["bash", "-c", command], cwd=ROOT, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"error: `{command}` exited {p.returncode}: {p.stderr.strip()[-400:]}\n"
                     f"  hint: run it from {ROOT} to see why")
        out = p.stdout.splitlines()
        cache[command] = [out[a:b] for a, b in blocks(out)]
    return cache[command]


def best(table, candidates):
    """The candidate with the same header and the most rows in common with `table`."""
    same = [c for c in candidates if c[0] == table[0]]
    return max(same, key=lambda c: len(set(c) & set(table)), default=None)


def parse(argv):
    """The options; a page that is not a readable file is refused here (exit 4), not mid-run."""
    ap = argparse.ArgumentParser(description="Regenerate (or --check) the generated tables of the performance docs.")
    ap.add_argument("--check", action="store_true", help="change nothing: exit 1 when a marked table differs")
    ap.add_argument("--index", action="store_true", help="rewrite the index's table in lab/README.md")
    ap.add_argument("pages", nargs="*", metavar="PAGE.md", help="default: every lab/pages page and the index")
    args = ap.parse_args(argv)
    for page in args.pages:
        if not os.path.isfile(page):
            refuse(f"{page}: no such page", "give Markdown pages, e.g. lab/pages/dot.md, or none for all")
    return args


def main(argv):
    args = parse(argv)
    check = args.check
    suite_pages = sorted(glob.glob(os.path.join(ROOT, "lab", "pages", "*.md")))
    if args.index:
        return index(suite_pages)
    pages = args.pages or suite_pages + [os.path.join(ROOT, "lab", "README.md")]
    cache, drifted, missing, count = {}, [], 0, 0
    for page in pages:
        lines = open(page).read().split("\n")
        changed = False
        for a, b, command in reversed(marked(lines)):  # from the bottom: a new table may change length
            count += 1
            new = best(lines[a:b], run(command, cache))
            if new is None:
                drifted.append(f"{os.path.relpath(page, ROOT)}:{a + 1}: `{command}` prints no table with this header")
                missing += 1
                continue
            if new != lines[a:b]:
                drifted.append(f"{os.path.relpath(page, ROOT)}:{a + 1}: differs from `{command}`")
                lines[a:b] = new
                changed = True
        if changed and not check:
            open(page, "w").write("\n".join(lines))
    for d in drifted:
        print(d)
    print(f"{count} generated tables, {len(drifted)} {'differ' if check else 'rewritten'}")
    return 1 if missing or (check and drifted) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
