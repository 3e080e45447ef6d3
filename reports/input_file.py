# Reading a file a user names (records, --current, --baseline, a gate config): only a regular
# file, read at most LIMIT bytes. A FIFO would block the read forever and /dev/zero would grow
# the process until the kernel kills it; both are bad input with a hint instead.
import contextlib
import json
import math
import os
import re
import stat
import sys
from pathlib import Path

from reports.exit_codes import BadInput

# 70x the quick run's records (3.5 MB); a nightly run's are a few times the quick one's.
LIMIT = 256 << 20


def read_text(path, what, hint_missing, limit=LIMIT):
    """The UTF-8 text of `path` (a `what`, e.g. "records file"); BadInput for a missing name
    (with `hint_missing`), a dangling symlink, anything that is not a regular file, a file
    over `limit` bytes, unreadable or non-UTF-8 bytes."""
    path = Path(path)
    try:
        st = os.stat(path)  # follows symlinks: a link to a regular file is fine
    except FileNotFoundError:
        if os.path.islink(path):
            raise BadInput(f"{path}: a dangling symlink (to {os.readlink(path)}), not a {what}",
                           "point it at an existing file or remove it")
        raise BadInput(f"{path}: no such {what}", hint_missing)
    except OSError as e:
        raise BadInput(f"{path}: cannot read the {what} ({e.strerror})", "check the path and its permissions")
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode) else \
            "a device or socket"
        raise BadInput(f"{path}: {kind}, not a regular file", f"pass the path of a {what}")
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)  # +1: a file that grew past the limit since stat is caught too
    except OSError as e:
        raise BadInput(f"{path}: cannot read the {what} ({e.strerror})", "check the file's permissions")
    if len(data) > limit:
        raise BadInput(f"{path}: larger than {limit} bytes, too large for a {what}",
                       f"pass a {what} that tandem wrote; split very large runs into several files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not UTF-8 ({e.reason} at byte {e.start})", f"pass a {what} that tandem wrote")


# tandem writes 64-bit integers (at most 20 digits); wider ones overflow float() in the statistics.
MAX_INT_DIGITS = 20
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")  # \ud800-\udfff: a pair is a fine emoji, a lone one no text


def parse_int(text):
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise BadInput(f"an integer with {digits} digits, wider than 64 bits")
    return int(text)


def parse_constant(name):
    raise BadInput(f"a bare {name}, which is not JSON",
                   'tandem writes a non-finite number as null or as a string ("nan", "inf", "-inf")')


def parse_float(text):
    value = float(text)
    if not math.isfinite(value):  # 1e999 parses to inf without passing parse_constant
        raise BadInput(f"the number {text[:40]} is past the range of a double",
                       'tandem writes a non-finite number as null or as a string ("nan", "inf", "-inf")')
    return value


def unique_keys(pairs):
    d = dict(pairs)
    if len(d) != len(pairs):
        seen = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))
        raise BadInput(f"the key {dup[:80]!r} twice in one object (which one counts is the reader's guess)",
                       "keep one of them: tandem writes each key once")
    return d


# tandem nests records a handful of levels deep; a document nested deeper than this is refused
# at parse time, so no tool (a schema message, json.dumps with indent, a repr) recurses past
# Python's stack on one just under the parser's own limit.
MAX_DEPTH = 100


@contextlib.contextmanager
def depth_limit():
    """The parser's recursion limit (Python's, which the C scanner honours) MAX_DEPTH above here."""
    old, depth, f = sys.getrecursionlimit(), 0, sys._getframe()
    while f is not None:
        depth, f = depth + 1, f.f_back
    sys.setrecursionlimit(depth + MAX_DEPTH + 5)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def parse_json(text, path, hint):
    """The JSON document in `text` (of file `path`). Malformed JSON, nesting deeper than
    MAX_DEPTH, integers wider than 64 bits, a number past a double (1e999), a key twice in an
    object, a bare NaN or Infinity and
    lone surrogates (\\ud800) are BadInput with `hint`: each used to escape as a traceback from
    the parser, the float maths or a UTF-8 writer, or to be read as some other document."""
    try:
        with depth_limit():
            doc = json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant,
                             object_pairs_hook=unique_keys)
    except json.JSONDecodeError as e:
        truncated = e.pos >= len(text.rstrip()) - 1
        what = "truncated JSON (ends early)" if truncated else f"malformed JSON at line {e.lineno} column {e.colno}: {e.msg}"
        raise BadInput(f"{path}: {what}", hint)
    except RecursionError:
        raise BadInput(f"{path}: JSON nested more than {MAX_DEPTH} levels deep", hint)
    except BadInput as e:
        raise BadInput(f"{path}: {e.message}", e.hint or hint)
    if SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(doc, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise BadInput(f"{path}: a lone UTF-16 surrogate escape (\\ud800-\\udfff) in a string, which is no text", hint)
    return doc


def read_json(path, what, hint_missing, hint_bad):
    """read_text, then parse_json with `hint_bad`."""
    return parse_json(read_text(path, what, hint_missing), path, hint_bad)
