#!/usr/bin/env python3
"""The generated-table tools refuse bad input before their minutes of work: a page that cannot be
read or lacks the table's markers, a tandem that is not an executable, a corpus that is not a
directory — each exit 4 with the culprit's name and a hint, no traceback.
Usage: doc_table_test.py TANDEM_BINARY"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def refused(args, culprit):
    """None when `args` exits 4 naming `culprit` with a hint and no traceback, else why not."""
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600)
    if p.returncode == 77:
        return "skip"
    ok = p.returncode == 4 and culprit in p.stderr and "hint:" in p.stderr and "Traceback" not in p.stderr
    return None if ok else f"{args}: rc={p.returncode}, stderr={p.stderr[-400:]!r}"


def main():
    tandem = sys.argv[1]
    tmp = tempfile.mkdtemp()
    bare = os.path.join(tmp, "bare.md")
    with open(bare, "w") as f:
        f.write("# no markers here\n")
    missing = os.path.join(tmp, "missing.md")
    everyday = os.path.join(HERE, "everyday_table.py")
    corpus = os.path.join(HERE, "corpus_check.py")
    cases = [
        ([everyday, "--check", missing], "missing.md"),
        ([everyday, "--update", bare], "bare.md"),
        ([corpus, tandem, "--check", missing], "missing.md"),
        ([corpus, tandem, "--update", bare], "bare.md"),
        ([corpus, os.path.join(tmp, "no-tandem")], "no-tandem"),
        ([corpus, tandem, "--corpus", os.path.join(tmp, "nowhere")], "nowhere"),
    ]
    failures = [why for args, culprit in cases if (why := refused(args, culprit)) and why != "skip"]
    for why in failures:
        print("FAIL:", why)
    if open(bare).read() != "# no markers here\n":
        failures.append("the page without markers was written")
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
