#!/usr/bin/env python3
"""The function-length budget, checked by ctest beside the line budget: fails when a function
body is longer than the budget, and prints the longest functions (file:line name length) so the
fix starts where it pays. The per-file budget (ci/checks/check_line_budget.py) cannot see a 200-line
function in a 300-line file; this check can.

A function's length is its lines from the first line of its signature (a `template <...>` line
included) to its closing brace, both counted. C++/CUDA sources (.cc .h .cu .cuh): free
functions, methods, constructors (an initializer list included), gtest bodies (`TEST(A, B)`)
and lambdas that stand alone at namespace scope or in a table. A lambda inside a function
counts toward its enclosing function, as does every other brace in it. Namespaces, classes,
structs, enums, `extern "C"` blocks and braced initializer tables are scopes, not functions:
their own length is the line budget's business, and the functions inside them are measured.
Comments, string and character literals, raw strings and preprocessor lines are blanked
before the braces are matched, so a brace in them confuses nothing. Python (.py): every `def`,
measured by its `ast` node (end_lineno - lineno + 1; a nested def counts toward its outer one
and is also measured itself). Files: ci/checks/repo_files.py (what git tracks or would track).

Budget, set on 2026-11-27:
  80 lines per function, C++ and Python alike: a function that fits on one screen can be read
  whole, and 80 is where the 2026-11-27 review drew the line between "one job" and the long
  functions it listed (linearize 232, remat_case 136, ragged_all_to_all_into 122, ...). On the day it was
  set (main c6f393c: 3,322 functions), 14 C++ functions and 1 Python one were over it (the
  longest linearize_once at 321 lines); that day's helpers split them into named steps. Python
  shares the budget because only that one def (86 lines) was over it.

    ci/checks/check_function_length.py [ROOT] [--budget N] [--top N]
"""
import argparse
import ast
import os
import re
import sys

from repo_files import repo_files

BUDGET = 80
CPP_SUFFIXES = (".cc", ".h", ".cu", ".cuh")
PY_SUFFIXES = (".py",)

# Words that may follow a function's parameter list before its body.
_TRAILER = re.compile(r"(\s*((?<!\w)(const|volatile|noexcept|override|final|mutable|constexpr|consteval|try)|&&|&)\s*)$")
_SCOPE_KEYWORD = re.compile(r"\b(namespace|class|struct|union|enum|extern)\b")
_ACCESS = re.compile(r"\b(public|private|protected)\s*:(?!:)")
_NAME_BEFORE_PAREN = re.compile(r"(~?[A-Za-z_]\w*(?:\s*::\s*~?[A-Za-z_]\w*)*|operator\s*(?:\(\s*\)|\[\s*\]|[^\s\w(]+|\w+))\s*(<[^()]*>)?\s*$")
_CONTROL = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype", "alignas", "static_assert"}


def blank_cpp(src):
    """`src` with comments, literals and preprocessor lines replaced by spaces (newlines kept),
    so that every brace left is code."""
    out = list(src)
    i, n = 0, len(src)
    line_start = True  # only whitespace since the last newline

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if c == "\n":
            line_start = True
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            j = i
            while j < n and not (src[j] == "\n" and src[j - 1] != "\\"):
                j += 1
            blank(i, j)
            i = j
            continue
        if not c.isspace():
            line_start = False
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif c == '"':
            m = re.compile(r'R"([^()\\\s]{0,16})\(').match(src, i - 1) if i > 0 and src[i - 1] == "R" else None
            if m and (i < 2 or not (src[i - 2].isalnum() or src[i - 2] == "_") or src[i - 3:i - 1] in ("u8",) or src[i - 2] in "uUL"):
                end = src.find(")" + m.group(1) + '"', m.end())
                j = n if end < 0 else end + len(m.group(1)) + 2
            else:
                j = i + 1
                while j < n and src[j] != '"' and src[j] != "\n":
                    j += 2 if src[j] == "\\" else 1
                j = min(j + 1, n)
            blank(i, j)
            i = j
        elif c == "'":
            k = i - 1
            while k >= 0 and (src[k].isalnum() or src[k] == "_"):
                k -= 1
            if k + 1 < i and src[k + 1].isdigit():  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and src[j] != "'" and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def _match(text, i, open_c, close_c):
    """Index of the bracket closing the one at i (or len(text) when none closes it)."""
    depth = 0
    for k in range(i, len(text)):
        if text[k] == open_c:
            depth += 1
        elif text[k] == close_c:
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def _match_back(text, i, open_c, close_c):
    """Index of the bracket opening the one closing at i (-1 when none opens it)."""
    depth = 0
    for k in range(i, -1, -1):
        if text[k] == close_c:
            depth += 1
        elif text[k] == open_c:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _strip_trailers(h):
    """The head with what may follow a parameter list removed: qualifiers, noexcept(...),
    attributes and a trailing return type."""
    while True:
        h = h.rstrip()
        m = _TRAILER.search(h)
        if m and m.group(1).strip():
            h = h[:m.start()]
            continue
        if h.endswith(")"):  # noexcept(...), __attribute__((...))
            o = _match_back(h, len(h) - 1, "(", ")")
            pre = h[:o].rstrip()
            if o > 0 and re.search(r"\b(noexcept|__attribute__|__declspec|requires)$", pre):
                h = pre[:pre.rfind(re.search(r"\w+$", pre).group(0))]
                continue
        if h.endswith("]]"):
            h = h[:h.rfind("[[")]
            continue
        arrow = h.rfind("->")  # a trailing return type after the last parameter list
        if arrow > 0 and ")" in h[:arrow] and "(" not in h[arrow:].split("<")[0]:
            if h[:arrow].rstrip().endswith(")") or _TRAILER.search(h[:arrow].rstrip()):
                h = h[:arrow]
                continue
        return h


