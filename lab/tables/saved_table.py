#!/usr/bin/env python3
"""The Markdown tables a perf tool printed, read back from its saved raw output (vmap_bench:
lab/records/vmap/*.md; executor_overhead: lab/records/executor/*.md), so that a page pasting a
tool's own table names the committed file it came from and perf_tables.py checks it. Each
table is checked whole before it is printed: a header row, the |---| row, and every row with
the header's cell count. A tool whose output needs combining across rounds has its own script
(vmap_rounds_table.py).

    lab/tables/saved_table.py [--after LINE] RAW.md [RAW.md ...]

--after LINE: only the table right below the line LINE (remat_measure_test prints its model's
label above each table, all with one header: lab/records/remat/measure.md).

A missing file, one without a table, or a broken table: exit 4 with a hint.
"""
import re
import sys

from bad_input import refuse

HINT = "pass the raw output the tool wrote (e.g. build/lab/vmap_bench ... > lab/records/vmap/NAME.md), unedited"


def fail(message, hint=HINT):
    refuse(message, hint)


def cells(line):
    """The row's cells; an escaped \\| is part of a cell."""
    return re.split(r"(?<!\\)\|", line.strip().strip("|"))


def tables(path, after=None):
    """[[line]] of the file's tables, each checked whole; with `after`, those right below that line."""
    try:
        lines = open(path).read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        fail(f"{path}: cannot be read ({e})")
    found, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("|"):
            i += 1
            continue
        j = i
        while j < len(lines) and lines[j].startswith("|"):
            j += 1
        block, width = lines[i:j], len(cells(lines[i]))
        if len(block) < 3 or set(cells(block[1])) - {"---", "---:", ":---", ":---:"}:
            fail(f"{path}:{i + 1}: a table without its |---| row or without rows")
        for k, row in enumerate(block[2:], start=i + 3):
            if len(cells(row)) != width:
                fail(f"{path}:{k}: {len(cells(row))} cells, the header has {width}")
        if after is None or (i > 0 and lines[i - 1] == after):
            found.append(block)
        i = j
    if not found:
        fail(f"{path}: no Markdown table in it" + (f" right below the line {after!r}" if after else ""))
    return found


def main(args):
    after = args[1] if args[:1] == ["--after"] and len(args) > 1 else None
    paths = args[2:] if after is not None else args
    if not paths or paths[0].startswith("--"):
        fail("no raw output file given (usage: saved_table.py [--after LINE] RAW.md [RAW.md ...])")
    print("\n\n".join("\n".join(t) for path in paths for t in tables(path, after)))


if __name__ == "__main__":
    main(sys.argv[1:])
