#!/usr/bin/env python3
"""Every relative link in the repository's Markdown files must resolve to a file or folder
inside the repository: a clone has nothing beside it, so a link to ../shared/… or to a seed
file on one machine is broken for everyone else, even where it happens to exist.

Checked: inline links and images `[text](target)` and reference definitions `[id]: target`,
outside fenced code blocks and code spans. Skipped: URLs with a scheme (https:, mailto:) and
links to an anchor of the same page (#section). A `#fragment` after a path is ignored.

    ci/checks/check_markdown_links.py [ROOT]      exit 0 all resolve, 1 some do not (listed), 4 no .md
"""
import os
import re
import sys

from repo_files import repo_files

INLINE = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root):
    return repo_files(root, (".md",))


def links(text):
    """(line number, target) of every link outside code."""
    fenced = False
    for no, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for m in INLINE.finditer(line):
            yield no, m.group(1)
        m = REFERENCE.match(line)
        if m:
            yield no, m.group(1)


def problems(root):
    root = os.path.realpath(root)
    for md in markdown_files(root):
        with open(os.path.join(root, md), encoding="utf-8") as f:
            text = f.read()
        for no, target in links(text):
            if SCHEME.match(target) or target.startswith("#"):
                continue
            path = target.split("#", 1)[0]
            base = root if path.startswith("/") else os.path.dirname(os.path.join(root, md))
            resolved = os.path.realpath(os.path.join(base, path.lstrip("/")))
            if resolved != root and not resolved.startswith(root + os.sep):
                yield f"{md}:{no}: {target} points outside the repository"
            elif not os.path.exists(resolved):
                yield f"{md}:{no}: {target} does not exist"


def main(argv):
    root = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    if not markdown_files(root):
        print(f"error: no Markdown file under {root}\n  hint: give the repository root", file=sys.stderr)
        return 4
    bad = list(problems(root))
    for b in bad:
        print("FAIL: " + b)
    if bad:
        print("hint: link only what a clone has (docs/DESIGN.md, not ../shared/…); use a URL for anything else")
        return 1
    print(f"markdown links: all relative links of {len(markdown_files(root))} files resolve inside the repository")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