def _top_level_colon(h):
    """Index of the first `:` (not `::`) outside brackets in h, or -1."""
    depth = 0
    for k, c in enumerate(h):
        if c in "([{<":
            depth += 1 if c != "<" else 0
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0 and h[k - 1:k] != ":" and h[k + 1:k + 2] != ":":
            return k
    return -1


def classify(head):
    """What a `{` after `head` opens: ("function", name), ("lambda", None), ("member_init",
    None) (a brace in a constructor's initializer list), ("scope", None) or ("aggregate", None)."""
    h = _ACCESS.split(head)[-1].strip()
    if not h:
        return "aggregate", None
    colon = _top_level_colon(h)
    if colon >= 0 and not _SCOPE_KEYWORD.match(h) and "?" not in h[:colon]:
        sig = _strip_trailers(h[:colon])
        if sig.endswith(")"):  # a constructor's initializer list
            inits = h[colon + 1:].rstrip()
            if re.search(r"(\w|>)$", inits):
                return "member_init", None
            kind, name = classify(sig)
            return "function", name.split("(")[0] if kind == "function" else None
    t = _strip_trailers(h)
    if t.endswith("]"):
        return "lambda", None
    if t.endswith(")"):
        o = _match_back(t, len(t) - 1, "(", ")")
        pre = t[:o].rstrip()
        if pre.endswith("]"):
            return "lambda", None
        m = _NAME_BEFORE_PAREN.search(pre)
        if m and m.group(1) not in _CONTROL and "=" not in re.sub(r"operator\s*\S+|<[^<>]*>|[<>!=]=", "", pre[:m.start()]):
            name = re.sub(r"\s+", "", m.group(1))
            if re.fullmatch(r"[A-Z][A-Z0-9_]*", name):  # a macro body such as TEST(Suite, Name)
                name += "(" + " ".join(t[o + 1:-1].split()) + ")"
            return "function", name
    if _SCOPE_KEYWORD.search(h) and not re.search(r"=", h):
        return "scope", None
    return "aggregate", None


def _line_of(text, i):
    return text.count("\n", 0, i) + 1


def cpp_functions(src):
    """[(line, name, length)] of every function in the C++ source `src`; raises ValueError on
    braces that do not balance."""
    text = blank_cpp(src)
    found = []

    def first_code(a, b):
        k = a
        while k < b and text[k].isspace():
            k += 1
        return k

    def scan(start, end, aggregate):
        """The scope text[start:end]: measures its functions, recurses into its scopes."""
        head_start, i, parens = start, start, 0
        while i < end:
            c = text[i]
            if c in "([":
                parens += 1
            elif c in ")]":
                parens -= 1
            elif c == ";" and parens == 0 or c == "," and aggregate and parens == 0:
                head_start = i + 1
            elif c == "}":
                raise ValueError(f"line {_line_of(text, i)}: a '}}' closes nothing")
            elif c == "{":
                close = _match(text, i, "{", "}")
                if close >= end:
                    raise ValueError(f"line {_line_of(text, i)}: a '{{' is never closed")
                kind, name = classify(text[head_start:i])
                if kind == "member_init":
                    i = close + 1
                    continue
                if kind in ("function", "lambda") and (kind == "lambda" or not aggregate):
                    s = first_code(head_start, i)
                    if kind == "lambda":
                        s = text.rfind("[", head_start, i)
                        s = s if s >= 0 else first_code(head_start, i)
                        name = "lambda"
                    line = _line_of(text, s)
                    found.append((line, name or "?", _line_of(text, close) - line + 1))
                else:
                    scan(i + 1, close, kind == "aggregate")
                i = close + 1
                head_start = i if kind != "lambda" else head_start
                parens = 0 if kind != "lambda" else parens
                continue
            i += 1

    scan(0, len(text), False)
    return found


def py_functions(src, path):
    """[(line, name, length)] of every def in the Python source `src`."""
    tree = ast.parse(src, filename=path)
    return [(n.lineno, n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def functions_of(root, path):
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        src = f.read()
    return py_functions(src, path) if path.endswith(PY_SUFFIXES) else cpp_functions(src)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    ap.add_argument("--budget", type=int, default=BUDGET)
    ap.add_argument("--top", type=int, default=10, help="longest functions to list")
    a = ap.parse_args(argv)
    files = repo_files(a.root, CPP_SUFFIXES + PY_SUFFIXES)
    if not files:
        print(f"error: no source file under {a.root}\n  hint: give the repository root", file=sys.stderr)
        return 4
    found, unreadable = [], []
    for p in files:
        try:
            found += [(n, p, line, name) for line, name, n in functions_of(a.root, p)]
        except (ValueError, SyntaxError) as e:
            unreadable.append(f"{p}: {e}")
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    over = [f for f in found if f[0] > a.budget]
    longest = f"; longest {found[0][1]}:{found[0][2]} {found[0][3]} at {found[0][0]}" if found else ""
    print(f"function length: {len(found)} functions in {len(files)} files (budget {a.budget} lines){longest}")
    for u in unreadable:
        print(f"FAIL: {u}: cannot find its functions")
    for n, p, line, name in over:
        print(f"FAIL: {p}:{line} {name}: {n} lines > {a.budget}: split it into named steps with one job each")
    if not over and not unreadable:
        return 0
    print("longest functions:")
    for n, p, line, name in found[:a.top]:
        print(f"  {n:5d}  {p}:{line} {name}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
