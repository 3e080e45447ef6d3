"""A generated table inside a docs page: the text between `<!-- NAME:begin -->` and
`<!-- NAME:end -->`, rewritten by --update and compared by --check (tools/import/corpus_check.py,
tools/import/everyday_table.py)."""
import os
import sys


def _markers(name):
    return f"<!-- {name}:begin -->", f"<!-- {name}:end -->"


def _split(page, name):
    begin, end = _markers(name)
    try:
        text = open(page, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"error: cannot read {page}: {e}\n  hint: pass the docs page holding the table, "
              f"e.g. docs/IMPORT_CORPUS.md", file=sys.stderr)
        sys.exit(4)
    if begin not in text or end not in text:
        print(f"error: {page} has no {begin} … {end} markers\n  hint: add them where the table belongs",
              file=sys.stderr)
        sys.exit(4)
    head, rest = text.split(begin, 1)
    body, tail = rest.split(end, 1)
    return head, body.strip("\n") + "\n", tail


def require(page, name):
    """Refuses (exit 4, with a hint) a page that cannot be read or lacks the markers: called
    before the minutes of work that produce the table, not after."""
    if page:
        _split(page, name)


def update(page, name, table):
    """Writes `table` between the page's markers, atomically."""
    head, _, tail = _split(page, name)
    begin, end = _markers(name)
    tmp = page + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{head}{begin}\n{table}{end}{tail}")
    os.replace(tmp, page)


def differs(page, name, table, regenerate):
    """True (and says so, with the command that regenerates it) when the page's table is not `table`."""
    if _split(page, name)[1] == table:
        return False
    print(f"error: the {name} table in {page} differs from this run's\n  hint: {regenerate}", file=sys.stderr)
    return True
